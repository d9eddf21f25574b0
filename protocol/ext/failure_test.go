package ext_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/analysis"
)

// small is a 3-node scenario whose nodes run the Python program src
// (written to a file), with extra protocol parameters.
func small(t *testing.T, src, extra string) *scenario.Scenario {
	t.Helper()
	need(t, "python3")
	prog := filepath.Join(t.TempDir(), "prog.py")
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	y := `name: small
seed: 1
duration: 10s
nodes: {count: 3, values: id, placement: grid}
radio: {propagation: unit-disk, range: 250}
mobility: {model: static, area: [100, 100]}
protocol:
  name: ext/stdio
  params:
    cmd: [python3, ` + prog + `]
` + extra
	s, err := scenario.Parse([]byte(y), "small.yaml", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	return s
}

// loop is a program's main loop around handle(ev) -> actions.
const loop = `
import json, sys
for line in sys.stdin:
    print(json.dumps(handle(json.loads(line))), flush=True)
`

// TestProgramFailuresNameNodeAndLine: a program that crashes, writes a
// line that is not a list of actions, asks for a forbidden action or does
// not reply in time stops the run with an error naming the node, the line
// and what went wrong, never a hang.
func TestProgramFailuresNameNodeAndLine(t *testing.T) {
	cases := []struct {
		name, src, extra string
		want             []string
	}{
		{"crash", "import sys\nsys.stdin.readline()\nsys.exit(3)\n", "", []string{"node 1", "line 1 (init)", "exit status 3"}},
		{"bad line", "import sys\nsys.stdin.readline()\nprint('hello', flush=True)\nsys.stdin.readline()\n", "", []string{"node 1", "reply to line 1 (init)", "not a JSON list of actions", "hello"}},
		{"bad action", "def handle(ev):\n    return [dict(do='send', to=99, kind='x')] if ev['event'] == 'init' else []\n" + loop, "",
			[]string{"node 1", "reply to line 1 (init)", "action 1", "99 is not another member"}},
		{"reserved kind", "def handle(ev):\n    return [dict(do='broadcast', kind='transport-ack')] if ev['event'] == 'init' else []\n" + loop, "",
			[]string{"node 1", "action 1", "reserved for the transport"}},
		{"timeout", "import sys, time\nsys.stdin.readline()\nprint('[]', flush=True)\nsys.stdin.readline()\ntime.sleep(30)\n", "    timeout: 300ms\n", []string{"node 1", "line 2 (", "no reply in time (300ms)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := sim.Run(small(t, c.src, c.extra), sim.Options{Out: t.TempDir()})
			if err == nil {
				t.Fatal("the run succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if el := time.Since(start); el > 20*time.Second {
				t.Errorf("the run took %v to fail", el) // a hang would never end; this bounds a slow one
			}
		})
	}
}

// TestProgramPerIncarnation: a crashed node's program ends and its
// recovery starts a new one, which gets init again.
func TestProgramPerIncarnation(t *testing.T) {
	src := "import os\ndef handle(ev):\n    return [dict(do='note', note='info', text='init pid %d' % os.getpid())] if ev['event'] == 'init' else []\n" + loop
	s := small(t, src, "faults:\n  - {at: 2s, crash: [2]}\n  - {at: 4s, recover: [2]}\n")
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "node-2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.Index(l, "init pid "); i >= 0 {
			pids = append(pids, l[i:])
		}
	}
	if len(pids) != 2 || pids[0] == pids[1] {
		t.Fatalf("node 2's programs: %q, want two different ones (boot and recovery)", pids)
	}
	if _, err := analysis.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
}
