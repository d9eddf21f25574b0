package ext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// caller is the program behind a process: child in a run, a fake in tests.
type caller interface {
	call(line []byte) ([]byte, error)
	close()
}

// proc is one node's adapter: a deterministic state machine that turns
// every event into one line for the program and its reply into actions
// on Env. It starts the program at Start (New only checks parameters),
// so a recovered node, a fresh proc, runs a fresh program.
type proc struct {
	cfg    protocol.Config
	set    *settings
	ch     *reliable.Channel[Msg]
	prog   caller
	start  func() (caller, error)
	timers map[string]protocol.TimerID // the program's pending timers by name
	line   int                         // lines sent to the program
	noted  []byte                      // the state last noted for the safety predicate
	done   bool                        // closed
}

// New builds one node's adapter (protocol.Spec.New of ext/stdio).
func New(cfg protocol.Config) (protocol.Process, error) {
	s, err := parse(cfg.Params, cfg.Members, cfg.Seed)
	if err != nil {
		return nil, err
	}
	if cfg.Env == nil {
		return nil, fmt.Errorf("%s: node %d: no Env", Name, cfg.ID)
	}
	s.rel.RouteDelay = cfg.RouteDelay
	p := &proc{cfg: cfg, set: s, timers: map[string]protocol.TimerID{}}
	p.ch = reliable.New[Msg](cfg.Env, cfg.ID, s.rel)
	p.start = func() (caller, error) {
		c := take(s.cmd, s.timeout, s.reuse)
		if c == nil {
			var err error
			if c, err = startChild(s.cmd, s.timeout); err != nil {
				return nil, err
			}
		}
		if s.reuse {
			return reusable{c}, nil
		}
		return c, nil
	}
	if w := reliable.HopWarning(Name, s.rel, cfg.HopDelay); w != nil {
		return p, w
	}
	return p, nil
}

// Step implements protocol.Process.
func (p *proc) Step(ev protocol.Event) {
	if p.done {
		return
	}
	if _, ok := ev.(protocol.Start); ok {
		p.boot()
		return
	}
	if p.prog == nil {
		return
	}
	if out, ok := p.ch.Step(ev); ok {
		for _, f := range out.Unreachable {
			e := event{Event: "unreachable", Node: f.Peer}
			for _, m := range f.Unacked {
				e.Unacked = append(e.Unacked, message{Kind: m.K, Body: m.Body})
			}
			p.exchange(e)
		}
		for _, d := range out.Delivered {
			p.receive(d.From, 0, d.Msg, true)
		}
		return
	}
	switch e := ev.(type) {
	case protocol.Receive:
		if m, ok := e.Msg.(Msg); ok {
			p.receive(e.From, e.Hops, m, false)
		}
	case protocol.Timeout:
		if id, ok := p.timers[e.Name]; ok && id == e.ID {
			delete(p.timers, e.Name)
			p.exchange(event{Event: "timer", Name: e.Name})
		}
	case protocol.NeighborUp:
		up := true
		p.exchange(event{Event: "neighbor", Node: e.ID, Up: &up})
	case protocol.NeighborDown:
		up := false
		p.exchange(event{Event: "neighbor", Node: e.ID, Up: &up})
	case protocol.Command:
		v := e.Value
		p.exchange(event{Event: "command", Name: string(e.Name), Value: &v})
	}
}

// boot starts the program and sends it init.
func (p *proc) boot() {
	if p.prog != nil {
		return
	}
	prog, err := p.start()
	if err != nil {
		p.fail(err)
	}
	p.prog = prog
	p.ch.Start()
	v, seed := p.cfg.Value, p.cfg.Seed
	e := event{Event: "init", ID: p.cfg.ID, Value: &v, Members: p.cfg.Members, Seed: &seed, Params: []byte("{}")}
	if p.set.args != nil {
		e.Params = mustJSON(p.set.args)
	}
	if r := p.set.ring; r != nil {
		e.Ring = &ringInfo{Order: r.Order(), Next: r.Successor(p.cfg.ID), Prev: r.Predecessor(p.cfg.ID)}
	}
	p.exchange(e)
}

// receive hands a message to the program, unless its body is not JSON or
// its kind not a kind (a forged or damaged frame: logged and dropped).
func (p *proc) receive(from protocol.NodeID, hops int, m Msg, rel bool) {
	if why := validKind(m.K); why != "" || len(m.Body) > 0 && !json.Valid(m.Body) {
		p.cfg.Env.Logf("%s: node %d: dropped a message from %d that no program sent (%q, %d bytes of body)", Name, p.cfg.ID, from, m.K, len(m.Body))
		return
	}
	if rel {
		hops = 0
	}
	p.exchange(event{Event: "recv", From: from, Hops: hops, Kind: m.K, Body: m.Body, Reliable: rel})
}

// exchange sends e and carries out the reply's actions.
func (p *proc) exchange(e event) {
	line, acts := p.roundTrip(e)
	for i, a := range acts {
		if err := p.act(a); err != nil {
			p.fail(fmt.Errorf("reply to line %d (%s): action %d: %v: %s", line, e.Event, i+1, err, clip(mustJSON(a))))
		}
	}
	if p.set.safety != "" {
		p.noteState()
	}
}

// noteState notes the program's described state when it changed, for
// the safety predicate (protocol.NoteState).
func (p *proc) noteState() {
	_, state := p.described()
	if len(state) == 0 || state[0] != '{' {
		p.fail(fmt.Errorf("line %d (describe): the state must be a JSON object for the safety predicate, got %s", p.line, clip(state)))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, state); err == nil {
		state = b.Bytes()
	}
	if !bytes.Equal(state, p.noted) {
		p.noted = state
		p.cfg.Env.Note(protocol.Note{Kind: protocol.NoteState, Text: string(state)})
	}
}

// roundTrip writes e as the next line and reads the reply's actions.
func (p *proc) roundTrip(e event) (int, []action) {
	e.Now = seconds(p.cfg.Env.Now())
	b, err := json.Marshal(e)
	if err != nil {
		p.fail(fmt.Errorf("encoding line %d (%s): %v", p.line+1, e.Event, err))
	}
	p.line++
	reply, err := p.prog.call(append(b, '\n'))
	if err != nil {
		p.fail(fmt.Errorf("line %d (%s): %w", p.line, e.Event, err))
	}
	acts, err := decodeReply(reply)
	if err != nil {
		p.fail(fmt.Errorf("reply to line %d (%s): %v: %q", p.line, e.Event, err, clip(reply)))
	}
	return p.line, acts
}

// fail stops the program and the run (protocol.Failure).
func (p *proc) fail(err error) {
	if r, ok := p.prog.(reusable); ok {
		p.prog = r.child // a failed program is never reused
	}
	p.Close()
	panic(&protocol.Failure{Node: p.cfg.ID, Err: fmt.Errorf("%s %q: %w", Name, p.set.cmd, err)})
}

// Close implements protocol.Closer: the program ends with its node.
func (p *proc) Close() error {
	if !p.done && p.prog != nil {
		p.prog.close()
	}
	p.done = true
	return nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Describe implements protocol.Describer: the program's describe text.
func (p *proc) Describe() string {
	text, _ := p.described()
	return text
}

// described asks the program for its describe action: a text for people
// and a state for the explorer and the safety predicate (the text when
// it gives none).
func (p *proc) described() (string, json.RawMessage) {
	if p.done || p.prog == nil {
		return "", nil
	}
	line, acts := p.roundTrip(event{Event: "describe"})
	if len(acts) != 1 || acts[0].Do != "describe" {
		p.fail(fmt.Errorf("reply to line %d (describe): want exactly one action {\"do\": \"describe\", ...}, got %s", line, clip(mustJSON(acts))))
	}
	a := acts[0]
	state := a.State
	if len(state) == 0 {
		state = mustJSON(a.Text)
	}
	return a.Text, state
}

// Fingerprint is the explorer's hash of this node's state
// (explore.Fingerprinter): the program's described state and its pending
// timers; the reliable channel's sequence numbers only count messages.
func (p *proc) Fingerprint() uint64 {
	h := fnv.New64a()
	_, state := p.described()
	h.Write(state)
	names := make([]string, 0, len(p.timers))
	for n := range p.timers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		h.Write([]byte{0})
		h.Write([]byte(n))
	}
	return h.Sum64()
}

// after reads a timer's delay in seconds.
func after(a action) (time.Duration, error) {
	if a.After == nil || *a.After < 0 || *a.After > 1e6 {
		return 0, fmt.Errorf("set_timer needs \"after\": seconds from 0 to 1e6")
	}
	return time.Duration(*a.After * float64(time.Second)), nil
}
