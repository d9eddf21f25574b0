package node

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/ipv4"

	"manetlab/node/link"
	"manetlab/node/netnstest"
	"manetlab/node/wire"
)

// BenchmarkReceiveBurst compares a node process's receive path with a
// bare receiver at the highest rate the bare one holds without loss, with
// a sender that is not the bottleneck: a separate process (this test
// binary re-run as TestBurstProcess) that signs its frames before it sends
// them and sends them paced, 32 to a sendmmsg(2), from a socket that does
// not itself receive the group.
//
// The bare receiver is a link.Conn with the kernel's default receive
// buffer (link.Config.ReadBuffer -1) read one datagram at a time: what a
// plain UDP multicast program gets. The node is a Host hosting one node,
// its socket as node processes open it (link.DefaultReadBuffer), through
// its whole pipeline (batch read, decode, HMAC, run and freshness checks,
// duplicates, radio model, message decoding, trace line, protocol step).
//
// It first raises the offered rate (half-second bursts, 1.25 times more
// each step, then three halvings of the gap) until the bare receiver
// loses frames: the kernel drops some (the socket's drops column in
// /proc/net/udp) or fewer arrive than were sent. At the highest lossless
// rate it then sends three two-second bursts to each receiver in turn and
// reports for each the fraction of the offered frames received, the
// kernel's drops for its socket and this process's CPU per frame
// received, and the ratio of the node's received frames to the bare
// receiver's; then the highest rate the node holds without loss, found
// the same way (node-sender-limited 1: the sender could offer no more).
// Nothing is asserted: the figures depend on the machine and on what else
// runs on it.
//
// This process runs with GOMAXPROCS=1, as `manetlab run` runs node
// processes, unless GOMAXPROCS is set. MANETLAB_BENCH_RATE=N skips the
// bare receiver's search and compares at N frames/s;
// MANETLAB_BENCH_CPUPROFILE=FILE profiles the node's last burst at that
// rate, MANETLAB_BENCH_MEMPROFILE=FILE writes the allocations at the end.
func BenchmarkReceiveBurst(b *testing.B) {
	if !netnstest.Run(b, netnstest.LoopbackMulticast) {
		return
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// As the launcher runs node processes (launch.childEnv).
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	s := parse(b, hostileYAML, "duration=600s")
	key := []byte("bench key")
	snd := startBurster(b, key)
	defer snd.close()
	bare := func(rate float64, d time.Duration) burst { return snd.bareBurst(b, rate, d) }
	// A Host runs only while it is measured: its socket would take the
	// bare receiver's frames too.
	start := func() (*Host, func()) {
		ctx, stop := context.WithCancel(context.Background())
		h, err := Start(ctx, Options{Scenario: s, IDs: ids(1), Out: b.TempDir(), Run: "hostile", Key: key})
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // booted, its first frames sent
		return h, func() { stop(); h.Wait() }
	}
	for b.Loop() {

		rate, bareLimited := 0.0, 0.0
		if v := os.Getenv("MANETLAB_BENCH_RATE"); v != "" {
			if _, err := fmt.Sscan(v, &rate); err != nil || rate <= 0 {
				b.Fatalf("MANETLAB_BENCH_RATE=%q: want frames/s", v)
			}
		} else {
			rate, bareLimited = ladder(b, "bare", bare)
		}
		// At that rate, bare and node in turn, so that both see the same
		// moments of the machine's load.
		var sb, sn burst
		for range compareRounds {
			sb = sb.add(bare(rate, compareWindow))
			if p := os.Getenv("MANETLAB_BENCH_CPUPROFILE"); p != "" {
				f, err := os.Create(p)
				if err != nil {
					b.Fatal(err)
				}
				pprof.StartCPUProfile(f)
			}
			h, stop := start()
			sn = sn.add(snd.nodeBurst(b, h, rate, compareWindow))
			stop()
			if os.Getenv("MANETLAB_BENCH_CPUPROFILE") != "" {
				pprof.StopCPUProfile()
			}
		}
		h, stop := start()
		nodeMax, nodeLimited := ladder(b, "node", func(rate float64, d time.Duration) burst { return snd.nodeBurst(b, h, rate, d) })
		stop()
		if p := os.Getenv("MANETLAB_BENCH_MEMPROFILE"); p != "" {
			// Allocations since the start: the bare bursts' too.
			f, err := os.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}

		b.ReportMetric(sb.offeredRate(), "offered-frames/s")
		b.ReportMetric(bareLimited, "bare-sender-limited")
		b.ReportMetric(sb.fraction(), "bare-received/offered")
		b.ReportMetric(float64(sb.drops), "bare-kernel-drops")
		b.ReportMetric(sb.cpuPerFrame(), "bare-cpu-µs/frame")
		b.ReportMetric(sb.allocsPerFrame(), "bare-allocs/frame")
		b.ReportMetric(sn.fraction(), "node-received/offered")
		b.ReportMetric(float64(sn.delivered)/float64(max(sn.sent, 1)), "node-delivered/offered")
		b.ReportMetric(float64(sn.drops), "node-kernel-drops")
		b.ReportMetric(sn.cpuPerFrame(), "node-cpu-µs/frame")
		b.ReportMetric(sn.allocsPerFrame(), "node-allocs/frame")
		b.ReportMetric(float64(sn.received)/float64(max(sb.received, 1)), "ratio")
		b.ReportMetric(nodeMax, "node-max-frames/s")
		b.ReportMetric(nodeLimited, "node-sender-limited")
		b.ReportMetric(sn.senderCPU/float64(compareRounds), "sender-cpu-share")
	}
}

const (
	// compareRounds and compareWindow: how many bursts, and how long,
	// each receiver gets at the bare receiver's highest lossless rate.
	compareRounds = 3
	compareWindow = 2 * time.Second
	// ladderStep is the length of each burst that looks for the highest
	// lossless rate.
	ladderStep = 500 * time.Millisecond
)

// ladder finds the highest rate at which receive loses nothing: from
// 20,000 frames/s, 1.25 times more each step until a burst loses frames,
// then three halvings of the gap. limited is 1 if the sender could offer
// no more while nothing was lost, 0 otherwise.
func ladder(b *testing.B, name string, receive func(rate float64, d time.Duration) burst) (rate, limited float64) {
	good, bad := 0.0, 0.0
	for rate = 20000; ; rate *= 1.25 {
		r := receive(rate, ladderStep)
		b.Logf("%s at %.0f/s: %v", name, rate, r)
		if !r.lossless() {
			bad = rate
			break
		}
		if r.offeredRate() < 0.9*rate {
			// The sender fell behind: once may be a moment of load.
			r = receive(rate, ladderStep)
			b.Logf("%s at %.0f/s again: %v", name, rate, r)
			if !r.lossless() {
				bad = rate
				break
			}
			if r.offeredRate() < 0.9*rate {
				return max(good, r.offeredRate()), 1 // the sender can do no more
			}
		}
		good = r.offeredRate()
	}
	for range 3 {
		mid := (good + bad) / 2
		r := receive(mid, ladderStep)
		b.Logf("%s at %.0f/s: %v", name, mid, r)
		if r.lossless() {
			good = r.offeredRate()
		} else {
			bad = mid
		}
	}
	return good, 0
}

// burst is what one burst did: sent by the sender, received and dropped
// at the receiver.
type burst struct {
	sent      int
	elapsed   time.Duration // the sender's, from first send to last
	senderCPU float64       // the sender's CPU time over elapsed
	received  int           // by the receiver's socket reads
	delivered int           // by a Host: handed to the protocol
	drops     uint64        // the kernel's, for the receiver's socket
	cpu       time.Duration // this process's, from the burst to the drain
	allocs    uint64        // this process's heap allocations, the same
	wall      time.Duration // from the burst's start to the drain
}

// add sums two bursts' counts and times.
func (r burst) add(o burst) burst {
	return burst{sent: r.sent + o.sent, elapsed: r.elapsed + o.elapsed, senderCPU: r.senderCPU + o.senderCPU,
		received: r.received + o.received, delivered: r.delivered + o.delivered, drops: r.drops + o.drops,
		cpu: r.cpu + o.cpu, allocs: r.allocs + o.allocs, wall: r.wall + o.wall}
}

func (r burst) String() string {
	return fmt.Sprintf("sent %d in %v (sender CPU %.0f%%), received %d, delivered %d, kernel drops %d, CPU %.2f µs/frame",
		r.sent, r.elapsed.Round(time.Millisecond), 100*r.senderCPU, r.received, r.delivered, r.drops, r.cpuPerFrame())
}

func (r burst) offeredRate() float64    { return float64(r.sent) / r.elapsed.Seconds() }
func (r burst) fraction() float64       { return float64(r.received) / float64(max(r.sent, 1)) }
func (r burst) lossless() bool          { return r.drops == 0 && r.received >= r.sent }
func (r burst) allocsPerFrame() float64 { return float64(r.allocs) / float64(max(r.received, 1)) }
func (r burst) cpuPerFrame() float64 {
	return float64(r.cpu.Microseconds()) / float64(max(r.received, 1))
}

// burster drives the sender process.
type burster struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startBurster(b *testing.B, key []byte) *burster {
	cmd := exec.Command(os.Args[0], "-test.run=^TestBurstProcess$")
	cmd.Env = append(os.Environ(), "MANETLAB_BENCH_BURST="+string(key))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &burster{cmd: cmd, in: in, out: bufio.NewScanner(out)}
}

func (s *burster) close() {
	s.in.Close()
	s.cmd.Wait()
}

// send has the sender send n frames at rate frames/s and waits until it
// has: it returns the frames sent, the time it took and its CPU share.
func (s *burster) send(b *testing.B, rate float64, n int) burst {
	fmt.Fprintf(s.in, "%g %d\n", rate, n)
	for s.out.Scan() {
		var r burst
		var cpu time.Duration
		if _, err := fmt.Sscanf(s.out.Text(), "sent %d %d %d", &r.sent, &r.elapsed, &cpu); err == nil {
			r.senderCPU = cpu.Seconds() / r.elapsed.Seconds()
			return r
		}
	}
	b.Fatalf("the sender process ended: %v", s.out.Err())
	return burst{}
}

// bareBurst offers a bare link.Conn rate frames/s for d and counts what it
// receives.
func (s *burster) bareBurst(b *testing.B, rate float64, d time.Duration) burst {
	rx, err := link.Open(link.Config{Group: DefaultGroup, ReadBuffer: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer rx.Close()
	drops0, err := rx.KernelDrops()
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			if _, err := rx.Recv(buf); err != nil {
				return
			}
			n.Add(1)
		}
	}()
	cpu0, a0, t0 := cpuTime(), mallocs(), time.Now()
	r := s.send(b, rate, int(rate*d.Seconds()))
	// Drain: wait until the count stands still for 100 ms, then end the
	// reader with a deadline in the past.
	drain(func() uint64 { return uint64(n.Load()) })
	rx.SetReadDeadline(time.Now())
	<-done
	r.received = int(n.Load())
	r.cpu, r.allocs, r.wall = cpuTime()-cpu0, mallocs()-a0, time.Since(t0)
	drops1, err := rx.KernelDrops()
	if err != nil {
		b.Fatal(err)
	}
	r.drops = drops1 - drops0
	return r
}

// drain waits until count stands still for 100 ms.
func drain(count func() uint64) {
	last := count()
	for {
		time.Sleep(100 * time.Millisecond)
		now := count()
		if now == last {
			return
		}
		last = now
	}
}

// nodeBurst offers Host h rate frames/s for d and counts what it
// receives, from its counters.
func (s *burster) nodeBurst(b *testing.B, h *Host, rate float64, d time.Duration) burst {
	drops0, err := h.data.KernelDrops()
	if err != nil {
		b.Fatal(err)
	}
	st0, cpu0, a0, t0 := h.Stats(), cpuTime(), mallocs(), time.Now()
	r := s.send(b, rate, int(rate*d.Seconds()))
	drain(func() uint64 { return h.Stats().Received })
	st1 := h.Stats()
	r.cpu, r.allocs, r.wall = cpuTime()-cpu0, mallocs()-a0, time.Since(t0)
	drops1, err := h.data.KernelDrops()
	if err != nil {
		b.Fatal(err)
	}
	r.received = int(st1.Received - st0.Received)
	r.delivered = int(st1.Delivered - st0.Delivered)
	r.drops = drops1 - drops0
	return r
}

// mallocs is the number of heap allocations this process made so far.
func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// TestBurstProcess is the sender of BenchmarkReceiveBurst: it runs only
// when that benchmark starts it. For each line "RATE N" on its standard
// input it signs N floodmax announcements from node 4 (sequence numbers
// rising across bursts, so that none is a duplicate), sends them at RATE
// frames/s and answers "sent N NANOSECONDS CPU-NANOSECONDS".
func TestBurstProcess(t *testing.T) {
	key := os.Getenv("MANETLAB_BENCH_BURST")
	if key == "" {
		t.Skip("the sender process of BenchmarkReceiveBurst")
	}
	tx, err := openSender()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	codec, _ := wire.NewCodec(mustSpec("baseline/floodmax"))
	code, body, err := codec.Encode(announce(4, 5))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := net.ResolveUDPAddr("udp4", DefaultGroup)
	if err != nil {
		t.Fatal(err)
	}
	clock := wire.NewClock(nil)
	seq := uint64(0)
	var frames []byte
	var msgs []ipv4.Message
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var rate float64
		var n int
		if _, err := fmt.Sscanf(in.Text(), "%g %d", &rate, &n); err != nil || n <= 0 {
			t.Fatalf("sender: bad command %q", in.Text())
		}
		// Sign every frame first, then send.
		frames, msgs = frames[:0], msgs[:0]
		ends := make([]int, 0, n)
		for range n {
			seq++
			f := wire.Frame{Type: wire.TypeBroadcast, Run: wire.RunID("hostile"), From: 4, Seq: seq, Clock: clock.Now(), Code: code, Body: body}
			frames, _ = f.AppendTo(frames, []byte(key))
			ends = append(ends, len(frames))
		}
		start := 0
		for _, end := range ends {
			msgs = append(msgs, ipv4.Message{Buffers: [][]byte{frames[start:end]}, Addr: dst})
			start = end
		}
		cpu0 := cpuTime()
		t0 := time.Now()
		sent := pace(tx, msgs, rate, t0)
		el := time.Since(t0)
		fmt.Printf("sent %d %d %d\n", sent, el.Nanoseconds(), (cpuTime() - cpu0).Nanoseconds())
	}
}

// senderBatch is how many frames one sendmmsg(2) sends.
const senderBatch = 32

// pace sends msgs, senderBatch at a time, each batch at its due time at
// rate frames/s from t0 (at once when late), and returns how many were
// sent.
func pace(tx *ipv4.PacketConn, msgs []ipv4.Message, rate float64, t0 time.Time) int {
	sent := 0
	for sent < len(msgs) {
		due := t0.Add(time.Duration(float64(sent) / rate * 1e9))
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		end := min(sent+senderBatch, len(msgs))
		n, err := tx.WriteBatch(msgs[sent:end], 0)
		if err != nil {
			fmt.Fprintf(os.Stderr, "sender: %v\n", err)
			return sent
		}
		sent += n
	}
	return sent
}

// openSender opens a UDP socket that sends to the group on lo and does
// not receive it (it joins nothing and is bound to another port), so that
// the sender does not pay for delivering its own frames back to itself.
func openSender() (*ipv4.PacketConn, error) {
	c, err := net.ListenPacket("udp4", "0.0.0.0:0")
	if err != nil {
		return nil, err
	}
	pc := ipv4.NewPacketConn(c)
	lo, err := link.Loopback()
	if err != nil {
		c.Close()
		return nil, err
	}
	for _, set := range []func() error{
		func() error { return pc.SetMulticastInterface(lo) },
		func() error { return pc.SetMulticastLoopback(true) },
		func() error { return pc.SetMulticastTTL(0) },
	} {
		if err := set(); err != nil {
			c.Close()
			return nil, fmt.Errorf("sender socket: %w", err)
		}
	}
	return pc, nil
}
