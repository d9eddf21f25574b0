package collect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// Options configure a Collector.
type Options struct {
	// Dir receives node-<id>.jsonl per node (and run.jsonl from RunFile).
	Dir string
	// Run is the run collected. Empty: RunFile's run, else that of the
	// traces already in Dir, else the first client's.
	Run string
	// RunFile, when set, is copied to Dir/run.jsonl (the launcher writes
	// the run file; nodes never send it).
	RunFile string
	// Log receives one line per connection, refusal and loss; nil
	// discards.
	Log io.Writer
	// HelloTimeout bounds the wait for a client's hello (default 10s).
	HelloTimeout time.Duration
}

// Collector receives node traces over TCP. Create it with Listen, run
// Serve, stop it with Close.
type Collector struct {
	opt Options
	ln  net.Listener

	logMu sync.Mutex

	mu      sync.Mutex
	run     string
	nodes   map[protocol.NodeID]*nodeState
	conns   map[net.Conn]struct{}
	closed  bool
	refused int
	wg      sync.WaitGroup
}

// nodeState is one node's collected file. mu is held by the connection
// streaming into it; cur is that connection, closed when another one for
// the same node arrives (the client reconnected before the old connection
// was seen to die).
type nodeState struct {
	mu   sync.Mutex
	path string
	f    *os.File
	size int64 // bytes of complete lines in the file
	cur  net.Conn
}

// Listen prepares Dir (copying RunFile, settling the run id) and listens
// on addr (host:port; port 0 picks one).
func Listen(addr string, opt Options) (*Collector, error) {
	if opt.Dir == "" {
		return nil, errors.New("collect: no output directory")
	}
	if opt.HelloTimeout <= 0 {
		opt.HelloTimeout = 10 * time.Second
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	c := &Collector{opt: opt, run: opt.Run, nodes: map[protocol.NodeID]*nodeState{}, conns: map[net.Conn]struct{}{}}
	if err := c.settleRun(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	c.ln = ln
	if c.run != "" {
		c.logf("collecting run %q into %s on %s", c.run, opt.Dir, ln.Addr())
	} else {
		c.logf("collecting into %s on %s; the first node names the run", opt.Dir, ln.Addr())
	}
	return c, nil
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
			data, err := os.ReadFile(p)
			if err != nil {
				return fmt.Errorf("collect: %w", err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
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

// Refused counts the clients refused so far (another run, bad hello).
func (c *Collector) Refused() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// Serve accepts connections until Close; it returns nil after Close.
func (c *Collector) Serve() error {
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			c.mu.Lock()
			closed := c.closed
			c.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return fmt.Errorf("collect: %w", err)
		}
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			conn.Close()
			return nil
		}
		c.conns[conn] = struct{}{}
		c.wg.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.wg.Done()
			c.handle(conn)
			conn.Close()
			c.mu.Lock()
			delete(c.conns, conn)
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
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ns := range c.nodes {
		if ns.f != nil {
			if cerr := ns.f.Close(); cerr != nil && err == nil {
				err = cerr
			}
			ns.f = nil
		}
	}
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

// refuse answers a client with an error and reports it.
func (c *Collector) refuse(conn net.Conn, who, why string) {
	c.mu.Lock()
	c.refused++
	c.mu.Unlock()
	c.logf("%s: refused: %s", who, why)
	writeReply(conn, reply{Error: why})
}

func writeReply(conn net.Conn, r reply) error {
	b, _ := json.Marshal(r)
	conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := conn.Write(append(b, '\n'))
	return err
}

// maxHello bounds the hello line.
const maxHello = 4096

// handle serves one connection.
func (c *Collector) handle(conn net.Conn) {
	who := conn.RemoteAddr().String()
	conn.SetReadDeadline(time.Now().Add(c.opt.HelloTimeout))
	br := bufio.NewReaderSize(conn, 64<<10)
	line, err := br.ReadSlice('\n')
	if err != nil {
		c.logf("%s: no hello: %v", who, err)
		return
	}
	var h hello
	if err := json.Unmarshal(line, &h); err != nil || h.Proto != Proto {
		c.refuse(conn, who, fmt.Sprintf("not a %s hello", Proto))
		return
	}
	id := protocol.NodeID(h.Node)
	who = fmt.Sprintf("node %d (run %q, host %q, %s)", id, h.Run, h.Host, who)
	if id == protocol.None || h.Run == "" {
		c.refuse(conn, who, "the hello names no node or no run")
		return
	}
	c.mu.Lock()
	if c.run == "" {
		c.run = h.Run
		c.mu.Unlock()
		c.logf("collecting run %q (named by the first node)", h.Run)
		c.mu.Lock()
	}
	run := c.run
	if h.Run != run {
		c.mu.Unlock()
		c.refuse(conn, who, fmt.Sprintf("this collector collects run %q", run))
		return
	}
	ns := c.nodes[id]
	if ns == nil {
		ns = &nodeState{path: trace.NodeFile(c.opt.Dir, id)}
		c.nodes[id] = ns
	}
	if old := ns.cur; old != nil {
		old.Close() // the client came back before its old connection died
	}
	ns.cur = conn
	c.mu.Unlock()

	ns.mu.Lock()
	defer ns.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if ns.cur == conn {
			ns.cur = nil
		}
		c.mu.Unlock()
	}()
	if ns.f == nil {
		if err := ns.open(run, id); err != nil {
			c.refuse(conn, who, err.Error())
			return
		}
	}
	if err := writeReply(conn, reply{Offset: ns.size}); err != nil {
		c.logf("%s: %v", who, err)
		return
	}
	c.logf("%s: connected; resuming at byte %d (the node has %d)", who, ns.size, h.Size)
	conn.SetReadDeadline(time.Time{})
	if err := c.receive(br, ns, run, id); err != nil {
		c.logf("%s: stream ended at byte %d: %v (the node resumes on reconnection)", who, ns.size, err)
		return
	}
	if err := writeReply(conn, reply{Offset: ns.size}); err != nil {
		c.logf("%s: final reply: %v", who, err)
		return
	}
	c.logf("%s: done at byte %d", who, ns.size)
}

// receive appends the complete lines read from r to the node's file until
// the client half-closes (nil) or the connection fails.
func (c *Collector) receive(r io.Reader, ns *nodeState, run string, id protocol.NodeID) error {
	buf := make([]byte, 64<<10)
	var pending []byte
	for {
		n, err := r.Read(buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			if i := bytes.LastIndexByte(pending, '\n'); i >= 0 {
				if ns.size == 0 {
					if msg := checkHeader(pending[:i+1], run, id); msg != "" {
						return errors.New(msg)
					}
				}
				if _, werr := ns.f.Write(pending[:i+1]); werr != nil {
					return fmt.Errorf("writing %s: %w", ns.path, werr)
				}
				ns.size += int64(i + 1)
				pending = append(pending[:0], pending[i+1:]...)
			}
			if len(pending) > trace.MaxLine {
				return fmt.Errorf("a line longer than %d bytes", trace.MaxLine)
			}
		}
		if errors.Is(err, io.EOF) {
			if len(pending) > 0 {
				return fmt.Errorf("the stream ended inside a line (%d bytes discarded)", len(pending))
			}
			return nil
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

// open opens (or creates) the node's file. A last line without its
// newline, left by a collector killed mid-write, is cut off: the client
// sends it again. A file of another run or node is refused.
func (ns *nodeState) open(run string, id protocol.NodeID) error {
	f, err := os.OpenFile(ns.path, os.O_RDWR|os.O_CREATE, 0o644)
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
