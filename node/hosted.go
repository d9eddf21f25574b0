package node

import (
	"fmt"
	"math/rand/v2"

	"manetlab/netstack"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/workload"
)

// hosted is the loop's state for one hosted node.
type hosted struct {
	id    protocol.NodeID
	idx   int // member index: the mobility model's node number
	value float64
	inc   uint32 // incarnation: 1 + the starts already in its trace
	alive bool
	// recovered: the trace file existed for this run, so this process
	// is a restart and appends.
	recovered bool

	proc     protocol.Process
	env      *env
	rng      *rand.Rand // the protocol's
	radioRng *rand.Rand // reception decisions at this node
	clock    *wire.Clock
	out      eventWriter
	traceErr error      // the first failed write: nothing more is written
	store    *fileStore // stable storage, loaded when the process starts
	// storeLost says why the store started empty although a file was
	// there (corrupt, unreadable); the trace notes it at the start.
	storeLost error

	stack  netstack.Stack          // its network layer
	link   hostLink                // the stack's driver
	timers map[uint64]pendingTimer // pending protocol timers

	leader protocol.NodeID
	// cut holds the member indices whose frames this node's radio drops
	// (a cut by hand, OpCut); it outlives a crash of the node.
	cut map[int]bool
}

type pendingTimer struct {
	name string
	arg  int64
}

func (h *Host) bootAll() error {
	for _, n := range h.nodes {
		if err := h.boot(n); err != nil {
			return err
		}
	}
	return nil
}

// boot starts a hosted node's process.
func (h *Host) boot(n *hosted) error {
	n.timers = map[uint64]pendingTimer{}
	n.clock = wire.NewClock(wallNS)
	n.clock.SetMaxOffset(h.maxOffset())
	seed := h.s.Seed
	n.rng = netstack.Source(seed, netstack.ProtocolStream, n.id, n.inc)
	n.radioRng = netstack.Source(seed, netstack.RadioStream, n.id, n.inc)
	n.link = hostLink{h: h, n: n}
	// A restarted node's sequence numbers must not fall inside what its
	// neighbours' duplicate windows remember of its earlier life.
	n.stack.Init(h.net, int32(n.idx), &n.link, netstack.Source(seed, netstack.StackStream, n.id, n.inc), uint64(n.inc-1)<<32)
	n.env = &env{h: h, n: n}
	// A node of the workload's generator gets a fresh one each start: a
	// restarted process has lost what the old one planned.
	var penv protocol.Env = n.env
	var gen *workload.Generator
	if h.s.Workload.Generates(n.id) {
		gen = workload.New(h.s.Workload, n.id, h.s.Seed)
		gen.Issued = func(c protocol.Command) { h.traceCommand(n, string(c.Name), 0) }
		penv = gen.Env(n.env)
	}
	proc, err := h.spec.New(protocol.Config{ID: n.id, Value: n.value, Members: h.ids, Params: h.s.Protocol.Params, Seed: h.s.Seed,
		HopDelay: h.net.HopDelay(h.s.Radio.Delay.D()), RouteDelay: h.net.RouteDelay(), Env: penv, Store: n.store})
	if _, ok := protocol.Warned(err); !ok {
		return fmt.Errorf("%s: node %d: %w", h.s.Path, n.id, err)
	}
	if gen != nil {
		proc = gen.Wrap(proc)
	}
	n.proc, n.alive = proc, true
	if n.recovered {
		h.emitLocal(n, &trace.Event{Ev: trace.EvRecover})
	}
	h.emitLocal(n, &trace.Event{Ev: trace.EvStart})
	if n.storeLost != nil {
		h.emitLocal(n, &trace.Event{Ev: string(protocol.NoteInfo), Text: "store: " + n.storeLost.Error()})
		n.storeLost = nil
	}
	now := h.now()
	n.stack.Start()
	for i, c := range h.s.Workload.Commands {
		if c.Node == n.id && c.At.D() >= now {
			h.sched.push(task{at: c.At.D(), kind: taskCommand, n: n, inc: n.inc, ref: i})
		}
	}
	n.proc.Step(protocol.Start{})
	return nil
}

// dispatch runs a scheduled task.
func (h *Host) dispatch(t task) {
	switch t.kind {
	case taskArrive:
		h.virt.arrive(h, t.data)
		return
	case taskFunc:
		t.fn()
		return
	case taskAirEnd:
		h.airEnd(t.air)
		return
	}
	n := t.n
	if !n.alive || t.inc != n.inc {
		return
	}
	switch t.kind {
	case taskTimer:
		pt, ok := n.timers[t.id]
		if !ok {
			return // cancelled
		}
		delete(n.timers, t.id)
		n.proc.Step(protocol.Timeout{ID: protocol.TimerID(t.id), Name: pt.name, Arg: pt.arg})
	case taskNet:
		n.stack.Timer(t.net)
	case taskCommand:
		c := h.s.Workload.Commands[t.ref]
		cmd := protocol.Command{Name: protocol.CommandName(c.Command), Value: c.Value}
		if cmd.Name == protocol.SetValue {
			n.value = c.Value
		}
		h.traceCommand(n, c.Command, c.Value)
		n.proc.Step(cmd)
	}
}

// traceCommand records a command given to n, explicit or generated.
func (h *Host) traceCommand(n *hosted, name string, v float64) {
	h.emitLocal(n, &trace.Event{Ev: trace.EvCommand, Text: name, Value: &v})
}
