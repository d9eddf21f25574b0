package analysis

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// lineScenario is a static scenario of n nodes 100 m apart on a line,
// range 150 m (one component), values equal to IDs, so node n is best.
func lineScenario(t *testing.T, n int, duration time.Duration) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "name: t\nseed: 1\nduration: %v\nnodes:\n  values: id\n  list:\n", duration)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "    - {id: %d, pos: [%d, 0]}\n", i, 100*(i-1))
	}
	b.WriteString("radio:\n  range: 150\nmobility:\n  model: static\n  area: [100000, 1000]\n")
	sc, err := scenario.Parse([]byte(b.String()), "test.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	y, err := sc.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return string(y)
}

// synthRun writes a sim-style run: run file with the scenario, crash and
// recover events and end; one file per node.
func synthRun(t *testing.T, dir, scen string, end time.Duration, runEvs []trace.Event, nodes map[protocol.NodeID][]trace.Event) {
	t.Helper()
	runEvs = append(runEvs, trace.Event{T: int64(end), Ev: trace.EvEnd})
	writeTrace(t, trace.RunFile(dir), "s1", 0, scen, runEvs...)
	for id, evs := range nodes {
		// Every node file ends as the drivers end it (a trace without its
		// end is judged only up to its last line: truth.go's cut).
		evs = append(evs, trace.Event{T: int64(end), Ev: trace.EvEnd})
		for i := range evs {
			evs[i].Node = id
		}
		writeTrace(t, trace.NodeFile(dir, id), "s1", id, "", evs...)
	}
}

func sec(s float64) int64 { return int64(s * 1e9) }
