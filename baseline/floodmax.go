// Package baseline holds the comparison protocols that smarter elections
// are measured against.
//
// It is a protocol family: it imports only manetlab/protocol and the
// standard library.
package baseline

import (
	"time"

	"manetlab/protocol"
)

// Name is the registered name of the flooding baseline.
const Name = "baseline/floodmax"

func init() {
	protocol.Register(protocol.Spec{
		Name:     Name,
		Summary:  "every node floods the best (value, id) it knows; leases expire departed leaders",
		New:      NewFloodMax,
		Messages: []protocol.Message{Announce{}},
		Settle:   Settle,
	})
}

// Settle is how long a component needs after its last change: a departed
// leader is forgotten everywhere within one lease, and the best remaining
// node's next announcement, at most a period later, floods the component.
func Settle(params protocol.Params) time.Duration {
	r := params.Reader()
	period := r.Duration("period", 2*time.Second)
	lease := r.Duration("lease", 3*period)
	if period <= 0 || lease <= 0 { // New reports them; other keys are ignored
		period, lease = 2*time.Second, 6*time.Second
	}
	return lease + period
}

// Announce advertises a leader candidate. Only the candidate itself
// originates announcements (one per period, Seq rising); other nodes
// forward each (Inc, Seq) of their current best once. TTL is the lease the
// announcement still carries: a forwarded or re-advertised announcement
// never outlives the one it came from, so a departed leader is forgotten
// everywhere within one lease.
type Announce struct {
	Leader protocol.NodeID
	Value  float64
	Inc    uint64 // the leader's incarnation: its start time in ns
	Seq    uint64
	TTL    time.Duration
}

// Kind implements protocol.Message.
func (Announce) Kind() string { return "announce" }

// FloodMax is the baseline election: a node's leader is the best node it
// has heard of recently.
type FloodMax struct {
	env    protocol.Env
	id     protocol.NodeID
	value  float64
	period time.Duration
	lease  time.Duration

	inc, seq uint64 // own incarnation and announcement counter

	best    Announce      // current leader (== own announcement when leading)
	expires time.Duration // when best's lease runs out (unused while leading)
}

// NewFloodMax builds a FloodMax process. Parameters: period (how often a
// leader announces itself, default 2s) and lease (how long an announcement
// is believed, default 3 periods).
func NewFloodMax(cfg protocol.Config) (protocol.Process, error) {
	r := cfg.Params.Reader()
	f := &FloodMax{env: cfg.Env, id: cfg.ID, value: cfg.Value}
	f.period = r.Duration("period", 2*time.Second)
	f.lease = r.Duration("lease", 3*f.period)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

// Step implements protocol.Process.
func (f *FloodMax) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Start:
		f.inc = uint64(f.env.Now())
		f.becomeLeader()
		// Jitter the first tick so that nodes booted together do not
		// announce in lockstep.
		f.env.SetTimer(time.Duration(f.env.Rand().Int64N(int64(f.period)+1)), "tick", 0)
	case protocol.Timeout:
		f.tick()
		f.env.SetTimer(f.period, "tick", 0)
	case protocol.Receive:
		if a, ok := e.Msg.(Announce); ok {
			f.receive(a)
		}
	case protocol.NeighborUp:
		// A new neighbour may belong to another component: tell it our
		// leader now rather than at the next announcement.
		f.env.Broadcast(f.current())
	case protocol.Command:
		if e.Name == protocol.SetValue {
			f.value = e.Value
			if f.leading() {
				f.becomeLeader()
			}
		}
	}
}

func (f *FloodMax) leading() bool { return f.best.Leader == f.id }

// current is the announcement to re-advertise: our own, or our leader's
// with the lease that remains.
func (f *FloodMax) current() Announce {
	if f.leading() {
		return f.best
	}
	a := f.best
	a.TTL = f.expires - f.env.Now()
	return a
}

func (f *FloodMax) becomeLeader() {
	was := f.best.Leader
	f.seq++
	f.best = Announce{Leader: f.id, Value: f.value, Inc: f.inc, Seq: f.seq, TTL: f.lease}
	if was != f.id {
		f.env.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: f.id, Value: f.value})
	}
	f.env.Broadcast(f.best)
}

func (f *FloodMax) tick() {
	switch {
	case f.leading():
		f.seq++
		f.best.Seq, f.best.Value = f.seq, f.value
		f.env.Broadcast(f.best)
	case f.env.Now() >= f.expires:
		f.becomeLeader()
	}
}

func (f *FloodMax) receive(a Announce) {
	if a.Leader == f.id || a.TTL <= 0 {
		return
	}
	b := f.best
	newer := a.Leader == b.Leader && (a.Inc > b.Inc || a.Inc == b.Inc && a.Seq > b.Seq)
	if !newer && !protocol.Better(a.Leader, a.Value, b.Leader, b.Value) {
		return
	}
	f.best, f.expires = a, f.env.Now()+a.TTL
	if a.Leader != b.Leader {
		f.env.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: a.Leader, Value: a.Value})
	}
	f.env.Broadcast(a)
}
