package collect

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"manetlab/protocol"
)

// StreamOptions configure a Streamer.
type StreamOptions struct {
	// Addr is the collector, host:port.
	Addr string
	// Path is the local trace file, written by the node; the Streamer
	// only reads it.
	Path string
	// Run and Node identify the trace in the hello.
	Run  string
	Node protocol.NodeID
	// Host names this machine (informative).
	Host string
	// Key, when not empty, is the run's HMAC key: the Streamer proves it
	// holds it and streams only to a collector that proves it too.
	Key []byte
	// Log receives a line when the stream is refused, lost or resumed;
	// nil discards.
	Log io.Writer
	// MinBackoff and MaxBackoff bound the wait between connection
	// attempts, doubled after each failure (defaults 100ms and 5s).
	MinBackoff, MaxBackoff time.Duration
	// Poll is how often the file is checked for new lines when Notify is
	// not called (default 200ms).
	Poll time.Duration
}

// Streamer sends a local trace file to a collector as it grows,
// reconnecting with backoff. Notify after each write makes it send at
// once; Finish sends the rest and waits for the collector to confirm.
type Streamer struct {
	opt    StreamOptions
	notify chan struct{}
	finish chan struct{}
	once   sync.Once
	done   chan struct{}

	mu       sync.Mutex
	deadline time.Time
	acked    int64 // the collector's last confirmed offset
	sent     int64 // bytes handed to the connection, from 0
	refused  string
	final    bool // the collector confirmed everything at Finish
	conns    int
}

// ErrRefused wraps the collector's refusal.
var ErrRefused = errors.New("refused by the collector")

// Stream starts streaming the file at opt.Path to opt.Addr in the
// background.
func Stream(opt StreamOptions) *Streamer {
	if opt.MinBackoff <= 0 {
		opt.MinBackoff = 100 * time.Millisecond
	}
	if opt.MaxBackoff < opt.MinBackoff {
		opt.MaxBackoff = max(5*time.Second, opt.MinBackoff)
	}
	if opt.Poll <= 0 {
		opt.Poll = 200 * time.Millisecond
	}
	s := &Streamer{opt: opt, notify: make(chan struct{}, 1), finish: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

// Notify says the file has grown. It never blocks.
func (s *Streamer) Notify() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Finish sends what the file holds now and waits until the collector has
// confirmed it, or until deadline. The local file is complete either
// way; the error says what the collector may be missing.
func (s *Streamer) Finish(deadline time.Time) error {
	s.once.Do(func() {
		s.mu.Lock()
		s.deadline = deadline
		s.mu.Unlock()
		close(s.finish)
	})
	timer := time.NewTimer(time.Until(deadline) + 100*time.Millisecond)
	defer timer.Stop()
	select {
	case <-s.done:
	case <-timer.C:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.refused != "":
		return fmt.Errorf("trace stream of node %d: %w: %s", s.opt.Node, ErrRefused, s.refused)
	case !s.final:
		return fmt.Errorf("trace stream of node %d to %s: the collector confirmed %d bytes; the rest is only in %s", s.opt.Node, s.opt.Addr, s.acked, s.opt.Path)
	}
	return nil
}

// Acked is the collector's last confirmed offset.
func (s *Streamer) Acked() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acked
}

// Connections counts the connections made so far.
func (s *Streamer) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

func (s *Streamer) logf(format string, args ...any) {
	if s.opt.Log != nil {
		fmt.Fprintf(s.opt.Log, "trace stream node %d: "+format+"\n", append([]any{s.opt.Node}, args...)...)
	}
}

func (s *Streamer) finishing() (bool, time.Time) {
	select {
	case <-s.finish:
		s.mu.Lock()
		defer s.mu.Unlock()
		return true, s.deadline
	default:
		return false, time.Time{}
	}
}

// run connects, streams, and reconnects after a failure.
func (s *Streamer) run() {
	defer close(s.done)
	backoff := s.opt.MinBackoff
	failing := false
	for {
		err := s.session(func() { backoff, failing = s.opt.MinBackoff, false })
		if err == nil {
			return
		}
		if errors.Is(err, ErrRefused) {
			s.logf("%v; not streaming (the local trace is complete)", err)
			return
		}
		if errors.Is(err, errIdle) {
			// The collector closed a quiet stream: reconnect once there
			// is more to send.
			backoff, failing = s.opt.MinBackoff, false
			s.waitForMore()
			continue
		}
		if !failing {
			s.logf("%v; retrying", err)
			failing = true
		}
		wait := time.NewTimer(backoff)
		finish := s.finish
		if fin, dl := s.finishing(); fin {
			if time.Until(dl) < backoff {
				wait.Stop()
				return
			}
			finish = nil // already finishing: wait the backoff out
		}
		select {
		case <-wait.C:
		case <-finish:
			wait.Stop()
			if fin, dl := s.finishing(); fin && !time.Now().Before(dl) {
				return
			}
		}
		backoff = min(2*backoff, s.opt.MaxBackoff)
	}
}

// waitForMore returns when the file has grown past what was sent, or
// when Finish is called.
func (s *Streamer) waitForMore() {
	tick := time.NewTicker(s.opt.Poll)
	defer tick.Stop()
	for {
		select {
		case <-s.notify:
			return
		case <-s.finish:
			return
		case <-tick.C:
			s.mu.Lock()
			sent := s.sent
			s.mu.Unlock()
			if st, err := os.Stat(s.opt.Path); err == nil && st.Size() > sent {
				return
			}
		}
	}
}

// session is one connection: hello, resume, stream. It returns nil when
// Finish's data was confirmed.
func (s *Streamer) session(connected func()) error {
	dialTimeout := 3 * time.Second
	if fin, dl := s.finishing(); fin {
		dialTimeout = min(dialTimeout, time.Until(dl))
		if dialTimeout <= 0 {
			return errors.New("deadline passed")
		}
	}
	conn, err := net.DialTimeout("tcp", s.opt.Addr, dialTimeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	s.mu.Lock()
	s.conns++
	s.mu.Unlock()
	size := int64(0)
	if st, err := os.Stat(s.opt.Path); err == nil {
		size = st.Size()
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReaderSize(conn, maxHello)
	rep, cn, err := s.handshake(conn, br, size)
	if err != nil {
		return err
	}
	conn.SetDeadline(time.Time{})
	f, err := os.Open(s.opt.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() < rep.Offset {
		s.mu.Lock()
		s.refused = fmt.Sprintf("the collector holds %d bytes, more than the local %d (another file?)", rep.Offset, st.Size())
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRefused, s.refused)
	}
	s.mu.Lock()
	s.acked, s.sent = rep.Offset, rep.Offset
	s.mu.Unlock()
	connected()

	// The collector sends nothing until the end; a read returning early
	// means the connection died.
	final := make(chan error, 1)
	go func() {
		r, err := readReply(br)
		if err == nil && r.Error != "" {
			err = errors.New(r.Error)
		}
		if err == nil && len(s.opt.Key) > 0 && !macOK(r.MAC, mac(s.opt.Key, "final", s.opt.Run, uint32(s.opt.Node), cn.server, cn.client, r.Offset)) {
			err = errors.New("the collector's final answer is not signed with the run's key")
		}
		if err == nil && r.Idle {
			err = errIdle
		}
		if err == nil {
			s.mu.Lock()
			s.acked = r.Offset
			s.mu.Unlock()
		}
		final <- err
	}()

	off := rep.Offset
	buf := make([]byte, 64<<10)
	tick := time.NewTicker(s.opt.Poll)
	defer tick.Stop()
	finishing := false
	for {
		n, err := f.ReadAt(buf, off)
		if n > 0 {
			conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, werr := conn.Write(buf[:n]); werr != nil {
				return werr
			}
			off += int64(n)
			s.mu.Lock()
			s.sent = off
			s.mu.Unlock()
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if finishing {
			// Everything the file held when Finish was called is sent.
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			_, dl := s.finishing()
			conn.SetReadDeadline(dl)
			if err := <-final; err != nil {
				if errors.Is(err, errIdle) {
					return fmt.Errorf("closed before the confirmation: %w", err)
				}
				return fmt.Errorf("no confirmation: %w", err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.acked != off {
				return fmt.Errorf("the collector confirmed %d of %d bytes", s.acked, off)
			}
			s.final = true
			return nil
		}
		select {
		case <-s.notify:
		case <-tick.C:
		case <-s.finish:
			finishing = true
		case err := <-final:
			if errors.Is(err, errIdle) {
				return errIdle
			}
			if err == nil {
				err = errors.New("the collector ended the stream")
			}
			return fmt.Errorf("connection lost at byte %d: %w", off, err)
		}
	}
}

// nonces are a handshake's two nonces.
type nonces struct{ server, client string }

// handshake reads the collector's greeting, answers with the hello
// (signed when the Streamer has a key) and reads the collector's answer:
// the offset to resume from, or a refusal (ErrRefused, or a temporary
// one to retry).
func (s *Streamer) handshake(conn net.Conn, br *bufio.Reader, size int64) (reply, nonces, error) {
	var (
		g  greeting
		cn nonces
	)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return reply{}, cn, fmt.Errorf("no greeting from the collector: %w", err)
	}
	err = json.Unmarshal(line, &g)
	switch {
	case err == nil && g.Error != "":
		// Refused before the hello (an older collector's refusal has no
		// proto, but the same error field).
		return reply{}, cn, s.refusedf("the collector at %s refused this node: %s", s.opt.Addr, g.Error)
	case err != nil || g.Proto != Proto:
		return reply{}, cn, s.refusedf("%s does not speak %s", s.opt.Addr, Proto)
	}
	key := s.opt.Key
	switch {
	case len(key) > 0 && g.Auth != AuthHMAC:
		return reply{}, cn, s.refusedf("the collector at %s has no key (start it with the run's --key-file)", s.opt.Addr)
	case len(key) == 0 && g.Auth != "":
		return reply{}, cn, s.refusedf("the collector at %s needs the run's key (start the node with --key-file)", s.opt.Addr)
	}
	h := hello{Proto: Proto, Run: s.opt.Run, Node: uint32(s.opt.Node), Host: s.opt.Host, Size: size}
	cn = nonces{server: g.Nonce, client: newNonce()}
	if len(key) > 0 {
		h.Nonce = cn.client
		h.MAC = mac(key, "hello", h.Run, h.Node, cn.server, cn.client, 0)
	}
	b, _ := json.Marshal(h)
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return reply{}, cn, err
	}
	rep, err := readReply(br)
	if err != nil {
		return reply{}, cn, fmt.Errorf("no answer from the collector: %w", err)
	}
	if rep.Error != "" {
		if rep.Retry {
			return reply{}, cn, fmt.Errorf("the collector says: %s", rep.Error)
		}
		return reply{}, cn, s.refusedf("%s", rep.Error)
	}
	if len(key) > 0 && !macOK(rep.MAC, mac(key, "offset", h.Run, h.Node, cn.server, cn.client, rep.Offset)) {
		return reply{}, cn, s.refusedf("the collector's answer is not signed with the run's key")
	}
	return rep, cn, nil
}

// refusedf records a refusal (the Streamer stops) and returns it.
func (s *Streamer) refusedf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.refused = msg
	s.mu.Unlock()
	return fmt.Errorf("%w: %s", ErrRefused, msg)
}

func readReply(br *bufio.Reader) (reply, error) {
	var r reply
	line, err := br.ReadSlice('\n')
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("bad answer: %w", err)
	}
	return r, nil
}
