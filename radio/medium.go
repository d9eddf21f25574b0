package radio

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"manetlab/internal/geo"
	"manetlab/internal/hugepage"
	"manetlab/mobility"
)

// Outcome is the fate of a frame at one node within MaxRange of the sender.
type Outcome uint8

// Outcomes; the zero value is no outcome, so a forgotten assignment shows.
const (
	Received   Outcome = iota + 1
	OutOfRange         // propagation (mean power or shadowing) failed
	Lost               // propagation succeeded, the loss model dropped it
	// The 802.11 DCF medium's (radio.mac dcf) verdicts:
	Collision  // other frames on the air spoiled it
	HalfDuplex // the receiver was transmitting
)

// String returns "received", "out-of-range" or "lost".
func (o Outcome) String() string {
	switch o {
	case Received:
		return "received"
	case OutOfRange:
		return "out-of-range"
	case Lost:
		return "lost"
	case Collision:
		return "collision"
	case HalfDuplex:
		return "half-duplex"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// DropReason is the trace's drop reason for o: "range", "loss", or "" for
// a received frame.
func (o Outcome) DropReason() string {
	switch o {
	case OutOfRange:
		return "range"
	case Lost:
		return "loss"
	case Collision:
		return "collision"
	case HalfDuplex:
		return "half-duplex"
	}
	return ""
}

// Reception is what happened to a frame at one node.
type Reception struct {
	Node    int     // receiver's node index
	Dist    float64 // metres from the sender at the frame's time
	Outcome Outcome
}

// epochFraction sets the rebuild window for moving nodes: a node moves at
// most this fraction of MaxRange during one window, so the query radius
// grows by only that much.
const epochFraction = 0.05

// rngStream is the PCG stream constant ("manetlab"): one seed gives one
// sequence, and the caller's seed alone chooses it.
const rngStream = 0x6d616e65746c6162

// Medium is the modelled radio of the simulator: positions from a mobility
// model, a propagation model, a loss model, one seeded random stream and a
// spatial index. It is not safe for concurrent use. Its results depend on
// the seed and on the sequence of Transmit calls.
type Medium struct {
	cfg    Config
	mob    mobility.Model
	prop   Propagation
	loss   Loss
	rng    *rand.Rand
	n      int
	maxR   float64
	speed  float64
	static bool

	// The transmit index is built from positions at the start of an
	// epoch of length window; static models build it once.
	window time.Duration
	epoch  int64
	built  bool
	pos    []geo.Vec // positions at the epoch start (static: always)
	radius float64   // query radius around the sender's position at t
	idx    grid

	// A static medium remembers, per sender, who is within MaxRange and
	// how far (Transmit's search before its draws), for up to nearBudget
	// receptions in all: a large static run transmits from every node
	// hundreds of times, and searching the index was most of Transmit.
	near     [][]Reception // by sender; nil: not remembered
	nearLeft int
	arena    []Reception

	// Scratch for Components, reused between calls.
	cpos   []geo.Vec
	cgrid  grid
	parent []int32
	size   []int32
}

// NewMedium builds the medium for cfg, which must have had Defaults
// applied; it is validated here. Nodes are mob's indices 0..Len()-1.
func NewMedium(cfg Config, mob mobility.Model, seed uint64) (*Medium, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("radio medium: %w", err)
	}
	if mob == nil {
		return nil, fmt.Errorf("radio medium: no mobility model")
	}
	prop, err := NewPropagation(cfg)
	if err != nil {
		return nil, fmt.Errorf("radio medium: %w", err)
	}
	loss, err := NewLoss(cfg)
	if err != nil {
		return nil, fmt.Errorf("radio medium: %w", err)
	}
	speed := mob.MaxSpeed()
	if !(speed >= 0) || math.IsInf(speed, 0) {
		return nil, fmt.Errorf("radio medium: mobility max speed %g is not a finite speed", speed)
	}
	m := &Medium{
		cfg: cfg, mob: mob, prop: prop, loss: loss,
		rng:    rand.New(rand.NewPCG(seed, rngStream)),
		n:      mob.Len(),
		maxR:   prop.MaxRange(),
		speed:  speed,
		static: speed == 0,
	}
	if cfg.MAC == MACDCF {
		m.maxR = max(m.maxR, cfg.Reach(prop))
	}
	m.pos = make([]geo.Vec, m.n)
	hugepage.Advise(m.pos)
	m.radius = m.maxR
	if !m.static {
		w := epochFraction * m.maxR / speed
		m.window = max(time.Duration(w*float64(time.Second)), time.Microsecond)
		m.radius = m.maxR + speed*m.window.Seconds()
	}
	// Guard the superset property against rounding at the boundary.
	m.radius = m.radius*(1+1e-9) + 1e-9
	return m, nil
}

// Delay is the one-hop latency of every frame.
func (m *Medium) Delay() time.Duration { return m.cfg.Delay.D() }

// Config returns the configuration the medium runs with.
func (m *Medium) Config() Config { return m.cfg }

// MaxRange is the farthest a frame reaches a receiver: Reach lists the
// nodes within it. It is the propagation model's MaxRange, or, on the DCF
// medium, the farther Config.Reach.
func (m *Medium) MaxRange() float64 { return m.maxR }

// Propagation returns the propagation model.
func (m *Medium) Propagation() Propagation { return m.prop }

// Len is the number of nodes.
func (m *Medium) Len() int { return m.n }

// sync makes the transmit index valid for time t.
func (m *Medium) sync(t time.Duration) {
	var e int64
	if !m.static {
		e = int64(t / m.window)
		if t < 0 && t%m.window != 0 {
			e-- // floor division, so the epoch start is never after t
		}
	}
	if m.built && e == m.epoch {
		return
	}
	at := time.Duration(e) * m.window
	for i := range m.pos {
		m.pos[i] = m.mob.Position(i, at)
	}
	m.idx.build(m.pos, nil, m.radius)
	m.epoch, m.built = e, true
}

// position is node i's position at t.
func (m *Medium) position(i int, t time.Duration) geo.Vec {
	if m.static {
		if !m.built {
			m.sync(0)
		}
		return m.pos[i]
	}
	return m.mob.Position(i, t)
}

// Transmit decides, for a frame sent by node from at time t, its fate at
// every other node within MaxRange of the sender, appending to out in
// ascending node index order and returning it. Nodes beyond MaxRange are
// not listed. Random draws happen in ascending node order so results are
// reproducible. t may be any time, though a non-decreasing t avoids
// rebuilding the index.
func (m *Medium) Transmit(from int, t time.Duration, out []Reception) []Reception {
	base := len(out)
	out = m.Reach(from, t, out)
	m.draw(from, out[base:])
	return out
}

// nearBudget bounds the receptions a static medium remembers: 48 MB, or
// nearPerNode receptions a node (24 bytes each) on a larger network, so
// that a million nodes with their usual eight neighbours are all
// remembered (past the budget, a sender's every frame searches the index).
var nearBudget, nearPerNode = 1 << 21, 12

// remember keeps recs, the receptions of a frame from sender before the
// draws, while the budget allows.
func (m *Medium) remember(from int, recs []Reception) {
	if m.near == nil {
		m.near = make([][]Reception, m.n)
		m.nearLeft = max(nearBudget, nearPerNode*m.n)
		hugepage.Advise(m.near)
	}
	if len(recs) > m.nearLeft {
		return
	}
	m.nearLeft -= len(recs)
	if m.arena == nil || len(recs) > cap(m.arena)-len(m.arena) {
		chunk := 4096
		if m.n >= 1<<16 {
			// A large network's receivers are read at random: in
			// chunks of huge pages, whose translations stay in the TLB.
			chunk = 1 << 18
		}
		m.arena = make([]Reception, 0, max(len(recs), chunk))
		hugepage.Advise(m.arena)
	}
	n := len(m.arena)
	m.arena = append(m.arena, recs...)
	m.near[from] = m.arena[n:len(m.arena):len(m.arena)] // not nil, even when empty
}

// draw decides the fate of a frame from sender at each of recs, in order.
func (m *Medium) draw(from int, recs []Reception) {
	for i := range recs {
		r := &recs[i]
		r.Outcome = Hear(m.prop, m.loss, from, r.Node, r.Dist, m.rng)
	}
}

// Linked reports deterministic connectivity between nodes a and b at t:
// the mean received power reaches the threshold (InRange), with no
// shadowing and no loss. A node is linked to itself.
func (m *Medium) Linked(a, b int, t time.Duration) bool {
	if a == b {
		return true
	}
	return m.prop.InRange(geo.Dist(m.position(a, t), m.position(b, t)))
}

// Reach appends to out every other node within MaxRange of node from at
// time t, with its distance, in ascending node index order, and returns
// it: the nodes whose radio a frame sent then reaches. Nothing is drawn;
// each receiver decides with Hear.
func (m *Medium) Reach(from int, t time.Duration, out []Reception) []Reception {
	m.sync(t)
	base := len(out)
	if m.static && m.near != nil && m.near[from] != nil {
		return append(out, m.near[from]...)
	}
	p := m.position(from, t)
	x0, x1, y0, y1, ok := m.idx.span(p, m.radius)
	if !ok {
		return out
	}
	for y := y0; y <= y1; y++ {
		for _, j := range m.idx.row(y, x0, x1) {
			k := int(j)
			if k == from {
				continue
			}
			q := m.pos[k]
			if !m.static {
				q = m.mob.Position(k, t)
			}
			if d := geo.Dist(p, q); d <= m.maxR {
				out = append(out, Reception{Node: k, Dist: d})
			}
		}
	}
	recs := out[base:]
	slices.SortFunc(recs, func(a, b Reception) int { return cmp.Compare(a.Node, b.Node) })
	if m.static {
		m.remember(from, recs)
	}
	return out
}

// Near is Reach for a caller that only reads the list: a static medium's
// remembered receivers are returned as they are, not copied (read only,
// valid until Moved); otherwise Reach appends them to (*buf)[:0], which
// is kept for the next call.
func (m *Medium) Near(from int, t time.Duration, buf *[]Reception) []Reception {
	if m.static && m.built && m.near != nil && m.near[from] != nil {
		return m.near[from]
	}
	*buf = m.Reach(from, t, (*buf)[:0])
	return *buf
}

// Moved forgets what the medium derived from positions (the transmit
// index, the receptions a static medium remembers): the mobility model
// changed under it (a node moved by hand, sim.Controller.Move). The next
// query rebuilds them from the model.
func (m *Medium) Moved() {
	m.built, m.near, m.nearLeft, m.arena = false, nil, 0, nil
}

// Dist is the distance between nodes a and b at time t.
func (m *Medium) Dist(a, b int, t time.Duration) float64 {
	return geo.Dist(m.position(a, t), m.position(b, t))
}

// Loss returns the loss model.
func (m *Medium) Loss() Loss { return m.loss }

// Hear decides the fate of a frame from node from at node to, d metres
// away: propagation first, then loss, drawing from rng (the receiver's
// own stream in both drivers, so that a receiver's decisions do not
// depend on what other nodes heard).
func Hear(prop Propagation, loss Loss, from, to int, d float64, rng *rand.Rand) Outcome {
	switch {
	case !prop.Receive(d, rng):
		return OutOfRange
	case loss.Lost(from, to, d, rng):
		return Lost
	}
	return Received
}
