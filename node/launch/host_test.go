package launch

import (
	"fmt"
	"strings"
	"testing"
)

// processes.json numbers hosts from 1, as the testbed numbers its network
// namespaces (mlh<PID>-1..K): the player runs on host 1.
func TestHostsNumberedFromOne(t *testing.T) {
	path := writeScenario(t, 4, "1s", "")
	res, err := launch(t, path, Options{Wrap: [][]string{{"env"}, {"env"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Procs {
		got = append(got, fmt.Sprintf("%s@%d", p.Name, p.Host))
	}
	if want := "node 1@1 node 2@1 node 3@2 node 4@2 player@1"; strings.Join(got, " ") != want {
		t.Errorf("hosts %q, want %q", strings.Join(got, " "), want)
	}
}
