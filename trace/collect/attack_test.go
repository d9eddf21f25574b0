package collect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// The attacks of issue 10, each against a collector receiving a real
// node's stream, with and without a key. Each must leave that stream
// byte-identical, the collector's descriptors within its cap and its
// memory bounded; the figures measured are logged (go test -v).
func TestAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("opens thousands of connections")
	}
	for _, keyed := range []bool{false, true} {
		name := "keyless"
		if keyed {
			name = "keyed"
		}
		t.Run(name, func(t *testing.T) { runAttacks(t, keyed) })
	}
}

// attackMembers: node 1 is the real one, the others are free slots an
// attacker on loopback may take without a key.
var attackMembers = func() []protocol.NodeID {
	var ids []protocol.NodeID
	for id := range protocol.NodeID(12) {
		ids = append(ids, id+1)
	}
	return ids
}()

const (
	floodConns      = 2000
	floodHandshakes = 2000
	longLineConns   = 8
	longLineBytes   = 64 << 20
)

func runAttacks(t *testing.T, keyed bool) {
	var key []byte
	if keyed {
		key = testKey
	}
	local, out := t.TempDir(), t.TempDir()
	log := &syncBuf{}
	c := startCollector(t, "127.0.0.1:0", Options{Dir: out, Run: "atk", Members: attackMembers, Key: key, Log: log,
		HelloTimeout: 2 * time.Second, IdleTimeout: time.Second})
	addr := c.Addr().String()
	port := c.Addr().(*net.TCPAddr).Port

	// The real node writes an event every 2 ms throughout.
	real := newFakeNode(t, local, "atk", 1)
	s := keyedStream(addr, real.path, "atk", 1, key, log)
	stop, wrote := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(wrote)
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				real.events(t, 1, s)
			}
		}
	}()
	waitFor(t, "the real stream", func() bool { st, err := os.Stat(trace.NodeFile(out, 1)); return err == nil && st.Size() > 0 })

	limit := c.opt.MaxConns + 2 + len(attackMembers) // the cap, the listener, one just accepted, the files
	attack := func(name string, fn func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			m := startMeasure(port, out)
			fn(t)
			f := m.stop()
			t.Logf("%s: collector fds peak %d (cap %d), RSS peak %.1f MiB, process CPU %.2f s (attacker included), %s",
				name, f.fds, c.opt.MaxConns, float64(f.rss)/(1<<20), f.cpu.Seconds(), statsLine(c.Stats()))
			if f.fds > limit {
				t.Errorf("the collector held %d descriptors, more than %d", f.fds, limit)
			}
			if f.rss > 256<<20 {
				t.Errorf("RSS reached %d MiB", f.rss>>20)
			}
		})
	}

	attack("idle connections flood", func(t *testing.T) {
		conns := dialMany(t, addr, floodConns)
		closedByServer := 0
		for _, conn := range conns {
			// Closed at the cap, else at the hello timeout.
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io_ReadAll(conn); err == nil {
				closedByServer++
			}
			conn.Close()
		}
		if closedByServer != len(conns) {
			t.Errorf("%d of %d idle connections still open past the hello timeout", len(conns)-closedByServer, len(conns))
		}
	})

	attack("handshake flood, distinct IDs", func(t *testing.T) {
		// A handshake the collector closes before answering (a slow
		// attacker past the hello timeout) is fine; one it accepts is not.
		accepted := parallel(floodHandshakes, 8, func(i int) bool {
			r, err := dialRaw(addr)
			if err != nil {
				return false
			}
			defer r.Close()
			id := uint32(1000 + i)
			h := hello{Run: "atk", Node: id}
			if keyed {
				h = signedHello(otherKey, "atk", id, r.g.Nonce)
			}
			rep, err := r.send(h)
			return err == nil && rep.Error == ""
		})
		if accepted != 0 {
			t.Errorf("%d of %d made-up nodes accepted", accepted, floodHandshakes)
		}
		onlyRealFile(t, out)
	})

	attack("claiming the real node", func(t *testing.T) {
		r, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		h := hello{Run: "atk", Node: 1}
		want := "already streaming"
		if keyed {
			// What an eavesdropper recorded: a hello signed for another greeting.
			h, want = signedHello(key, "atk", 1, newNonce()), "authentication failed"
		}
		rep, err := r.send(h)
		if err != nil || !strings.Contains(rep.Error, want) {
			t.Fatalf("claiming node 1: %+v, %v; want %q", rep, err, want)
		}
		// It sends lines anyway: they go nowhere.
		r.Write([]byte(`{"t":1,"node":1,"ev":"send"}` + "\n"))
	})

	attack("made-up node", func(t *testing.T) {
		r, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		h := hello{Run: "atk", Node: 99}
		want := "not in the run's scenario"
		if keyed {
			h, want = hello{Run: "atk", Node: 99}, "needs the run's key"
		}
		if rep, err := r.send(h); err != nil || !strings.Contains(rep.Error, want) {
			t.Fatalf("node 99: %+v, %v; want %q", rep, err, want)
		}
		onlyRealFile(t, out)
	})

	attack("64 MiB lines without a newline", func(t *testing.T) {
		var wg sync.WaitGroup
		answers := make([]string, longLineConns)
		sent := make([]int64, longLineConns)
		for i := range longLineConns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i], sent[i] = longLine(addr, uint32(2+i), keyed)
			}()
		}
		wg.Wait()
		want := "a line longer than 1048576 bytes"
		if keyed {
			want = "a hello longer than 4096 bytes"
		}
		t.Logf("bytes the collector took before cutting each connection: %v", sent)
		for i, a := range answers {
			if !strings.Contains(a, want) {
				t.Errorf("connection %d (%d bytes sent): answer %q, want %q", i, sent[i], a, want)
			}
			if sent[i] >= longLineBytes {
				t.Errorf("connection %d: the collector took all %d bytes", i, sent[i])
			}
		}
		onlyRealFile(t, out)
	})

	attack("slow-loris", func(t *testing.T) {
		// In the handshake: a byte every 20 ms, never a full hello.
		var wg sync.WaitGroup
		cut := make([]bool, 20)
		for i := range cut {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cut[i] = dribble(addr, nil, 0)
			}()
		}
		// After the handshake (without a key a loopback client can take a
		// free node): a byte every 20 ms, never a newline.
		loris := true
		if !keyed {
			loris = dribble(addr, []byte(`{"run":"atk","node":11}`), 11)
		}
		wg.Wait()
		for i, ok := range cut {
			if !ok {
				t.Errorf("slow handshake %d was not cut", i)
			}
		}
		if !loris {
			t.Error("the slow stream was not cut")
		}
	})

	close(stop)
	<-wrote
	real.events(t, 10, s)
	if err := s.Finish(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatalf("Finish: %v\n%s", err, log)
	}
	sameBytes(t, real.path, trace.NodeFile(out, 1))
	st := c.Stats()
	t.Logf("after the attacks: %s; the real node made %d connections; log %d lines", statsLine(st), s.Connections(), strings.Count(log.String(), "\n"))
	if st.PeakConns > c.opt.MaxConns {
		t.Errorf("peak connections %d above the cap %d", st.PeakConns, c.opt.MaxConns)
	}
	if n := strings.Count(log.String(), "\n"); n > 2000 {
		t.Errorf("the attacks wrote %d log lines", n)
	}
}

// onlyRealFile fails unless node 1's is the only node file in dir.
func onlyRealFile(t *testing.T, dir string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "node-*"))
	if len(names) != 1 || names[0] != trace.NodeFile(dir, 1) {
		t.Errorf("node files %v, want only node 1's", names)
	}
}

func statsLine(s Stats) string {
	return fmt.Sprintf("accepted %d, refused %d, evicted %d, streams %d, peak conns %d, files open %d",
		s.Accepted, s.Refused, s.Evicted, s.Streams, s.PeakConns, s.Files)
}

// dialMany opens n connections that send nothing.
func dialMany(t *testing.T, addr string, n int) []net.Conn {
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	parallel(n, 8, func(int) bool {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return false
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		return true
	})
	if len(conns) < n {
		t.Logf("%d of %d connections made", len(conns), n)
	}
	return conns
}

// io_ReadAll reads until the server closes (nil) or the deadline.
func io_ReadAll(c net.Conn) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(c)
	return b.Bytes(), err
}

// parallel runs fn(0..n-1) on w goroutines and counts the true results.
func parallel(n, w int, fn func(i int) bool) int {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
		ok   int
	)
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				if fn(i) {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return ok
}

// longLine sends up to 64 MiB without a newline — after a handshake as
// node id without a key, as the hello with one — and returns the
// collector's answer and the bytes it managed to send.
func longLine(addr string, id uint32, keyed bool) (string, int64) {
	r, err := dialRaw(addr)
	if err != nil {
		return err.Error(), 0
	}
	defer r.Close()
	if !keyed {
		if rep, err := r.send(hello{Run: "atk", Node: id}); err != nil || rep.Error != "" {
			return fmt.Sprintf("handshake: %+v %v", rep, err), 0
		}
	}
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	var sent int64
	r.SetWriteDeadline(time.Now().Add(20 * time.Second))
	for sent < longLineBytes {
		n, err := r.Write(chunk)
		sent += int64(n)
		if err != nil {
			break
		}
	}
	r.SetReadDeadline(time.Now().Add(5 * time.Second))
	rep, err := readReply(r.br)
	if err != nil {
		return err.Error(), sent
	}
	return rep.Error, sent
}

// dribble connects and sends a byte every 20 ms (the hello's bytes when
// hello is nil... else a handshake as node id then bytes without a
// newline). It says whether the collector cut it within 10 s.
func dribble(addr string, helloLine []byte, id uint32) bool {
	r, err := dialRaw(addr)
	if err != nil {
		return false
	}
	defer r.Close()
	if helloLine != nil {
		if rep, err := r.send(hello{Run: "atk", Node: id}); err != nil || rep.Error != "" {
			return false
		}
	}
	b, _ := json.Marshal(hello{Proto: Proto, Run: "atk", Node: 1})
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		if _, err := r.Write(b[i%len(b) : i%len(b)+1]); err != nil {
			return true
		}
		if b[i%len(b)] == '\n' {
			continue
		}
		r.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if _, err := r.br.ReadByte(); err == nil || !isTimeout(err) {
			return true // an answer (the idle close) or the end
		}
	}
	return false
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// measure samples the collector's descriptors (its sockets, found by
// their local port, and its node files) and the process's RSS while an
// attack runs, and the process's CPU time over it.
type measure struct {
	port    int
	dir     string
	stopc   chan struct{}
	done    chan figures
	cpu0    time.Duration
	started time.Time
}

type figures struct {
	fds int
	rss int64
	cpu time.Duration
}

func startMeasure(port int, dir string) *measure {
	m := &measure{port: port, dir: dir, stopc: make(chan struct{}), done: make(chan figures, 1), cpu0: cpuTime()}
	go func() {
		var f figures
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			f.fds = max(f.fds, collectorFDs(port, dir))
			f.rss = max(f.rss, rss())
			select {
			case <-m.stopc:
				m.done <- f
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

func (m *measure) stop() figures {
	close(m.stopc)
	f := <-m.done
	f.cpu = cpuTime() - m.cpu0
	return f
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rss is the process's resident set, from /proc (0 elsewhere).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// collectorFDs counts this process's descriptors that are the
// collector's: sockets whose local port is its port, files under dir.
func collectorFDs(port int, dir string) int {
	inodes := map[string]bool{}
	for _, p := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 {
				continue
			}
			_, hexPort, _ := strings.Cut(fs[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				inodes[fs[9]] = true
			}
		}
		f.Close()
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue
		}
		if ino, ok := strings.CutPrefix(target, "socket:["); ok && inodes[strings.TrimSuffix(ino, "]")] {
			n++
		} else if strings.HasPrefix(target, dir) {
			n++
		}
	}
	return n
}
