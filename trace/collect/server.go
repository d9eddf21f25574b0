package collect

import (
	"bufio"
	"bytes"
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"manetlab/internal/safefs"
	"manetlab/protocol"
	"manetlab/trace"
)

// Defaults of the collector's limits (Options).
const (
	DefaultHelloTimeout = 10 * time.Second
	DefaultIdleTimeout  = 60 * time.Second
	DefaultMaxLine      = 1 << 20
	// minMaxLine is the smallest line limit accepted (and the size of
	// the read buffer when it is smaller than 64 KiB).
	minMaxLine = 4096
)

// DefaultMaxConns is the default connection cap for a run of n nodes:
// one stream per node, as many handshakes again (a node reconnecting
// before its old connection is seen dead), and a margin.
func DefaultMaxConns(n int) int { return 2*n + 16 }

// Options configure a Collector.
type Options struct {
	// Dir receives node-<id>.jsonl per node (and run.jsonl from RunFile).
	Dir string
	// Run is the run collected. Empty: RunFile's run, else that of the
	// traces already in Dir, else — with a Key only — the first
	// authenticated client's. Without a Key the run must be known.
	Run string
	// RunFile, when set, is copied to Dir/run.jsonl (the launcher writes
	// the run file; nodes never send it).
	RunFile string
	// Members are the run's node IDs (the scenario's): no other node may
	// stream. Required.
	Members []protocol.NodeID
	// Key, when not empty, is the run's HMAC key (the frames' key): a
	// client must prove it holds it. Without one only loopback peers are
	// accepted.
	Key []byte
	// Log receives one line per connection, refusal and loss (at most
	// about ten a second; the rest are counted); nil discards.
	Log io.Writer
	// HelloTimeout bounds the handshake, from the connection to the end
	// of the hello (default DefaultHelloTimeout).
	HelloTimeout time.Duration
	// IdleTimeout closes a stream that brings no complete line for that
	// long (default DefaultIdleTimeout); the node reconnects when it has
	// more to send.
	IdleTimeout time.Duration
	// MaxConns caps the connections held (default DefaultMaxConns of the
	// membership; more than len(Members)). At the cap a new connection
	// closes the oldest one still in its handshake.
	MaxConns int
	// MaxLine is the longest trace line accepted (default
	// DefaultMaxLine, at least 4096): a longer one ends the stream with
	// an error.
	MaxLine int
}

// Stats counts what a Collector did.
type Stats struct {
	Accepted  int // connections accepted
	Refused   int // clients refused (not loopback without a key, bad hello, key, run, node, busy)
	Evicted   int // handshakes closed at the connection cap to make room
	Streams   int // streams started
	Conns     int // connections held now
	PeakConns int // most connections held at once
	Files     int // node files open now
}

// Collector receives node traces over TCP. Create it with Listen, run
// Serve, stop it with Close.
type Collector struct {
	opt     Options
	ln      net.Listener
	members map[protocol.NodeID]bool

	logMu   sync.Mutex
	logFrom time.Time // start of the current log window
	logN    int       // lines logged in it
	logHeld int       // lines not logged since the last one

	mu      sync.Mutex
	run     string
	nodes   map[protocol.NodeID]*nodeState
	conns   map[net.Conn]*connState
	pending *list.List // *connState in their handshake, oldest first
	closed  bool
	stats   Stats
	wg      sync.WaitGroup
}

// connState is a connection held: in its handshake while elem is set.
type connState struct {
	conn net.Conn
	elem *list.Element
}

// nodeState is one node's collected file. cur is the connection streaming
// into it (at most one); only that connection's handler touches f and
// size, and it closes f before it lets cur go.
type nodeState struct {
	path string
	f    *os.File
	size int64 // bytes of complete lines in the file
	cur  net.Conn
}

// Listen prepares Dir (copying RunFile, settling the run id) and listens
// on addr (host:port; port 0 picks one).
func Listen(addr string, opt Options) (*Collector, error) {
	c, err := newCollector(opt)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	c.ln = ln
	who := fmt.Sprintf("%d nodes", len(c.opt.Members))
	if c.run != "" {
		c.logf("collecting run %q (%s) into %s on %s", c.run, who, c.opt.Dir, ln.Addr())
	} else {
		c.logf("collecting into %s on %s (%s); the first authenticated node names the run", c.opt.Dir, ln.Addr(), who)
	}
	switch {
	case len(c.opt.Key) > 0:
		c.logf("nodes must prove they hold the run's key")
	case !isLoopback(ln.Addr()):
		c.logf("warning: listening on %s without a key: only loopback peers are accepted; give the run's key to accept other machines", ln.Addr())
	default:
		c.logf("no key: accepting loopback peers only")
	}
	return c, nil
}

// newCollector checks the options, fills in the defaults and prepares
// Dir; it does not listen.
func newCollector(opt Options) (*Collector, error) {
	if opt.Dir == "" {
		return nil, errors.New("collect: no output directory")
	}
	if len(opt.Members) == 0 {
		return nil, errors.New("collect: the run's nodes are not known (give the scenario)")
	}
	if opt.HelloTimeout <= 0 {
		opt.HelloTimeout = DefaultHelloTimeout
	}
	if opt.IdleTimeout <= 0 {
		opt.IdleTimeout = DefaultIdleTimeout
	}
	if opt.MaxLine <= 0 {
		opt.MaxLine = DefaultMaxLine
	}
	opt.MaxLine = max(opt.MaxLine, minMaxLine)
	if opt.MaxConns <= 0 {
		opt.MaxConns = DefaultMaxConns(len(opt.Members))
	}
	if opt.MaxConns <= len(opt.Members) {
		return nil, fmt.Errorf("collect: a cap of %d connections leaves no room for handshakes beside the %d nodes' streams (give more than %d)",
			opt.MaxConns, len(opt.Members), len(opt.Members))
	}
	if err := trace.CheckOutDir(opt.Dir); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	if err := safefs.MkdirAll(opt.Dir); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	c := &Collector{opt: opt, run: opt.Run, members: map[protocol.NodeID]bool{}, nodes: map[protocol.NodeID]*nodeState{},
		conns: map[net.Conn]*connState{}, pending: list.New()}
	for _, id := range opt.Members {
		c.members[id] = true
	}
	if err := c.settleRun(); err != nil {
		return nil, err
	}
	if c.run == "" && len(opt.Key) == 0 {
		return nil, errors.New("collect: without a key the collector must be told the run (--run, --run-file, or a directory holding its traces)")
	}
	return c, nil
}

// isLoopback says whether a is a loopback TCP address.
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// settleRun copies the run file and finds the run id when it is not given.
func (c *Collector) settleRun() error {
	if p := c.opt.RunFile; p != "" {
		h, err := trace.ReadHeader(p)
		if err != nil {
			return fmt.Errorf("collect: run file: %w", err)
		}
		if c.run != "" && h.Run != c.run {
			return fmt.Errorf("collect: run file %s is of run %q, not %q", p, h.Run, c.run)
		}
		c.run = h.Run
		dst := trace.RunFile(c.opt.Dir)
		if !sameFile(p, dst) {
			// A regular file only: a FIFO would block the collector.
			data, err := safefs.ReadInput(p, "run file", 1<<50)
			if err != nil {
				return fmt.Errorf("collect: %w", err)
			}
			f, err := trace.CreateFile(dst)
			if err == nil {
				_, err = f.Write(data)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				return fmt.Errorf("collect: %w", err)
			}
		}
	}
	if c.run != "" {
		return nil
	}
	if h, err := trace.ReadHeader(trace.RunFile(c.opt.Dir)); err == nil {
		c.run = h.Run
		return nil
	}
	names, _ := filepath.Glob(filepath.Join(c.opt.Dir, "node-*.jsonl"))
	for _, n := range names {
		if h, err := trace.ReadHeader(n); err == nil && h.Run != "" {
			c.run = h.Run
			return nil
		}
	}
	return nil
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// Addr is the address the Collector listens on.
func (c *Collector) Addr() net.Addr { return c.ln.Addr() }

// Run is the run id collected ("" until the first client names it).
func (c *Collector) Run() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.run
}

// Refused counts the clients refused so far.
func (c *Collector) Refused() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats.Refused
}

// Stats returns the collector's counters.
func (c *Collector) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Conns = len(c.conns)
	return s
}

// Serve accepts connections until Close; it returns nil after Close. A
// failing accept (no file descriptor left, say) is reported and retried.
func (c *Collector) Serve() error {
	backoff := time.Duration(0)
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			c.mu.Lock()
			closed := c.closed
			c.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return nil
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			c.noisef("accept: %v; retrying in %v", err, backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if len(c.opt.Key) == 0 && !isLoopback(conn.RemoteAddr()) {
			// Refused in the greeting, so that the node reports why.
			c.refuseGreeting(conn, conn.RemoteAddr().String(), "this collector has no key: it accepts loopback peers only (start trace collect with the run's --key-file, and the nodes with it)")
			conn.Close()
			continue
		}
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			conn.Close()
			return nil
		}
		c.stats.Accepted++
		var evicted net.Conn
		if len(c.conns) >= c.opt.MaxConns {
			// Streams are at most one per member, fewer than MaxConns:
			// there is a handshake to give way.
			old := c.pending.Remove(c.pending.Front()).(*connState)
			old.elem = nil
			delete(c.conns, old.conn)
			evicted = old.conn
			c.stats.Evicted++
		}
		cs := &connState{conn: conn}
		cs.elem = c.pending.PushBack(cs)
		c.conns[conn] = cs
		c.stats.PeakConns = max(c.stats.PeakConns, len(c.conns))
		c.wg.Add(1)
		c.mu.Unlock()
		if evicted != nil {
			evicted.Close()
			c.noisef("%s: closed in its handshake: %d connections held", evicted.RemoteAddr(), c.opt.MaxConns)
		}
		go func() {
			defer c.wg.Done()
			c.handle(cs)
			conn.Close()
			c.mu.Lock()
			if c.conns[conn] == cs {
				delete(c.conns, conn)
			}
			if cs.elem != nil {
				c.pending.Remove(cs.elem)
				cs.elem = nil
			}
			c.mu.Unlock()
		}()
	}
}

// Close stops listening, cuts every connection (clients resume later
// from what was written) and closes the files.
func (c *Collector) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	err := c.ln.Close()
	for conn := range c.conns {
		conn.Close()
	}
	c.mu.Unlock()
	c.wg.Wait()
	c.logMu.Lock()
	if c.logHeld > 0 && c.opt.Log != nil {
		fmt.Fprintf(c.opt.Log, "collect: (%d more lines not shown)\n", c.logHeld)
		c.logHeld = 0
	}
	c.logMu.Unlock()
	return err
}

func (c *Collector) logf(format string, args ...any) {
	if c.opt.Log == nil {
		return
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.opt.Log, "collect: "+format+"\n", args...)
}

// noisef logs a line about one connection, at most logBurst a second: a
// flood of connections must not flood the log. The lines held back are
// counted on the next one shown.
func (c *Collector) noisef(format string, args ...any) {
	if c.opt.Log == nil {
		return
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	now := time.Now()
	if now.Sub(c.logFrom) >= time.Second {
		if c.logHeld > 0 {
			fmt.Fprintf(c.opt.Log, "collect: (%d more lines not shown)\n", c.logHeld)
		}
		c.logFrom, c.logN, c.logHeld = now, 0, 0
	}
	if c.logN >= logBurst {
		c.logHeld++
		return
	}
	c.logN++
	fmt.Fprintf(c.opt.Log, "collect: "+format+"\n", args...)
}

// logBurst is how many connection lines noisef shows a second.
const logBurst = 10

// refuseGreeting refuses a client in place of the greeting, before any
// hello, and reports it.
func (c *Collector) refuseGreeting(conn net.Conn, who, why string) {
	c.mu.Lock()
	c.stats.Refused++
	c.mu.Unlock()
	c.noisef("%s: refused: %s", who, why)
	b, _ := json.Marshal(greeting{Proto: Proto, Error: why})
	conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	conn.Write(append(b, '\n'))
}

// refuse answers a client with an error and reports it.
func (c *Collector) refuse(conn net.Conn, who, why string, retry bool) {
	c.mu.Lock()
	c.stats.Refused++
	c.mu.Unlock()
	c.noisef("%s: refused: %s", who, why)
	writeReply(conn, reply{Error: why, Retry: retry})
}

func writeReply(conn net.Conn, r reply) error {
	b, _ := json.Marshal(r)
	conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	_, err := conn.Write(append(b, '\n'))
	return err
}

// maxHello bounds the hello line.
const maxHello = 4096

// handle serves one connection: the handshake, then the stream.
func (c *Collector) handle(cs *connState) {
	conn := cs.conn
	who := conn.RemoteAddr().String()
	conn.SetDeadline(time.Now().Add(c.opt.HelloTimeout))
	key := c.opt.Key
	g := greeting{Proto: Proto, Nonce: newNonce()}
	if len(key) > 0 {
		g.Auth = AuthHMAC
	}
	b, _ := json.Marshal(g)
	if _, err := conn.Write(append(b, '\n')); err != nil {
		c.noisef("%s: greeting: %v", who, err)
		return
	}
	br := bufio.NewReaderSize(conn, maxHello)
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		c.refuse(conn, who, fmt.Sprintf("a hello longer than %d bytes", maxHello), false)
		return
	}
	if err != nil {
		c.noisef("%s: no hello: %v", who, err)
		return
	}
	h, why := c.checkHello(line, g.Nonce)
	if h.Node != 0 {
		who = fmt.Sprintf("node %d (run %q, host %q, %s)", h.Node, h.Run, h.Host, who)
	}
	if why != "" {
		c.refuse(conn, who, why, false)
		return
	}
	id := protocol.NodeID(h.Node)
	c.mu.Lock()
	if c.conns[conn] != cs {
		c.mu.Unlock()
		return // given way at the connection cap
	}
	if c.run == "" {
		c.run = h.Run // only with a key: h is authenticated
		c.mu.Unlock()
		c.logf("collecting run %q (named by the first authenticated node)", h.Run)
		c.mu.Lock()
	}
	run := c.run
	if h.Run != run {
		c.mu.Unlock()
		c.refuse(conn, who, fmt.Sprintf("this collector collects run %q", run), false)
		return
	}
	ns := c.nodes[id]
	if ns == nil {
		ns = &nodeState{path: trace.NodeFile(c.opt.Dir, id)}
		c.nodes[id] = ns
	}
	if ns.cur != nil {
		holder := ns.cur.RemoteAddr().String()
		c.mu.Unlock()
		c.refuse(conn, who, fmt.Sprintf("node %d is already streaming from %s (try again later)", id, holder), true)
		return
	}
	ns.cur = conn
	c.pending.Remove(cs.elem)
	cs.elem = nil
	c.stats.Streams++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if ns.f != nil {
			ns.f.Close()
			ns.f = nil
			c.stats.Files--
		}
		ns.cur = nil
		c.mu.Unlock()
	}()
	if err := ns.open(run, id); err != nil {
		c.refuse(conn, who, err.Error(), false)
		return
	}
	if ns.f != nil {
		c.mu.Lock()
		c.stats.Files++
		c.mu.Unlock()
	}
	r := reply{Offset: ns.size}
	if len(key) > 0 {
		r.MAC = mac(key, "offset", run, h.Node, g.Nonce, h.Nonce, ns.size)
	}
	if err := writeReply(conn, r); err != nil {
		c.noisef("%s: %v", who, err)
		return
	}
	c.noisef("%s: connected; resuming at byte %d (the node has %d)", who, ns.size, h.Size)
	conn.SetDeadline(time.Time{})
	err = c.receive(conn, br, ns, run, id)
	final := reply{Offset: ns.size}
	var rule *ruleError
	switch {
	case errors.As(err, &rule):
		c.refuse(conn, who, fmt.Sprintf("%v at byte %d", err, ns.size), false)
		return
	case errors.Is(err, errIdle):
		final.Idle = true
		c.noisef("%s: closed at byte %d: %v", who, ns.size, err)
	case err != nil:
		c.noisef("%s: stream ended at byte %d: %v (the node resumes on reconnection)", who, ns.size, err)
		return
	}
	if len(key) > 0 {
		final.MAC = mac(key, "final", run, h.Node, g.Nonce, h.Nonce, ns.size)
	}
	if err := writeReply(conn, final); err != nil {
		c.noisef("%s: final reply: %v", who, err)
		return
	}
	if !final.Idle {
		c.noisef("%s: done at byte %d", who, ns.size)
	}
}

// checkHello decodes and checks a hello against the greeting's nonce: a
// reason to refuse it, or "".
func (c *Collector) checkHello(line []byte, serverNonce string) (hello, string) {
	var h hello
	if err := json.Unmarshal(line, &h); err != nil || h.Proto != Proto {
		return hello{}, fmt.Sprintf("not a %s hello", Proto)
	}
	if h.Node == 0 || h.Run == "" {
		return h, "the hello names no node or no run"
	}
	if key := c.opt.Key; len(key) > 0 {
		if h.MAC == "" {
			return h, "this collector needs the run's key: start the node with it (--key-file)"
		}
		if !validNonce(h.Nonce) || !macOK(h.MAC, mac(key, "hello", h.Run, h.Node, serverNonce, h.Nonce, 0)) {
			return h, "authentication failed: the node's key is not the collector's"
		}
	}
	if !c.members[protocol.NodeID(h.Node)] {
		return h, fmt.Sprintf("node %d is not in the run's scenario (%s)", h.Node, idList(c.opt.Members))
	}
	return h, ""
}

// idList shows a membership briefly: "nodes 1-20" or its first IDs.
func idList(ids []protocol.NodeID) string {
	s := slices.Sorted(slices.Values(ids))
	if int(s[len(s)-1]-s[0]) == len(s)-1 {
		return fmt.Sprintf("nodes %d-%d", s[0], s[len(s)-1])
	}
	if len(s) > 8 {
		return fmt.Sprintf("%d nodes: %v...", len(s), s[:8])
	}
	return fmt.Sprintf("nodes %v", s)
}

// errIdle ends a stream that brought no complete line for IdleTimeout.
var errIdle = errors.New("no complete line within the idle timeout")

// ruleError is a stream breaking a rule (a line too long, a header of
// another trace): the client is told and does not retry.
type ruleError struct{ msg string }

func (e *ruleError) Error() string { return e.msg }

// receive appends the complete lines read from r to the node's file until
// the client half-closes (nil) or the connection fails, idles
// (errIdle) or breaks a rule (*ruleError). Each byte is looked at once
// for newlines; a partial line is held up to MaxLine bytes.
func (c *Collector) receive(conn net.Conn, r io.Reader, ns *nodeState, run string, id protocol.NodeID) error {
	maxLine := c.opt.MaxLine
	buf := make([]byte, min(64<<10, maxLine))
	var pending []byte
	idle := c.opt.IdleTimeout
	conn.SetReadDeadline(time.Now().Add(idle))
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
				if len(pending) > 0 && len(pending)+bytes.IndexByte(chunk, '\n') > maxLine {
					return &ruleError{fmt.Sprintf("a line longer than %d bytes", maxLine)}
				}
				lines := chunk[:i+1]
				if len(pending) > 0 {
					pending = append(pending, lines...)
					lines = pending
				}
				if ns.size == 0 {
					if msg := checkHeader(lines, run, id); msg != "" {
						return &ruleError{msg}
					}
				}
				if ns.f == nil {
					if err := c.create(ns); err != nil {
						return err
					}
				}
				if _, werr := ns.f.Write(lines); werr != nil {
					return fmt.Errorf("writing %s: %w", ns.path, werr)
				}
				ns.size += int64(len(lines))
				pending = append(pending[:0], chunk[i+1:]...)
				conn.SetReadDeadline(time.Now().Add(idle))
			} else {
				if len(pending)+n > maxLine {
					return &ruleError{fmt.Sprintf("a line longer than %d bytes", maxLine)}
				}
				pending = append(pending, chunk...)
			}
		}
		if errors.Is(err, io.EOF) {
			if len(pending) > 0 {
				return fmt.Errorf("the stream ended inside a line (%d bytes discarded)", len(pending))
			}
			return nil
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return errIdle
		}
		if err != nil {
			return err
		}
	}
}

// checkHeader says what is wrong with the first line of a node's stream,
// or "": it must be the header of this run and node.
func checkHeader(lines []byte, run string, id protocol.NodeID) string {
	first, _, _ := bytes.Cut(lines, []byte{'\n'})
	var h trace.Event
	if err := json.Unmarshal(first, &h); err != nil || h.Ev != trace.EvHeader {
		return "the stream does not start with a trace header"
	}
	if h.Run != run || h.Node != id {
		return fmt.Sprintf("the stream's header is node %d of run %q, not node %d of run %q", h.Node, h.Run, id, run)
	}
	return ""
}

// create creates the node's file, once its stream has brought a valid
// header.
func (c *Collector) create(ns *nodeState) error {
	f, err := trace.OpenNoFollow(ns.path, os.O_RDWR|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("collector: %w", err)
	}
	c.mu.Lock()
	ns.f = f
	c.stats.Files++
	c.mu.Unlock()
	return nil
}

// open opens the node's file if it exists (else create makes it once the
// header has come). A last line without its newline, left by a collector
// killed mid-write, is cut off: the client sends it again. A file of
// another run or node is refused.
func (ns *nodeState) open(run string, id protocol.NodeID) error {
	ns.f, ns.size = nil, 0
	f, err := trace.OpenNoFollow(ns.path, os.O_RDWR)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("collector: %w", err)
	}
	size, err := completeLength(f)
	if err == nil && size > 0 {
		first, rerr := bufio.NewReader(io.NewSectionReader(f, 0, size)).ReadBytes('\n')
		if rerr != nil {
			err = rerr
		} else if msg := checkHeader(first, run, id); msg != "" {
			err = fmt.Errorf("%s holds another trace: %s", ns.path, msg)
		}
	}
	if err == nil {
		err = f.Truncate(size)
	}
	if err == nil {
		_, err = f.Seek(size, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("collector: %w", err)
	}
	ns.f, ns.size = f, size
	return nil
}

// completeLength is the length of f up to and including its last newline.
func completeLength(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	end := st.Size()
	buf := make([]byte, 64<<10)
	for end > 0 {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
