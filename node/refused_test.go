package node

import (
	"strings"
	"testing"
	"time"

	"manetlab/node/wire"
	"manetlab/protocol"
)

// TestRefusedFrom: frames of this run that fail the HMAC check count for
// the member they claim (Stats.RefusedFrom, "refused-from-ID=N" in the
// stats line), and by reason (Stats.RefusedBy, "refused-no-hmac-from-ID=N"),
// which is how the analysis names a host without the key; a member's
// signed frame of another run (another --start) counts by reason only
// ("run"); those from no member, that do not decode as a frame, or that
// the radio model's reasons drop, do not.
func TestRefusedFrom(t *testing.T) {
	key := []byte("the run's key")
	h := &Host{opt: Options{Key: key, Run: "r"}, runID: wire.RunIDAt("r", 1), index: map[protocol.NodeID]int{3: 0, 7: 1, 9: 2},
		log: newRateLog(nil, time.Second)}
	h.cnt = newCounters([]protocol.NodeID{3, 7, 9})
	frame := func(from protocol.NodeID, run uint64, k []byte) []byte {
		b, err := (&wire.Frame{Type: wire.TypeHello, Run: run, From: from, Seq: 1, Clock: wire.HLC{Wall: time.Now().UnixNano()}}).AppendTo(nil, k)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var f wire.Frame
	for _, d := range [][]byte{
		frame(7, h.runID, []byte("another key")), // hmac: 7
		frame(7, h.runID, nil),                   // no-hmac: 7
		frame(9, h.runID, nil),                   // no-hmac: 9
		frame(9, h.runID+1, nil),                 // another run's
		frame(4, h.runID, nil),                   // no member
		frame(3, h.runID+1, key),                 // run: 3, another --start
		[]byte("garbage"),
	} {
		if h.decode(d, &f) {
			t.Fatalf("%x accepted", d)
		}
	}
	if !h.decode(frame(3, h.runID, key), &f) {
		t.Fatal("a good frame refused")
	}
	h.reject("range", "")
	h.reject("duplicate", "")
	st := h.cnt.snapshot()
	if want := map[protocol.NodeID]uint64{7: 2, 9: 1}; len(st.RefusedFrom) != len(want) || st.RefusedFrom[7] != 2 || st.RefusedFrom[9] != 1 {
		t.Errorf("RefusedFrom = %v, want %v", st.RefusedFrom, want)
	}
	if s := st.String(); !strings.Contains(s, " refused-from-7=2 refused-from-9=1") || strings.Contains(s, "refused-from-3") {
		t.Errorf("stats line %q", s)
	}
	if s, want := st.String(), " refused-run-from-3=1 refused-hmac-from-7=1 refused-no-hmac-from-7=1 refused-no-hmac-from-9=1"; !strings.Contains(s, want) {
		t.Errorf("stats line %q lacks the counts by reason %q", s, want)
	}
}
