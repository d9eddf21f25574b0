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
