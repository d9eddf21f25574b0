package collect

import (
	"bytes"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// syncBuf is a log the test can read while goroutines write.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proxy forwards TCP connections to a target the test can change, and
// can cut the first connection after a given number of client bytes.
type proxy struct {
	t      *testing.T
	ln     net.Listener
	mu     sync.Mutex
	target string
	cutAt  int // client->server bytes after which the next connection is cut; 0: never
	cuts   int
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, ln: ln, target: target}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) setTarget(a string) {
	p.mu.Lock()
	p.target = a
	p.mu.Unlock()
}

func (p *proxy) cutNext(n int) {
	p.mu.Lock()
	p.cutAt = n
	p.mu.Unlock()
}

func (p *proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		target, cut := p.target, p.cutAt
		p.cutAt = 0
		s, err := net.Dial("tcp", target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { // server -> client
			defer p.wg.Done()
			io.Copy(c, s)
			c.Close()
		}()
		go func() { // client -> server, cut after cut bytes
			defer p.wg.Done()
			var r io.Reader = c
			if cut > 0 {
				r = io.LimitReader(c, int64(cut))
			}
			io.Copy(s, r)
			if cut > 0 {
				p.mu.Lock()
				p.cuts++
				p.mu.Unlock()
				c.Close()
				s.Close()
				return
			}
			if tc, ok := s.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
		}()
	}
}

// fakeNode writes a trace file of run/node, n events, through trace.Writer.
type fakeNode struct {
	w    *trace.Writer
	id   protocol.NodeID
	path string
	seq  uint64
}

func newFakeNode(t *testing.T, dir, run string, id protocol.NodeID) *fakeNode {
	w, err := trace.Create(trace.NodeFile(dir, id), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.Write(&trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: run, Node: id, Driver: "node", Protocol: "floodmax"}); err != nil {
		t.Fatal(err)
	}
	return &fakeNode{w: w, id: id, path: w.Path()}
}

func (f *fakeNode) events(t *testing.T, n int, s *Streamer) {
	for range n {
		f.seq++
		e := trace.Event{T: int64(f.seq) * 1e6, Wall: 1700000000e9 + int64(f.seq), Node: f.id, Ev: trace.EvSend,
			Kind: "election", Seq: f.seq, Bytes: 40, Text: strings.Repeat("x", int(f.seq%50))}
		if err := f.w.Write(&e); err != nil {
			t.Fatal(err)
		}
		if s != nil {
			s.Notify()
		}
	}
}

// testMembers is the membership of the tests' runs: nodes 1 to 8.
var testMembers = []protocol.NodeID{1, 2, 3, 4, 5, 6, 7, 8}

func startCollector(t *testing.T, addr string, opt Options) *Collector {
	t.Helper()
	if opt.Members == nil {
		opt.Members = testMembers
	}
	c, err := Listen(addr, opt)
	if err != nil {
		t.Fatal(err)
	}
	go c.Serve()
	t.Cleanup(func() { c.Close() })
	return c
}

func fastStream(addr, path, run string, id protocol.NodeID, log io.Writer) *Streamer {
	return Stream(StreamOptions{Addr: addr, Path: path, Run: run, Node: id, Host: "test", Log: log,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Poll: 20 * time.Millisecond})
}

func sameBytes(t *testing.T, local, collected string) {
	t.Helper()
	a, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(collected)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("collected %s (%d bytes) differs from local %s (%d bytes)", collected, len(b), local, len(a))
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A connection cut in the middle of a line resumes exactly: the collected
// file is byte-identical to the local one.
func TestCutMidLineResumes(t *testing.T) {
	local, out := t.TempDir(), t.TempDir()
	log := &syncBuf{}
	c := startCollector(t, "127.0.0.1:0", Options{Dir: out, Run: "r1", Log: log})
	px := newProxy(t, c.Addr().String())
	node := newFakeNode(t, local, "r1", 3)
	node.events(t, 40, nil)
	st, _ := os.Stat(node.path)
	// The hello is about 90 bytes; cut well inside the data, mid-line.
	px.cutNext(int(st.Size()) / 2)
	s := fastStream(px.addr(), node.path, "r1", 3, log)
	waitFor(t, "the cut", func() bool { px.mu.Lock(); defer px.mu.Unlock(); return px.cuts == 1 })
	node.events(t, 60, s)
	if err := s.Finish(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatalf("Finish: %v\nlog:\n%s", err, log)
	}
	sameBytes(t, node.path, trace.NodeFile(out, 3))
	if s.Connections() < 2 {
		t.Errorf("connections = %d, want a reconnection", s.Connections())
	}
	if !strings.Contains(log.String(), "inside a line") && !strings.Contains(log.String(), "stream ended") {
		t.Errorf("the collector did not report the cut:\n%s", log)
	}
	if c.Run() != "r1" {
		t.Errorf("run = %q", c.Run())
	}
}

// Two nodes stream at once, each into its own file.
func TestTwoNodes(t *testing.T) {
	local, out := t.TempDir(), t.TempDir()
	c := startCollector(t, "127.0.0.1:0", Options{Dir: out, Run: "r2"})
	var wg sync.WaitGroup
	for _, id := range []protocol.NodeID{1, 2} {
		node := newFakeNode(t, local, "r2", id)
		s := fastStream(c.Addr().String(), node.path, "r2", id, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				node.events(t, 20, s)
				time.Sleep(2 * time.Millisecond)
			}
			if err := s.Finish(time.Now().Add(5 * time.Second)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, id := range []protocol.NodeID{1, 2} {
		sameBytes(t, trace.NodeFile(local, id), trace.NodeFile(out, id))
	}
}

// A client of another run is refused, reported on both sides, and
// nothing is written for it.
func TestOtherRunRefused(t *testing.T) {
	local, out := t.TempDir(), t.TempDir()
	log, nlog := &syncBuf{}, &syncBuf{}
	c := startCollector(t, "127.0.0.1:0", Options{Dir: out, Run: "mine", Log: log})
	node := newFakeNode(t, local, "theirs", 4)
	node.events(t, 5, nil)
	s := fastStream(c.Addr().String(), node.path, "theirs", 4, nlog)
	err := s.Finish(time.Now().Add(3 * time.Second))
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Finish = %v, want a refusal", err)
	}
	if c.Refused() != 1 || !strings.Contains(log.String(), `refused: this collector collects run "mine"`) {
		t.Errorf("refused = %d, log:\n%s", c.Refused(), log)
	}
	if !strings.Contains(nlog.String(), "refused") {
		t.Errorf("node log:\n%s", nlog)
	}
	if _, err := os.Stat(trace.NodeFile(out, 4)); err == nil {
		t.Error("a file was written for the refused node")
	}
	// A client lying about its run in the hello is caught by its header.
	node5 := newFakeNode(t, local, "theirs", 5)
	s5 := fastStream(c.Addr().String(), node5.path, "mine", 5, nil)
	if err := s5.Finish(time.Now().Add(300 * time.Millisecond)); err == nil {
		t.Error("a stream whose header names another run was accepted")
	}
	if b, _ := os.ReadFile(trace.NodeFile(out, 5)); len(b) != 0 {
		t.Errorf("collected %d bytes of another run's trace", len(b))
	}
}

// The collector restarting (even after a kill left half a line) resumes
// from what it has.
func TestCollectorRestart(t *testing.T) {
	local, out := t.TempDir(), t.TempDir()
	log := &syncBuf{}
	c1, err := Listen("127.0.0.1:0", Options{Dir: out, Run: "r3", Members: testMembers, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	go c1.Serve()
	px := newProxy(t, c1.Addr().String())
	node := newFakeNode(t, local, "r3", 7)
	s := fastStream(px.addr(), node.path, "r3", 7, log)
	node.events(t, 30, s)
	collected := trace.NodeFile(out, 7)
	st, _ := os.Stat(node.path)
	waitFor(t, "the first part", func() bool { fi, err := os.Stat(collected); return err == nil && fi.Size() == st.Size() })
	c1.Close()
	// A collector killed mid-write leaves a partial line.
	f, err := os.OpenFile(collected, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"t":1,"node":7,"ev":"se`)
	f.Close()
	node.events(t, 30, s)
	c2 := startCollector(t, "127.0.0.1:0", Options{Dir: out, Log: log})
	if c2.Run() != "r3" {
		t.Errorf("restarted collector's run = %q, want it from the files", c2.Run())
	}
	px.setTarget(c2.Addr().String())
	node.events(t, 30, s)
	if err := s.Finish(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatalf("Finish: %v\nlog:\n%s", err, log)
	}
	sameBytes(t, node.path, collected)
}

// Finish returns by its deadline when no collector is there, and says so.
func TestNoCollector(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	node := newFakeNode(t, t.TempDir(), "r4", 1)
	s := fastStream(addr, node.path, "r4", 1, nil)
	start := time.Now()
	err := s.Finish(time.Now().Add(300 * time.Millisecond))
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("Finish = %v after %v", err, time.Since(start))
	}
}
