package collect

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

var (
	testKey  = []byte("the run's key")
	otherKey = []byte("another key")
)

func keyedStream(addr, path, run string, id protocol.NodeID, key []byte, log io.Writer) *Streamer {
	return Stream(StreamOptions{Addr: addr, Path: path, Run: run, Node: id, Host: "test", Key: key, Log: log,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Poll: 20 * time.Millisecond})
}

// rawConn is a client speaking the protocol by hand, as an attacker would.
type rawConn struct {
	net.Conn
	br *bufio.Reader
	g  greeting
}

// dialRaw connects and reads the greeting.
func dialRaw(addr string) (*rawConn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	r := &rawConn{Conn: c, br: bufio.NewReader(c)}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := r.br.ReadSlice('\n')
	if err == nil {
		err = json.Unmarshal(line, &r.g)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return r, nil
}

// send writes a hello and reads the answer.
func (r *rawConn) send(h hello) (reply, error) {
	if h.Proto == "" {
		h.Proto = Proto
	}
	b, _ := json.Marshal(h)
	if _, err := r.Write(append(b, '\n')); err != nil {
		return reply{}, err
	}
	r.SetReadDeadline(time.Now().Add(5 * time.Second))
	return readReply(r.br)
}

// signedHello is the hello a holder of key sends in answer to serverNonce.
func signedHello(key []byte, run string, id uint32, serverNonce string) hello {
	h := hello{Proto: Proto, Run: run, Node: id, Nonce: newNonce()}
	h.MAC = mac(key, "hello", run, id, serverNonce, h.Nonce, 0)
	return h
}

// A node with the run's key streams to a collector with it; one with
// another key, or none, is refused and never retries; a keyed node does
// not stream to a collector without a key.
func TestKeys(t *testing.T) {
	local, out := t.TempDir(), t.TempDir()
	log := &syncBuf{}
	c := startCollector(t, "127.0.0.1:0", Options{Dir: out, Run: "k", Key: testKey, Log: log})
	good := newFakeNode(t, local, "k", 1)
	good.events(t, 20, nil)
	s := keyedStream(c.Addr().String(), good.path, "k", 1, testKey, log)
	good.events(t, 20, s)
	if err := s.Finish(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatalf("Finish: %v\n%s", err, log)
	}
	sameBytes(t, good.path, trace.NodeFile(out, 1))

	for _, tc := range []struct {
		name string
		key  []byte
		want string
	}{{"wrong key", otherKey, "authentication failed"}, {"no key", nil, "needs the run's key"}} {
		n := newFakeNode(t, local, "k", 2)
		nlog := &syncBuf{}
		s := keyedStream(c.Addr().String(), n.path, "k", 2, tc.key, nlog)
		err := s.Finish(time.Now().Add(3 * time.Second))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Finish = %v, want %q", tc.name, err, tc.want)
		}
		if s.Connections() != 1 {
			t.Errorf("%s: %d connections, want 1 (a refusal is not retried)", tc.name, s.Connections())
		}
		if _, err := os.Stat(trace.NodeFile(out, 2)); err == nil {
			t.Errorf("%s: a file was written for the refused node", tc.name)
		}
	}

	keyless := startCollector(t, "127.0.0.1:0", Options{Dir: t.TempDir(), Run: "k"})
	s = keyedStream(keyless.Addr().String(), good.path, "k", 1, testKey, nil)
	if err := s.Finish(time.Now().Add(3 * time.Second)); err == nil || !strings.Contains(err.Error(), "has no key") {
		t.Errorf("keyed node to a keyless collector: Finish = %v", err)
	}
}

// A recorded hello (signed for another greeting's nonce) is refused, and
// so is an answer signed with another key: a node streams only to a
// collector holding the run's key.
func TestReplayedHelloAndForgedCollector(t *testing.T) {
	c := startCollector(t, "127.0.0.1:0", Options{Dir: t.TempDir(), Run: "k", Key: testKey})
	r1, err := dialRaw(c.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	recorded := signedHello(testKey, "k", 1, r1.g.Nonce)
	r1.Close()
	r2, err := dialRaw(c.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.g.Nonce == r1.g.Nonce || r2.g.Auth != AuthHMAC {
		t.Fatalf("greetings %+v and %+v", r1.g, r2.g)
	}
	rep, err := r2.send(recorded)
	if err != nil || !strings.Contains(rep.Error, "authentication failed") {
		t.Fatalf("replayed hello: %+v, %v", rep, err)
	}

	// A collector with another key: the node refuses its answer.
	forged := startCollector(t, "127.0.0.1:0", Options{Dir: t.TempDir(), Run: "k", Key: otherKey})
	n := newFakeNode(t, t.TempDir(), "k", 1)
	s := keyedStream(forged.Addr().String(), n.path, "k", 1, testKey, nil)
	if err := s.Finish(time.Now().Add(3 * time.Second)); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Finish to a collector with another key = %v", err)
	}
}

// With a key and no run given, the first authenticated node names the
// run: an unauthenticated client cannot.
func TestFirstAuthenticatedNamesRun(t *testing.T) {
	c := startCollector(t, "127.0.0.1:0", Options{Dir: t.TempDir(), Key: testKey})
	r, err := dialRaw(c.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if rep, err := r.send(hello{Run: "evil", Node: 1}); err != nil || rep.Error == "" {
		t.Fatalf("unauthenticated hello: %+v, %v", rep, err)
	}
	if c.Run() != "" {
		t.Fatalf("an unauthenticated client named the run %q", c.Run())
	}
	n := newFakeNode(t, t.TempDir(), "real", 1)
	n.events(t, 5, nil)
	s := keyedStream(c.Addr().String(), n.path, "real", 1, testKey, nil)
	if err := s.Finish(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if c.Run() != "real" {
		t.Errorf("run = %q", c.Run())
	}
}

// Without a key the collector must be told the run, and needs the
// membership.
func TestListenNeeds(t *testing.T) {
	if _, err := Listen("127.0.0.1:0", Options{Dir: t.TempDir(), Members: testMembers}); err == nil {
		t.Error("a keyless collector started without knowing the run")
	}
	if _, err := Listen("127.0.0.1:0", Options{Dir: t.TempDir(), Run: "r"}); err == nil {
		t.Error("a collector started without the membership")
	}
	if _, err := Listen("127.0.0.1:0", Options{Dir: t.TempDir(), Run: "r", Members: testMembers, MaxConns: 8}); err == nil {
		t.Error("a cap leaving no room for handshakes was accepted")
	}
}

// Without a key, a peer that is not on loopback is refused, in the
// greeting: a node streaming to it reports the collector's reason, not
// that the collector "does not speak manetlab-trace/2", and does not
// retry.
func TestKeylessRefusesOtherHosts(t *testing.T) {
	var ip net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("no non-loopback IPv4 address to connect from")
	}
	log := &syncBuf{}
	c := startCollector(t, "0.0.0.0:0", Options{Dir: t.TempDir(), Run: "r", Log: log})
	if !strings.Contains(log.String(), "warning: listening on") {
		t.Errorf("no warning for a keyless collector on every interface:\n%s", log)
	}
	port := c.Addr().(*net.TCPAddr).Port
	conn, err := net.Dial("tcp", net.JoinHostPort(ip.String(), itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(conn).ReadSlice('\n')
	var g greeting
	if err != nil || json.Unmarshal(line, &g) != nil || g.Proto != Proto || !strings.Contains(g.Error, "loopback peers only") {
		t.Fatalf("greeting to %s: %s, %v", ip, line, err)
	}

	n := newFakeNode(t, t.TempDir(), "r", 1)
	nlog := &syncBuf{}
	s := keyedStream(net.JoinHostPort(ip.String(), itoa(port)), n.path, "r", 1, nil, nlog)
	err = s.Finish(time.Now().Add(3 * time.Second))
	want := "the collector at " + net.JoinHostPort(ip.String(), itoa(port)) + " refused this node: this collector has no key: it accepts loopback peers only"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error()+nlog.String(), "does not speak") {
		t.Errorf("the node's error %v, want %q; its log:\n%s", err, want, nlog)
	}
	if s.Connections() != 1 {
		t.Errorf("%d connections, want 1 (a refusal is not retried)", s.Connections())
	}
}

// A refusal as an older collector sent it, a bare reply line without
// proto in place of the greeting, is reported with its reason too.
func TestOldCollectorRefusalReported(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		writeReply(c, reply{Error: "this collector has no key: it accepts loopback peers only"})
		c.Close()
	}()
	n := newFakeNode(t, t.TempDir(), "r", 1)
	s := keyedStream(ln.Addr().String(), n.path, "r", 1, nil, nil)
	if err := s.Finish(time.Now().Add(3 * time.Second)); err == nil || !strings.Contains(err.Error(), "refused this node: this collector has no key") {
		t.Errorf("Finish = %v", err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A node whose stream the collector closed as idle reconnects when it has
// more, and the collected file is still byte-identical.
func TestIdleStreamResumes(t *testing.T) {
	local, out := t.TempDir(), t.TempDir()
	log := &syncBuf{}
	c := startCollector(t, "127.0.0.1:0", Options{Dir: out, Run: "i", Log: log, IdleTimeout: 100 * time.Millisecond})
	n := newFakeNode(t, local, "i", 1)
	s := fastStream(c.Addr().String(), n.path, "i", 1, log)
	n.events(t, 10, s)
	waitFor(t, "the idle close", func() bool { return strings.Contains(log.String(), "idle timeout") })
	n.events(t, 10, s)
	if err := s.Finish(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatalf("Finish: %v\n%s", err, log)
	}
	sameBytes(t, n.path, trace.NodeFile(out, 1))
	if s.Connections() < 2 {
		t.Errorf("%d connections, want a reconnection after the idle close", s.Connections())
	}
	waitFor(t, "the file closed once the stream ended", func() bool { return c.Stats().Files == 0 })
}

// A second stream for a node that has a live one is refused for now; the
// node retries and takes over once the first ends.
func TestSecondStreamWaits(t *testing.T) {
	local, out := t.TempDir(), t.TempDir()
	c := startCollector(t, "127.0.0.1:0", Options{Dir: out, Run: "b"})
	squatter, err := dialRaw(c.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := squatter.send(hello{Run: "b", Node: 3}); err != nil || rep.Error != "" {
		t.Fatalf("first stream: %+v, %v", rep, err)
	}
	n := newFakeNode(t, local, "b", 3)
	n.events(t, 10, nil)
	s := fastStream(c.Addr().String(), n.path, "b", 3, nil)
	waitFor(t, "a refusal", func() bool { return c.Refused() > 0 })
	if s.Acked() != 0 {
		t.Fatal("the second stream was accepted")
	}
	// The squatter's first line is not a trace header: refused.
	if rep, err := squatter.send(hello{Run: "b", Node: 3}); err != nil || !strings.Contains(rep.Error, "trace header") {
		t.Errorf("a stream without a header: %+v, %v", rep, err)
	}
	squatter.Close()
	n.events(t, 10, s)
	if err := s.Finish(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	sameBytes(t, n.path, trace.NodeFile(out, 3))
}
