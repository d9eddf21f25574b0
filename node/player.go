package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"time"

	"manetlab/mobility"
	"manetlab/node/link"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/scenario"
)

// DefaultPeriod is how often the player multicasts every position.
const DefaultPeriod = 100 * time.Millisecond

// PlayOptions configure the mobility player.
type PlayOptions struct {
	Scenario *scenario.Scenario
	// Run names the run, as the nodes' Options.Run.
	Run string
	// Start is the run's start, Unix ns (zero: now); positions are the
	// model's at the time since Start, by a run clock dilated Dilation
	// times as the nodes' (Options.Dilation): rounds come every Period
	// of the model's time.
	Start    int64
	Dilation int
	// StartLater, when not nil, is where the start comes from once
	// known (Options.StartLater): Start is ignored, the socket opened and
	// the player waits; a channel closed first stops it.
	StartLater <-chan int64
	// Control is the group location frames go to (default DefaultControl).
	Control string
	Iface   string
	TTL     int
	// Key signs the frames when not empty.
	Key []byte
	// Period between two rounds of positions (default DefaultPeriod).
	Period time.Duration
	// Log receives send errors; nil discards them.
	Log io.Writer
}

// Player multicasts the positions of a scenario's mobility model as
// location frames, as EMANE's location events do, so that nodes on several
// machines agree on positions without synchronised clocks.
type Player struct {
	opt    PlayOptions
	conn   *link.Conn
	mob    mobility.Model
	ids    []protocol.NodeID // by mobility index
	runID  uint64
	clock  *wire.Clock
	run    runClock
	seq    uint64
	rounds atomic.Uint64
	done   chan struct{}
	err    error
}

// StartPlayer opens the control group and starts playing: one round of
// positions every period and one whenever some leg starts, until the
// scenario's duration has passed or ctx is cancelled.
func StartPlayer(ctx context.Context, opt PlayOptions) (*Player, error) {
	s := opt.Scenario
	if s == nil {
		return nil, errors.New("mobility play: no scenario")
	}
	if opt.Run == "" {
		return nil, errors.New("mobility play: no run name (--run)")
	}
	if opt.Control == "" {
		opt.Control = DefaultControl
	}
	if opt.Period <= 0 {
		opt.Period = DefaultPeriod
	}
	if err := checkDilation(opt.Dilation); err != nil {
		return nil, fmt.Errorf("mobility play: %w", err)
	}
	mob, err := s.MobilityModel()
	if err != nil {
		return nil, err
	}
	p := &Player{opt: opt, mob: mob, runID: wire.RunIDAt(opt.Run, opt.Start), clock: wire.NewClock(wallNS), done: make(chan struct{})}
	for _, m := range s.Members() {
		p.ids = append(p.ids, m.ID)
	}
	if p.conn, err = link.Open(link.Config{Group: opt.Control, Iface: opt.Iface, TTL: opt.TTL}); err != nil {
		return nil, fmt.Errorf("mobility play: %w", err)
	}
	p.run = newRunClock(wallNow(), opt.Start, opt.Dilation)
	if opt.StartLater != nil {
		go func() {
			select {
			case ns, ok := <-opt.StartLater:
				if ok {
					p.opt.Start, p.runID = ns, wire.RunIDAt(opt.Run, ns)
					p.run = newRunClock(wallNow(), ns, opt.Dilation)
					p.play(ctx)
					return
				}
			case <-ctx.Done():
			}
			p.conn.Close()
			close(p.done)
		}()
		return p, nil
	}
	go p.play(ctx)
	return p, nil
}

// Play runs a player until the scenario's duration has passed or ctx is
// cancelled.
func Play(ctx context.Context, opt PlayOptions) error {
	p, err := StartPlayer(ctx, opt)
	if err != nil {
		return err
	}
	return p.Wait()
}

// Wait blocks until the player stops.
func (p *Player) Wait() error {
	<-p.done
	return p.err
}

// Rounds is how many rounds of positions were sent.
func (p *Player) Rounds() uint64 { return p.rounds.Load() }

func (p *Player) now() time.Duration { return p.run.now() }

func (p *Player) play(ctx context.Context) {
	defer close(p.done)
	defer p.conn.Close()
	end := p.opt.Scenario.Duration.D()
	changes := p.mob.Changes()
	tm := time.NewTimer(0)
	defer tm.Stop()
	for {
		t := p.now()
		if t >= end {
			return
		}
		p.round(max(t, 0))
		// The next round: the next period boundary, or a leg's start if
		// that comes first, so that a turn is announced when it happens.
		next := (t/p.opt.Period + 1) * p.opt.Period
		if t < 0 {
			next = min(next, 0)
		}
		if i, _ := slices.BinarySearch(changes, t+1); i < len(changes) && changes[i] < next {
			next = changes[i]
		}
		tm.Reset(p.run.until(min(next, end)))
		select {
		case <-ctx.Done():
			return
		case <-tm.C:
		}
	}
}

// round sends every node's position at model time t.
func (p *Player) round(t time.Duration) {
	var buf []byte
	for i, id := range p.ids {
		pos := p.mob.Position(i, t)
		p.seq++
		f := wire.Frame{Type: wire.TypeLocation, Run: p.runID, Seq: p.seq, Clock: p.clock.Now(),
			Loc: wire.Location{Node: id, X: pos.X, Y: pos.Y, Z: pos.Z, Time: wallNS()}}
		var err error
		if buf, err = f.AppendTo(buf[:0], p.opt.Key); err != nil {
			p.logf("%v", err)
			continue
		}
		if err := p.conn.Send(buf); err != nil {
			p.logf("%v", err)
		}
	}
	p.rounds.Add(1)
}

func (p *Player) logf(format string, args ...any) {
	if p.opt.Log != nil {
		fmt.Fprintf(p.opt.Log, "mobility play: "+format+"\n", args...)
	}
}
