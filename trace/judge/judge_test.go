package judge

import (
	"strings"
	"testing"

	"manetlab/protocol"
)

func intp(v int) *int { return &v }

// TestCounts: a count over a bound whose conditions the run meets is
// invalid, naming the bound, the count and the elections; within it
// valid; a run that does not meet them is unknown, naming only the causes
// the trace shows; a bound with no conditions is not judged.
func TestCounts(t *testing.T) {
	b := protocol.Bound{Name: "HS", Exact: intp(182), ExactIf: protocol.Clean, Worst: intp(640), WorstIf: protocol.Faultless}
	c := Counts("the run's 1 election (epoch 1)", 202, b, Facts{})
	if c == nil || c.Verdict != Invalid || !strings.Contains(c.Reason, "202 algorithm messages in the run's 1 election (epoch 1), over the exact count 182 (HS)") {
		t.Errorf("202 of exact 182, clean run: %+v", c)
	}
	c = Counts("x", 182, b, Facts{})
	if c.Verdict != Valid || !strings.Contains(c.Reason, "within the exact count 182 and the worst case 640") {
		t.Errorf("182 of exact 182: %+v", c)
	}
	// Nodes that move: the exact count is not judged, the worst case is.
	f := Facts{Moving: "mobility waypoint"}
	c = Counts("x", 202, b, f)
	if c.Verdict != Valid || !strings.Contains(c.Reason, "within the worst case 640; the exact count 182 not judged: the run had nodes move (mobility waypoint)") {
		t.Errorf("202 with movement: %+v", c)
	}
	c = Counts("x", 700, b, f)
	if c.Verdict != Invalid || !strings.Contains(c.Reason, "over the worst case 640") {
		t.Errorf("700 over the worst 640 with movement: %+v", c)
	}
	// A crash: neither is judged.
	c = Counts("x", 700, b, Facts{Fault: "node 7 crashed at 10.000s"})
	if c.Verdict != Unknown || !strings.Contains(c.Reason, "the worst case 640 not judged: the run had a fault: node 7 crashed at 10.000s") {
		t.Errorf("700 with a crash: %+v", c)
	}
	// Loss, not faults: the worst case is not judged either; the reason
	// names the loss, and no crash, late initiator or movement.
	c = Counts("x", 700, b, Facts{Lost: "node 3's probe to 4 dropped at 1.000s (x:1)"})
	if c.Verdict != Unknown || !strings.Contains(c.Reason, "loss: node 3's probe") || strings.Contains(c.Reason, "fault") ||
		strings.Contains(c.Reason, "initiators") || strings.Contains(c.Reason, "move") {
		t.Errorf("700 with loss: %+v", c)
	}
	// Real processes: the exact count needs initiators starting together.
	c = Counts("x", 190, b, Facts{Real: true})
	if c.Verdict != Valid || !strings.Contains(c.Reason, "real processes") {
		t.Errorf("190 in a real run: %+v", c)
	}
	if c := Counts("x", 1e6, protocol.Bound{Exact: intp(1), Worst: intp(2)}, Facts{}); c != nil {
		t.Errorf("a bound that guarantees nothing judged: %+v", c)
	}
}

// TestPerRequest: messages over most × requests are invalid, within
// valid; not judged with a fault, nor for an unbounded most.
func TestPerRequest(t *testing.T) {
	c := PerRequest(80, 11, 8, "0 or n", protocol.Faultless, Facts{})
	if c.Verdict != Valid || !strings.Contains(c.Reason, "within 0 or n = 8 per request (88 in all)") {
		t.Errorf("80 for 11 requests: %+v", c)
	}
	c = PerRequest(89, 11, 8, "0 or n", protocol.Faultless, Facts{})
	if c.Verdict != Invalid || !strings.Contains(c.Reason, "89 messages for 11 requests, over 0 or n = 8 per request (88 in all)") {
		t.Errorf("89 for 11 requests: %+v", c)
	}
	c = PerRequest(89, 11, 8, "0 or n", protocol.Faultless, Facts{Fault: "node 1 crashed at 1.000s"})
	if c.Verdict != Unknown {
		t.Errorf("89 with a crash: %+v", c)
	}
	inf := 1.0
	for range 2000 {
		inf *= 10
	}
	if c := PerRequest(89, 11, inf, "1 to ∞", protocol.Faultless, Facts{}); c != nil {
		t.Errorf("unbounded: %+v", c)
	}
}

// TestFinal: a quiescent simulated run with nothing moving, lost or
// crashed is final; each cause, and a missing record, says why not.
func TestFinal(t *testing.T) {
	q := &Quiet{At: 1.5}
	if why := Final(q, Facts{}, false); why != "" {
		t.Errorf("quiescent, clean: %q", why)
	}
	for _, c := range []struct {
		q        *Quiet
		f        Facts
		faultsOK bool
		extra    string
		want     string
	}{
		{nil, Facts{}, false, "", "did not end quiescent"},
		{nil, Facts{Real: true}, false, "", "a real run"},
		{q, Facts{Moving: "mobility waypoint"}, false, "", "nodes move"},
		{q, Facts{Lost: "node 1's token to 2 dropped"}, false, "", "loss: node 1's token"},
		{q, Facts{Fault: "node 3 crashed at 2.000s"}, false, "", "a fault: node 3 crashed"},
		{q, Facts{}, false, "the live nodes are in 2 components at the end", "2 components"},
	} {
		if why := Final(c.q, c.f, c.faultsOK, c.extra); !strings.Contains(why, c.want) {
			t.Errorf("%+v: %q, want %q", c, why, c.want)
		}
	}
	if why := Final(q, Facts{Fault: "node 3 crashed at 2.000s"}, true); why != "" {
		t.Errorf("a crash the algorithm tolerates: %q", why)
	}
}

// TestExit: invalid over undecided over valid.
func TestExit(t *testing.T) {
	for _, c := range []struct {
		vs   []string
		want int
	}{
		{[]string{Valid, Valid}, ExitValid},
		{[]string{Valid, Unknown}, ExitUndecided},
		{[]string{Unsettled}, ExitUndecided},
		{[]string{Stalled, Valid}, ExitUndecided},
		{[]string{Unknown, Invalid, Valid}, ExitInvalid},
		{nil, ExitValid},
	} {
		if got := Exit(c.vs...); got != c.want {
			t.Errorf("Exit(%v) = %d, want %d", c.vs, got, c.want)
		}
	}
}
