package node

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// TestFaultsByHandInAHost: two nodes in one process, in range. A cut of
// their link by hand (both halves) makes each lose the other as a
// neighbour, its radio dropping the other's frames; healed, they find
// each other again. Node 2 crashed and recovered by hand inside the
// process writes its crash, then its recovery and a new start. What
// cannot be done is refused saying why.
func TestFaultsByHandInAHost(t *testing.T) {
	y := "name: pair\nseed: 1\nduration: 30s\nnodes:\n  list:\n    - {id: 1, pos: [0, 0]}\n    - {id: 2, pos: [50, 0]}\n" +
		"radio:\n  range: 100\n  hello: {period: 1s, timeout: 3s}\nmobility:\n  model: static\n  area: [200, 200]\n"
	s, err := scenario.Parse([]byte(y), "pair.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h, err := startVirtual(Options{Scenario: s, IDs: s.MemberIDs(), Out: dir, Run: "hand", Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	do := func(op string, a, b protocol.NodeID) ControlDone {
		done := make(chan ControlDone, 1)
		h.control(Control{Op: op, Node: a, Peer: b, Done: done})
		return <-done
	}
	refusals := map[string]string{}
	at := func(sec float64, fn func()) { h.virt.at(time.Duration(sec*float64(time.Second)), fn) }
	at(5, func() {
		for _, c := range [][2]protocol.NodeID{{1, 2}, {2, 1}} {
			if d := do(OpCut, c[0], c[1]); d.Err != nil || d.T != 5*time.Second {
				t.Errorf("cut %v: %+v", c, d)
			}
		}
		refusals["cut again"] = errString(do(OpCut, 1, 2).Err)
		refusals["cut itself"] = errString(do(OpCut, 1, 1).Err)
		refusals["not hosted"] = errString(do(OpCrash, 7, 0).Err)
		refusals["recover up"] = errString(do(OpRecover, 2, 0).Err)
	})
	at(15, func() {
		do(OpHeal, 1, 2)
		do(OpHeal, 2, 1)
		refusals["heal again"] = errString(do(OpHeal, 2, 1).Err)
	})
	at(22, func() {
		if d := do(OpCrash, 2, 0); d.Err != nil {
			t.Error(d.Err)
		}
		refusals["crash down"] = errString(do(OpCrash, 2, 0).Err)
	})
	at(24, func() {
		if d := do(OpRecover, 2, 0); d.Err != nil {
			t.Error(d.Err)
		}
	})
	res, err := h.runVirtual()
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"cut again": "no longer hears 2 already", "cut itself": "no link between 1 and 1",
		"not hosted": "node 7 is not hosted", "recover up": "node 2 is up", "heal again": "node 2 hears 1 already", "crash down": "node 2 is down already"} {
		if !strings.Contains(refusals[k], want) {
			t.Errorf("%s: %q, want %q", k, refusals[k], want)
		}
	}
	if res.Stats.Rejected["cut"] == 0 {
		t.Errorf("no frame dropped for the cut: %v", res.Stats.Rejected)
	}
	var got []string
	_, err = trace.ScanEvents(trace.NodeFile(dir, 1), func(ev string) bool { return ev == trace.EvNbrUp || ev == trace.EvNbrDown },
		func(e *trace.Event, _ int) error {
			got = append(got, e.Ev+"@"+time.Duration(e.T).Truncate(time.Second).String())
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	// Found at once; lost within the timeout after the cut at 5 s;
	// found within a hello period after the heal at 15 s (node 2's
	// crash at 22 s is shorter than the timeout).
	want := "nbr-up@0s nbr-down@8s nbr-up@15s"
	if strings.Join(got, " ") != want {
		t.Errorf("node 1 saw node 2 %q, want %q", strings.Join(got, " "), want)
	}
	var life []string
	trace.ScanEvents(trace.NodeFile(dir, 2), func(ev string) bool {
		return ev == trace.EvCrash || ev == trace.EvRecover || ev == trace.EvStart
	}, func(e *trace.Event, _ int) error { life = append(life, e.Ev); return nil })
	if strings.Join(life, " ") != "start crash recover start" {
		t.Errorf("node 2's trace: %v", life)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
