package mutex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/explore"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// exploreRA is n nodes in range of each other, each asking for the
// section once at 1 s and holding it 100 ms, on the ideal medium, with
// messages flooded (no route discovery before the first message).
const exploreRA = `
name: explore-ra
seed: 1
duration: 30s
nodes: {count: %n, values: id, placement: grid}
radio: {propagation: unit-disk, range: 250, mac: ideal}
routing: {protocol: flood}
mobility: {model: static, area: [100, 100]}
protocol: {name: %s}
workload:
  rate: 0
  hold: 100ms
  commands:
    - {at: 1s, node: 1, command: request}
    - {at: 1s, node: 2, command: request}
`

func exploreScenario(t *testing.T, name string, n int) *scenario.Scenario {
	t.Helper()
	y := strings.NewReplacer("%s", name, "%n", fmt.Sprint(n)).Replace(exploreRA)
	for i := 3; i <= n; i++ {
		y += fmt.Sprintf("    - {at: 1s, node: %d, command: request}\n", i)
	}
	s, err := scenario.Parse([]byte(y), "explore-ra.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestExploreRAEarlyCaught: the explorer finds the broken Ricart-Agrawala
// (it replies while in the section) entering two nodes at once (two
// nodes requesting at 1 s: in the simulator's order both requests cross
// and nothing goes wrong; node 1's request must reach node 2 before node
// 2 asks, so that 2's request finds 1 in the section), minimises
// the schedule, and the schedule replayed to traces (what `manetlab sim
// --schedule` does) makes `trace check` (analysis.Check) report mutual
// exclusion invalid with a witness.
func TestExploreRAEarlyCaught(t *testing.T) {
	for _, strategy := range []string{explore.DFS, explore.BFS, explore.Random, explore.PCT} {
		t.Run(strategy, func(t *testing.T) {
			s := exploreScenario(t, raEarlyName, 2)
			res, err := explore.Run(s, explore.Options{Strategy: strategy, Depth: 40, Schedules: 500})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Violation
			if v == nil {
				t.Fatalf("no violation found: %+v", res)
			}
			if v.Property != analysis.PropMutex || !strings.Contains(v.Witness, "enters the critical section while node") {
				t.Fatalf("violation %q: %s", v.Property, v.Witness)
			}
			if n := len(v.Schedule.Choices); n == 0 || n > v.Found {
				t.Fatalf("minimised to %d choices from %d", n, v.Found)
			}
			// The schedule, as a file would hold it, replays to traces on
			// which the checker finds the violation.
			dir := t.TempDir()
			file := filepath.Join(dir, "schedule.json")
			if err := os.WriteFile(file, v.Schedule.JSON(), 0o644); err != nil {
				t.Fatal(err)
			}
			sched, err := sim.ReadSchedule(file)
			if err != nil {
				t.Fatal(err)
			}
			dir = filepath.Join(dir, "run")
			if _, err := sim.RunSchedule(s, sim.Options{Out: dir}, sched); err != nil {
				t.Fatal(err)
			}
			rep, err := analysis.Check(dir, analysis.CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range rep.Properties {
				if p.Name == analysis.PropMutex {
					found = p.Verdict == analysis.Invalid && len(p.Witnesses) > 0
				}
			}
			if !found {
				t.Fatalf("trace check on the replay does not find the violation: %+v", rep.Properties)
			}
			// Stepping the schedule to its Steps (where the studio opens)
			// stands just after the violating step: two nodes in the
			// section.
			inside := map[protocol.NodeID]bool{}
			c, err := sim.Replay(s, sim.Options{Discard: true}, sched, sched.Steps, func(e *trace.Event) {
				switch e.Ev {
				case string(protocol.NoteCSEnter):
					inside[e.Node] = true
				case string(protocol.NoteCSExit):
					delete(inside, e.Node)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			if c.Steps() != v.Step || len(inside) != 2 {
				t.Fatalf("at step %d of %d: %d nodes in the section", c.Steps(), v.Step, len(inside))
			}
			t.Logf("%s: %d states, %d schedules; %s: %s; %d choices (found %d), step %d",
				strategy, res.States, res.Schedules, v.Property, v.Witness, len(v.Schedule.Choices), v.Found, v.Step)
		})
	}
}

// TestExploreRAClears: the correct Ricart-Agrawala, every order of the
// two requests' messages: no violation, exhaustive, every schedule's
// requests granted at quiescence.
func TestExploreRAClears(t *testing.T) {
	res, err := explore.Run(exploreScenario(t, RicartAgrawala, 2), explore.Options{Strategy: explore.DFS, Depth: 60})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation != nil || !res.Exhaustive || res.Quiescent == 0 {
		t.Fatalf("%+v %+v", res, res.Violation)
	}
}
