package node

import (
	"fmt"
	"net/netip"
	"time"

	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/trace"
)

// virtualNet stands in for a Host's sockets and clock: an in-memory
// medium in virtual time. What a hosted node transmits reaches the Host
// again one radio delay later (on the DCF medium, netstack.SignalDelay
// later, as it starts at the simulator's receivers), as a datagram on
// the schedule, and goes through the whole receive pipeline (decoding,
// the run and sender checks, the radio model at each hosted receiver,
// the network stack). The parity tests run a Host hosting every node of
// a scenario over it, side by side with the simulator, and compare their
// traces.
type virtualNet struct {
	h     *Host
	now   time.Duration
	delay time.Duration
}

// startVirtual builds a Host over a virtualNet, opens its traces and
// boots its nodes at virtual time 0. Run it with runVirtual.
func startVirtual(opt Options) (*Host, error) {
	h, err := newHost(opt)
	if err != nil {
		return nil, err
	}
	h.virt = &virtualNet{h: h, delay: h.s.Radio.Delay.D()}
	if h.air != nil {
		// On the DCF medium a frame starts at its receivers the signal
		// delay after its sender put it on the air, as in the simulator;
		// it arrives then, its stamp exact.
		h.virt.delay = netstack.SignalDelay
	}
	if err := h.openTraces(); err != nil {
		h.closeAll()
		return nil, err
	}
	if err := h.bootAll(); err != nil {
		h.closeAll()
		return nil, err
	}
	return h, nil
}

// transmit puts a copy of datagram b on the schedule, one delay ahead.
func (v *virtualNet) transmit(b []byte) {
	v.h.sched.push(task{at: v.now + v.delay, kind: taskArrive, data: append([]byte(nil), b...)})
}

// arrive receives a datagram as a reader and the loop do.
func (v *virtualNet) arrive(h *Host, d []byte) {
	h.cnt.received.Add(1)
	var rf rxFrame
	if h.decode(d, &rf.f, netip.Addr{}) {
		h.receive(&rf)
	}
}

// at schedules fn at virtual time t.
func (v *virtualNet) at(t time.Duration, fn func()) {
	v.h.sched.push(task{at: t, kind: taskFunc, fn: fn})
}

// runVirtual runs the schedule to the scenario's end, then ends the
// traces as finish does.
func (h *Host) runVirtual() (*Result, error) {
	v := h.virt
	for h.sched.len() > 0 && h.sched.peek() <= h.end {
		t := h.sched.pop()
		v.now = t.at
		h.dispatch(t)
	}
	v.now = h.end
	h.stopped = true
	st := h.cnt.snapshot()
	h.res = Result{Stats: st}
	for _, n := range h.nodes {
		if n.alive {
			h.emitLocal(n, &trace.Event{Ev: trace.EvEnd})
		}
		if err := n.out.Close(); err != nil {
			h.fail(fmt.Errorf("node %d: %w", n.id, err))
		}
	}
	return &h.res, h.err
}

// crashNode stops hosted node n as a kill of its process would: its
// protocol, stack and pending tasks are gone; its trace stays open.
func (h *Host) crashNode(n *hosted) {
	if !n.alive {
		return
	}
	n.alive = false
	n.stack.Stop()
	protocol.Close(n.proc)
	n.proc = nil
	h.emitLocal(n, &trace.Event{Ev: trace.EvCrash})
}

// recoverNode restarts a crashed hosted node in its next incarnation, as
// a restarted process does.
func (h *Host) recoverNode(n *hosted) error {
	if n.alive {
		return nil
	}
	n.inc++
	n.recovered = true
	return h.boot(n)
}
