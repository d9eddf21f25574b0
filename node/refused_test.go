package node

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"manetlab/node/wire"
	"manetlab/protocol"
)

// TestRefusedFrom: frames of this run that fail the HMAC check count for
// the member they claim for the ground truth (Stats.RefusedFrom,
// "refused-from-ID=N" in the stats line), but by reason only by the
// address they came from (Stats.RefusedBy, "refused-no-hmac-at-ADDR=N"):
// they prove no sender, and the analysis names an address, not the
// member they claim; a member's signed frame of another run (another
// --start) counts by reason and address only ("run"); those that do not
// decode as a frame, or that the radio model's reasons drop, do not.
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
	at7, at3, forger := netip.MustParseAddr("10.0.0.7"), netip.MustParseAddr("10.0.0.3"), netip.MustParseAddr("10.0.0.66")
	for _, d := range []struct {
		b   []byte
		src netip.Addr
	}{
		{frame(7, h.runID, []byte("another key")), at7}, // hmac: at 7's address
		{frame(7, h.runID, nil), at7},                   // no-hmac: at 7's address
		{frame(9, h.runID, nil), forger},                // no-hmac: claims 9, from elsewhere
		{frame(9, h.runID+1, nil), forger},              // another run's
		{frame(4, h.runID, nil), forger},                // no member: its address counts it
		{frame(3, h.runID+1, key), at3},                 // run: 3, another --start
		{[]byte("garbage"), forger},
	} {
		if h.decode(d.b, &f, d.src) {
			t.Fatalf("%x accepted", d.b)
		}
	}
	if !h.decode(frame(3, h.runID, key), &f, at3) {
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
	// The HMAC failures prove no sender: counted by address alone; the
	// signed frame of another run by its sender and address.
	for _, want := range []string{" refused-hmac-at-10.0.0.7=1", " refused-no-hmac-at-10.0.0.7=1", " refused-no-hmac-at-10.0.0.66=2", " refused-run-from-3-at-10.0.0.3=1"} {
		if s := st.String(); !strings.Contains(s, want) {
			t.Errorf("stats line %q lacks %q", s, want)
		}
	}
	if s := st.String(); strings.Contains(s, "hmac-from-") {
		t.Errorf("stats line %q blames a node for frames that prove no sender", s)
	}
}
