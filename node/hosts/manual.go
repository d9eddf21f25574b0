package hosts

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"manetlab/node/launch"
	"manetlab/protocol"
	"manetlab/trace"
)

// Line prefixes of the faults by hand (run --hosts --live): home writes
// "crash N", "recover N", "cut N P" or "heal N P" (to the hosts of both
// nodes) to a host's launcher's standard input, which
// applies it (launch.Options.Manual) and answers "fault-done JSON"
// (FaultDone); the launcher reports every fault it applies, scheduled or
// by hand, as "fault JSON" (a trace.FaultRecord), as it applies it.
const (
	FaultPrefix     = "fault "
	FaultDonePrefix = "fault-done "
)

// FaultDone answers a fault by hand: Error is empty when it was applied.
type FaultDone struct {
	Node  uint32 `json:"node"`
	Error string `json:"error,omitempty"`
}

// manualTimeout bounds the wait for a launcher's answer (a recovery
// waits for the node's ready line).
const manualTimeout = 30 * time.Second

// routeManual hands each fault by hand to the launcher of the node's
// host, one at a time per host, until stop is closed.
func routeManual(ss []*session, in <-chan launch.ManualFault, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case m := <-in:
			if m.Hosts[0] != "" {
				go func() { m.Done <- cutHosts(ss, m) }()
				continue
			}
			i := slices.IndexFunc(ss, func(x *session) bool { return slices.Contains(x.ids, m.Node) })
			if i < 0 {
				m.Done <- fmt.Errorf("node %d runs on no host", m.Node)
				continue
			}
			j := i
			if m.Peer != 0 {
				// A cut is applied at both nodes: by each one's host.
				if j = slices.IndexFunc(ss, func(x *session) bool { return slices.Contains(x.ids, m.Peer) }); j < 0 {
					m.Done <- fmt.Errorf("node %d runs on no host", m.Peer)
					continue
				}
			}
			go func(x, y *session) {
				err := x.manual(m)
				if err == nil && y != x {
					err = y.manual(m)
				}
				m.Done <- err
			}(ss[i], ss[j])
		}
	}
}

// cutHosts cuts apart (or heals) the two hosts m.Hosts names: every
// link between a node of one and a node of the other, each host's
// launcher applying the halves at its nodes.
func cutHosts(ss []*session, m launch.ManualFault) error {
	var two [2]*session
	for k, name := range m.Hosts {
		i := slices.IndexFunc(ss, func(x *session) bool { return x.c.host.Target == name })
		if i < 0 {
			return fmt.Errorf("no host %q in the run", name)
		}
		two[k] = ss[i]
	}
	if two[0] == two[1] {
		return fmt.Errorf("host %s cannot be cut from itself", m.Hosts[0])
	}
	m.Sides = [2][]protocol.NodeID{two[0].ids, two[1].ids}
	for _, x := range two {
		if err := x.manual(m); err != nil {
			return err
		}
	}
	return nil
}

// manual sends one fault by hand to x's launcher and waits for its answer.
func (x *session) manual(m launch.ManualFault) error {
	x.manualMu.Lock()
	defer x.manualMu.Unlock()
	// An answer left by an earlier request that timed out goes.
	select {
	case <-x.answers:
	default:
	}
	line := fmt.Sprintf("%s %d", map[bool]string{false: "crash", true: "recover"}[m.Recover], m.Node)
	if m.Peer != 0 {
		line = fmt.Sprintf("%s %d %d", map[bool]string{false: "cut", true: "heal"}[m.Recover], m.Node, m.Peer)
	}
	if len(m.Sides[0]) > 0 {
		line = fmt.Sprintf("%s-sides %s %s", map[bool]string{false: "cut", true: "heal"}[m.Recover], launch.FormatIDs(m.Sides[0]), launch.FormatIDs(m.Sides[1]))
	}
	if err := x.send(line); err != nil {
		return fmt.Errorf("host %s: %w", x.c.host.Target, err)
	}
	select {
	case d := <-x.answers:
		if d.Error != "" {
			return fmt.Errorf("host %s: %s", x.c.host.Target, d.Error)
		}
		return nil
	case <-x.done:
		return fmt.Errorf("host %s: its launcher ended", x.c.host.Target)
	case <-time.After(manualTimeout):
		return fmt.Errorf("host %s did not answer within %s", x.c.host.Target, manualTimeout)
	}
}

// launcherLine takes a line of a launcher's standard output about
// faults; false for any other.
func (x *session) launcherLine(line string, applied func(trace.FaultRecord)) bool {
	switch {
	case strings.HasPrefix(line, FaultDonePrefix):
		var d FaultDone
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, FaultDonePrefix)), &d); err != nil {
			d.Error = "unreadable answer: " + err.Error()
		}
		select {
		case x.answers <- d:
		default:
		}
		return true
	case strings.HasPrefix(line, FaultPrefix):
		var r trace.FaultRecord
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, FaultPrefix)), &r); err == nil && r.Check() == nil && slices.Contains(x.ids, r.Node) && applied != nil {
			applied(r)
		}
		return true
	}
	return false
}
