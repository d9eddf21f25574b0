package workload

import (
	"math"
	"math/rand/v2"
	"time"

	"manetlab/protocol"
)

// Timer names the generator sets through the node's Env. They are
// reserved: the wrapper consumes Timeouts with these names and never
// passes them to the protocol.
const (
	TimerRequest = "workload/request"
	TimerRelease = "workload/release"
)

// streamWorkload separates the generator's random stream from every
// other stream derived from the seed.
const streamWorkload = 0x776f726b6c6f6164 // "workload"

// Generator is one node's request generator for one life of the node: a
// crashed node loses it, a recovered one gets a fresh one. It requests the
// section (a Poisson process of the configured rate from Start to Stop, or
// at once and again right after each exit when saturating) and releases it
// Hold after each entry, whoever asked for it. It learns of entries and
// exits from the cs-enter and cs-exit notes the protocol writes through
// the Env it returns, and acts only through timers, so the protocol never
// sees a command from inside its own Step.
//
// Its randomness is its own, seeded from the scenario's seed, the node's
// ID and the time the generator begins (the later of the Start event and
// cfg.Start): a seed reproduces the run, the protocol's Env.Rand draws are
// unchanged by adding a generator, and a recovered node draws afresh.
type Generator struct {
	cfg  Config
	id   protocol.NodeID
	seed uint64
	env  protocol.Env
	proc protocol.Process
	rng  *rand.Rand

	// next is the instant of the pending Poisson request; keeping it
	// absolute makes the schedule independent of when timers fire.
	next     time.Duration
	request  protocol.TimerID // pending request timer, 0 for none
	release  protocol.TimerID // pending release timer, 0 for none
	started  bool
	requests int // requests issued
	releases int // releases issued

	// Issued, when set, is called with every command the generator gives
	// the protocol, just before the protocol's Step: the drivers trace it
	// as they trace explicit commands.
	Issued func(protocol.Command)
}

// New builds node id's generator from cfg (the caller checks
// cfg.Generates(id)); seed is the scenario's.
func New(cfg Config, id protocol.NodeID, seed uint64) *Generator {
	cfg.Defaults()
	return &Generator{cfg: cfg, id: id, seed: seed}
}

// Env returns the Env to build the protocol with: env itself, except that
// the generator sees the notes that pass through it. The generator sets
// its timers on env.
func (g *Generator) Env(env protocol.Env) protocol.Env {
	g.env = env
	return &observer{Env: env, g: g}
}

// Wrap returns the Process the driver steps: p, with the generator's
// timers taken out of its events.
func (g *Generator) Wrap(p protocol.Process) protocol.Process {
	g.proc = p
	return &wrapped{g: g}
}

// Requests and Releases count the commands the generator has issued.
func (g *Generator) Requests() int { return g.requests }
func (g *Generator) Releases() int { return g.releases }

type observer struct {
	protocol.Env
	g *Generator
}

func (o *observer) Note(n protocol.Note) {
	o.Env.Note(n)
	o.g.note(n)
}

type wrapped struct{ g *Generator }

func (w *wrapped) Step(ev protocol.Event) {
	g := w.g
	switch e := ev.(type) {
	case protocol.Start:
		g.begin()
		g.proc.Step(ev)
		g.first()
		return
	case protocol.Timeout:
		switch e.Name {
		case TimerRequest:
			if e.ID == g.request {
				g.request = 0
				g.fireRequest()
			}
			return
		case TimerRelease:
			if e.ID == g.release {
				g.release = 0
				g.issue(protocol.Release)
			}
			return
		}
	}
	g.proc.Step(ev)
}

// begin seeds the generator's stream at the Start event.
func (g *Generator) begin() {
	at := max(g.env.Now(), g.cfg.Start.D())
	// Multiplying by an odd constant is a bijection, so distinct (node,
	// instant) pairs of one seed never share a stream.
	g.rng = rand.New(rand.NewPCG(g.seed^streamWorkload^uint64(g.id)*0x9e3779b97f4a7c15, uint64(at)))
	g.started = true
}

// first schedules the first request.
func (g *Generator) first() {
	from := max(g.env.Now(), g.cfg.Start.D())
	if g.cfg.Rate == nil {
		return
	}
	if g.saturate() {
		g.requestAt(from)
		return
	}
	g.next = from
	g.scheduleNext()
}

// scheduleNext draws the gap to the next Poisson request after g.next.
func (g *Generator) scheduleNext() {
	rate := g.cfg.Rate.PerSecond
	if !(rate > 0) || math.IsInf(rate, 0) {
		return
	}
	gap := g.rng.ExpFloat64() / rate * float64(time.Second)
	if gap >= float64(math.MaxInt64/2) || g.next > math.MaxInt64/2 {
		return // beyond any run
	}
	g.next += time.Duration(gap)
	g.requestAt(g.next)
}

// requestAt sets the request timer for instant at, unless that is after
// Stop.
func (g *Generator) requestAt(at time.Duration) {
	if g.cfg.Stop != 0 && at > g.cfg.Stop.D() {
		return
	}
	if g.request != 0 {
		g.env.CancelTimer(g.request)
	}
	g.request = g.env.SetTimer(at-g.env.Now(), TimerRequest, 0)
}

func (g *Generator) fireRequest() {
	g.issue(protocol.Request)
	if !g.saturate() {
		g.scheduleNext()
	}
}

func (g *Generator) issue(name protocol.CommandName) {
	cmd := protocol.Command{Name: name}
	if name == protocol.Request {
		g.requests++
	} else {
		g.releases++
	}
	if g.Issued != nil {
		g.Issued(cmd)
	}
	g.proc.Step(cmd)
}

// note follows the node in and out of the section.
func (g *Generator) note(n protocol.Note) {
	if !g.started {
		return // a note from the protocol's construction
	}
	switch n.Kind {
	case protocol.NoteCSEnter:
		if g.release != 0 {
			g.env.CancelTimer(g.release)
		}
		g.release = g.env.SetTimer(g.holdTime(), TimerRelease, 0)
	case protocol.NoteCSExit:
		if g.release != 0 {
			g.env.CancelTimer(g.release)
			g.release = 0
		}
		if g.saturate() && g.request == 0 {
			g.requestAt(g.env.Now())
		}
	}
}

func (g *Generator) saturate() bool { return g.cfg.Rate != nil && g.cfg.Rate.Saturate }

func (g *Generator) holdTime() time.Duration {
	h := g.cfg.Hold.D()
	if g.cfg.HoldDist == HoldExponential {
		return time.Duration(g.rng.ExpFloat64() * float64(h))
	}
	return h
}
