package sim

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/workload"
)

func (w *world) run() (res *Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, w.failed(v)
		}
	}()
	start := time.Now()
	if err := w.begin(); err != nil {
		return nil, err
	}
	nextCheck := uint64(1 << 14)
	lastReport := start
	for w.q.len() > 0 {
		it := w.q.pop()
		if it.at > w.end {
			b := it
			w.beyond = &b // still to happen: quiet.go
			break
		}
		w.now = it.at
		w.res.Events++
		w.dispatch(it)
		if w.res.Events >= nextCheck {
			nextCheck += 1 << 14
			if w.out.failed.Load() {
				w.end = w.now // the traces cannot be written: stop here
				break
			}
			if w.opt.Progress != nil && time.Since(lastReport) >= 2*time.Second {
				lastReport = time.Now()
				w.progress(start)
			}
		}
	}
	if err := w.finish(start); err != nil {
		if w.out.failed.Load() {
			// Stopped cleanly: the result of the run as far as it went,
			// and the error; the traces on disk are what can be judged.
			w.res.Recording = nil
			return &w.res, &TraceError{At: w.now, End: w.s.Duration.D(), Err: err}
		}
		return nil, err
	}
	if w.opt.Progress != nil && w.res.Wall >= 2*time.Second {
		w.progress(start)
	}
	return &w.res, nil
}

// begin writes the headers and the first positions and queues the boots,
// the faults and the workload's commands: the run at t = 0, nothing
// dispatched yet.
func (w *world) begin() error {
	w.res = Result{Dir: w.opt.Out, RunID: w.opt.RunID, Messages: map[string]uint64{}, Warnings: w.warnings}
	if err := w.writeHeaders(); err != nil {
		return err
	}
	w.recordPositions(0)
	w.out.flushRun()
	protocol.Prepare(w.s.Protocol.Name, w.s.Protocol.Params, len(w.nodes))
	for i := range w.nodes {
		w.q.push(item{at: 0, kind: itemStart, node: int32(i)})
	}
	for i, f := range w.s.Faults {
		w.q.push(item{at: f.At.D(), kind: itemFault, ref: uint64(i)})
	}
	for i, c := range w.s.Workload.Commands {
		w.q.push(item{at: c.At.D(), kind: itemCommand, ref: uint64(i)})
	}
	return nil
}

// finish ends the run at its duration: the last positions, the end
// events, the traces closed; the wall time counts from start.
func (w *world) finish(start time.Time) error {
	w.now = w.end
	w.recordPositions(w.end)
	w.recordQuiet()
	w.closeProcs()
	w.out.run(&trace.Event{T: int64(w.end), Ev: trace.EvEnd})
	for _, n := range w.nodes {
		w.out.node(n.index, &trace.Event{T: int64(w.end), Node: n.id, Ev: trace.EvEnd})
	}
	err := w.out.close()
	w.res.Recording = w.out.rec
	w.res.Virtual = w.end
	w.res.Wall = time.Since(start)
	return err
}

// TraceError is Run's error when the traces could not be written (a full
// disk): the run stopped At, short of its End, and its Result describes
// it as far as it went; the traces on disk are cut where the writing
// failed, and the summary reads them (Recording is nil).
type TraceError struct {
	At, End time.Duration
	Err     error
}

func (e *TraceError) Error() string {
	return fmt.Sprintf("the simulation stopped at %v of %v: %v", e.At, e.End, e.Err)
}

func (e *TraceError) Unwrap() error { return e.Err }

func (w *world) progress(start time.Time) {
	el := time.Since(start)
	fmt.Fprintf(w.opt.Progress, "sim: %s/%s virtual (%.0f%%), %d events, %.0f events/s, %s wall\n",
		w.now.Round(time.Millisecond), w.end, 100*float64(w.now)/float64(w.end),
		w.res.Events, float64(w.res.Events)/el.Seconds(), el.Round(100*time.Millisecond))
}

func (w *world) dispatch(it item) {
	n := &w.all[it.node]
	if w.touches {
		w.touch(it, n)
	}
	switch it.kind {
	case itemStart:
		w.boot(n)
	case itemArrive:
		w.arrive(it)
	case itemAirStart:
		w.airStart(it)
	case itemAirEnd:
		w.airEnd(it)
	case itemHello, itemRetx, itemRelay, itemDiscovery, itemAccess, itemTxEnd, itemAckWait, itemAckSend:
		if n.alive && n.gen == it.gen {
			w.netTimer(n, it)
		}
	case itemTimer:
		if !n.alive || n.gen != it.gen {
			return
		}
		pt, ok := n.timer(it.ref)
		if !ok {
			return // cancelled
		}
		w.stepped = w.now
		n.proc.Step(protocol.Timeout{ID: protocol.TimerID(it.ref), Name: pt.name, Arg: pt.arg})
	case itemFault:
		w.fault(w.s.Faults[it.ref])
	case itemCommand:
		w.command(w.s.Workload.Commands[it.ref])
	}
}

// touch counts item it at the nodes whose state it may change: a
// unicast frame's transmitter and receiver, every node for a broadcast,
// a fault, a command or the DCF medium's events, else its node n.
func (w *world) touch(it item, n *node) {
	switch it.kind {
	case itemArrive:
		if it.f.To >= 0 {
			w.nodes[it.f.To].touch++
			w.nodes[it.f.From].touch++
			return
		}
		w.touchAll()
	case itemFault, itemCommand, itemAirStart, itemAirEnd:
		w.touchAll()
	default:
		n.touch++
	}
}

// touchAll counts a change at every node, when touches are counted.
func (w *world) touchAll() {
	if !w.touches {
		return
	}
	for _, n := range w.nodes {
		n.touch++
	}
}

// boot starts (or restarts) a node with a fresh process and the node's
// stable storage, which a crash does not clear. A node of the workload's
// generator gets a fresh generator around its process: what the old one
// had planned dies with the crash.
func (w *world) boot(n *node) {
	n.alive = true
	n.gen++
	n.inc++
	n.timers = n.timerBuf[:0]
	seed := w.s.Seed
	n.radioRng = n.rngs[0].Seed(seed, netstack.RadioStream, n.id, n.inc)
	n.link = link{w: w, n: n}
	// A restarted node's frame numbers must not fall inside what its
	// neighbours' duplicate windows remember of its earlier life.
	n.stack.Init(w.net, int32(n.index), &n.link, n.rngs[1].Seed(seed, netstack.StackStream, n.id, n.inc), uint64(n.inc-1)<<32)
	n.envBuf = env{w: w, n: n, rng: n.rngs[2].Seed(seed, netstack.ProtocolStream, n.id, n.inc)}
	n.env = &n.envBuf
	var penv protocol.Env = n.env
	var gen *workload.Generator
	if w.s.Workload.Generates(n.id) {
		gen = workload.New(w.s.Workload, n.id, w.s.Seed)
		gen.Issued = func(c protocol.Command) { w.traceCommand(n, string(c.Name), 0) }
		penv = gen.Env(n.env)
	}
	proc, err := w.spec.New(protocol.Config{ID: n.id, Value: n.value, Members: w.members, Params: w.s.Protocol.Params, Seed: w.s.Seed,
		HopDelay: w.net.HopDelay(w.s.Radio.Delay.D()), RouteDelay: w.net.RouteDelay(), Env: penv, Store: &n.store})
	if _, ok := protocol.Warned(err); !ok {
		panic(fmt.Sprintf("sim: protocol rejected parameters it accepted before: %v", err))
	}
	if gen != nil {
		proc = gen.Wrap(proc)
	}
	n.proc = proc
	w.out.node(n.index, &trace.Event{T: int64(w.now), Node: n.id, Ev: trace.EvStart})
	n.stack.Start()
	w.stepped = w.now
	n.proc.Step(protocol.Start{})
}

func (w *world) fault(f scenario.Fault) {
	for _, id := range f.Crash {
		n := w.nodes[w.byID[id]]
		if !n.alive {
			continue
		}
		n.alive = false
		n.gen++
		n.stack.Stop()
		protocol.Close(n.proc)
		n.proc, n.env, n.timers = nil, nil, nil
		w.out.node(n.index, &trace.Event{T: int64(w.now), Node: id, Ev: trace.EvCrash})
		w.out.run(&trace.Event{T: int64(w.now), Node: id, Ev: trace.EvCrash})
	}
	for _, id := range f.Recover {
		n := w.nodes[w.byID[id]]
		if n.alive {
			continue
		}
		w.out.node(n.index, &trace.Event{T: int64(w.now), Node: id, Ev: trace.EvRecover})
		w.out.run(&trace.Event{T: int64(w.now), Node: id, Ev: trace.EvRecover})
		w.boot(n)
	}
}

func (w *world) command(c scenario.Command) {
	n := w.nodes[w.byID[c.Node]]
	if !n.alive {
		return
	}
	cmd := protocol.Command{Name: protocol.CommandName(c.Command), Value: c.Value}
	if cmd.Name == protocol.SetValue {
		n.value = c.Value
	}
	w.traceCommand(n, c.Command, c.Value)
	w.stepped = w.now
	n.proc.Step(cmd)
}

// traceCommand records a command given to n, explicit or generated.
func (w *world) traceCommand(n *node, name string, v float64) {
	w.out.node(n.index, &trace.Event{T: int64(w.now), Node: n.id, Ev: trace.EvCommand, Text: name, Value: &v})
}

// recordPositions writes every node's position at t to the run file: the
// ground truth the analysis computes components from.
func (w *world) recordPositions(t time.Duration) {
	for _, n := range w.nodes {
		p := w.mob.Position(n.index, t)
		w.out.run(&trace.Event{T: int64(t), Node: n.id, Ev: trace.EvPosition, Pos: &[3]float64{p.X, p.Y, p.Z}})
	}
}

func (w *world) writeHeaders() error {
	var y []byte
	if !w.opt.Discard { // the run file's scenario: nobody reads it otherwise
		var err error
		if y, err = w.s.YAML(); err != nil {
			return err
		}
	}
	hdr := trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: w.opt.RunID, Driver: "sim",
		Protocol: w.s.Protocol.Name, Seed: w.s.Seed}
	runHdr := hdr
	runHdr.Scenario = string(y)
	w.out.run(&runHdr)
	// In ascending node order, the order of the combined layout's headers
	// (nodes.list may give the nodes in any order).
	byID := slices.Clone(w.nodes)
	slices.SortFunc(byID, func(a, b *node) int { return cmp.Compare(a.id, b.id) })
	for _, n := range byID {
		h := hdr
		h.Node = n.id
		w.out.node(n.index, &h)
	}
	return nil
}
