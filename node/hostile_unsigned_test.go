package node

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"manetlab/baseline"
	"manetlab/node/link"
	"manetlab/node/netnstest"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/trace/judge"
	"manetlab/trace/report"
)

// Four nodes in one process, no key: anyone on the group can send
// anything. Node 3 has the best value.
const unsignedYAML = `
name: unsigned
duration: 5s
nodes:
  list:
    - {id: 1, value: 10, pos: [0, 0]}
    - {id: 2, value: 20, pos: [50, 0]}
    - {id: 3, value: 30, pos: [0, 50]}
    - {id: 4, value: 5, pos: [50, 50]}
radio: {range: 250, hello: {period: 300ms}}
protocol: {name: baseline/floodmax, params: {period: 300ms}}
`

// rssKiB reads this process's resident set from /proc.
func rssKiB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Skip("no VmRSS")
	return 0
}

// TestHostileUnsigned replays, without a key, each attack issue 10 found
// against unsigned frames: sequence 2^63 with a bad body, the largest
// clock on a hello, a location stamped with the largest time or placed at
// 1e308, bodies carrying 1e308, NaN, ±Inf and -0, and bodies naming
// random node IDs. Each is counted under its reason and changes nothing:
// the attack stops a second into the run and the run's verdict is valid,
// every node agreeing on node 3, with the heap bounded.
func TestHostileUnsigned(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(t, unsignedYAML)
	out := t.TempDir()
	rss0 := rssKiB(t)
	start := time.Now().Add(200 * time.Millisecond).UnixNano()
	h, err := Start(context.Background(), Options{Scenario: s, IDs: ids(4), Out: out, Run: "unsigned", Start: start, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	atk, err := link.Open(link.Config{Group: DefaultGroup})
	if err != nil {
		t.Fatal(err)
	}
	defer atk.Close()
	ctl, err := link.Open(link.Config{Group: DefaultControl})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	codec, err := wire.NewCodec(mustSpec("baseline/floodmax"))
	if err != nil {
		t.Fatal(err)
	}
	run := wire.RunIDAt("unsigned", start)
	want := map[string]uint64{}
	send := func(c *link.Conn, reason string, f wire.Frame) {
		f.Run = run
		b, err := f.AppendTo(nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", reason, err)
		}
		if err := c.Send(b); err != nil {
			t.Fatal(err)
		}
		want[reason]++
		time.Sleep(30 * time.Microsecond) // the socket buffer is small
	}
	body := func(m protocol.Message) (uint16, []byte) {
		code, b, err := codec.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		return code, b
	}
	now := func() wire.HLC { return wire.HLC{Wall: time.Now().UnixNano()} }
	time.Sleep(400 * time.Millisecond) // the run has started
	rng := rand.New(rand.NewPCG(10, 10))
	const each = 100
	for i := range each {
		from := protocol.NodeID(1 + i%4)
		// Sequence 2^63 and a body that is no msgpack: before, the window
		// moved first and every later frame of the sender was a duplicate.
		send(atk, "body", wire.Frame{Type: wire.TypeBroadcast, From: from, Seq: 1<<63 + uint64(i), Clock: now(), Code: 1, Body: []byte{0xc1}})
		// The largest clock: before, it pinned every clock at the maximum.
		send(atk, "clock", wire.Frame{Type: wire.TypeHello, From: from, Seq: 1<<62 + uint64(i), Clock: wire.HLC{Wall: math.MaxInt64, Logical: math.MaxUint32}})
		// Locations: the largest time would pin the position; 1e308 is
		// nowhere.
		send(ctl, "clock", wire.Frame{Type: wire.TypeLocation, Seq: uint64(i + 1), Clock: now(),
			Loc: wire.Location{Node: from, X: 5000, Time: math.MaxInt64}})
		send(ctl, "location", wire.Frame{Type: wire.TypeLocation, Seq: uint64(i + 1), Clock: now(),
			Loc: wire.Location{Node: from, X: 1e308, Y: -1e308, Time: time.Now().UnixNano()}})
		// Leader bodies with values no node holds.
		for _, v := range []float64{1e308, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)} {
			code, b := body(baseline.Announce{Leader: 4, Value: v, Inc: uint64(time.Now().UnixNano()), Seq: uint64(i + 1), TTL: time.Hour})
			send(atk, "value", wire.Frame{Type: wire.TypeBroadcast, From: 4, Seq: 1<<40 + uint64(i*8) + uint64(len(want)), Clock: now(), Code: code, Body: b})
		}
		// Random node IDs: before, each became protocol state and trace.
		code, b := body(baseline.Announce{Leader: protocol.NodeID(5 + rng.Uint32N(1<<31)), Value: 99, Inc: 1, Seq: 1, TTL: time.Hour})
		send(atk, "member", wire.Frame{Type: wire.TypeFlood, From: from, Seq: 1<<41 + uint64(i), Clock: now(),
			Origin: from, OriginSeq: 1<<41 + uint64(i), HopLimit: 32, Code: code, Body: b})
	}
	res, err := h.Wait()
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	t.Logf("stats: %s", st)
	// Exact unless the kernel dropped some of the burst (a loaded
	// machine): never more than sent, nearly all of them.
	for r, n := range want {
		if got := st.Rejected[r]; got > n || got < n*9/10 {
			t.Errorf("%s: counted %d, sent %d", r, got, n)
		}
	}
	for id, l := range res.Leaders {
		if l != 3 {
			t.Errorf("node %d ended with leader %d, want 3", id, l)
		}
	}
	if err := WriteRunFile(out, s, "unsigned", nil, 0); err != nil {
		t.Fatal(err)
	}
	sum, err := report.Summarize(out)
	if err != nil {
		t.Fatal(err)
	}
	if !judge.ValidOrNothingJudged(sum.Verdict, sum.Reason) {
		t.Errorf("verdict %s: %+v", sum.Verdict, sum.Components)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 64<<20 {
		t.Errorf("heap %d MiB after the attack", ms.HeapAlloc>>20)
	}
	t.Logf("RSS before %d KiB, after %d KiB; heap after %.1f MiB", rss0, rssKiB(t), float64(ms.HeapAlloc)/(1<<20))
}
