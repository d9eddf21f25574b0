package node

import (
	"strings"
	"testing"
)

// A protocol error caused by a --set override names the flag, as the
// simulator's does, not the scenario file.
func TestProtocolErrorsNameTheSetFlag(t *testing.T) {
	for _, c := range []struct{ set, want string }{
		{"protocol.params.perod=1s", "--set protocol.params.perod=1s: protocol.params.perod: unknown parameter"},
		{"protocol.name=nope/x", `--set protocol.name=nope/x: protocol.name: unknown protocol "nope/x"`},
	} {
		s := parse(t, "nodes: {count: 2}\nprotocol: {name: baseline/floodmax}\n", c.set)
		_, err := newHost(Options{Scenario: s, IDs: ids(1), Out: t.TempDir(), Run: "r"})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("--set %s: error %v, want it to start with %q", c.set, err, c.want)
		}
	}
}

// RTS/CTS is simulated only: a real node refuses radio.dcf.rts_threshold,
// naming the field.
func TestRTSThresholdRefused(t *testing.T) {
	s := parse(t, "nodes: {count: 2}\nradio: {mac: dcf, dcf: {rts_threshold: 1}}\nprotocol: {name: baseline/floodmax}\n")
	_, err := newHost(Options{Scenario: s, IDs: ids(1), Out: t.TempDir(), Run: "r"})
	if err == nil || !strings.Contains(err.Error(), "radio.dcf.rts_threshold: RTS/CTS is simulated only") {
		t.Errorf("error %v, want the rts_threshold refusal", err)
	}
}
