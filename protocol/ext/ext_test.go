package ext_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "manetlab/mutex"
	_ "manetlab/protocol/ext"
	_ "manetlab/ring"
	"manetlab/scenario"
	"manetlab/sim/simtest"
	"manetlab/trace/report"
)

// root is the repository, for the configs and the examples.
var root = func() string { p, _ := filepath.Abs("../.."); return p }()

// need skips the test when the interpreter is not installed
// (scripts/deps.sh installs python3 and nodejs).
func need(t testing.TB, prog string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		t.Skipf("%s is not installed (scripts/deps.sh installs it): %v", prog, err)
	}
}

// example is the command line of a program of examples/anylang.
func example(interp, file string) string {
	return "[" + interp + ", " + filepath.Join(root, "examples", "anylang", file) + "]"
}

// config loads configs/NAME.yaml, with its protocol section replaced by
// protocol (YAML, indented two spaces) when it is not empty.
func config(t testing.TB, name, protocol string, sets ...string) *scenario.Scenario {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "configs", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	y := string(b)
	if protocol != "" {
		i := strings.Index(y, "\nprotocol:\n")
		j := strings.Index(y[i+1:], "\n\n")
		rest := ""
		if j >= 0 {
			rest = y[i+1+j:]
		}
		y = y[:i] + "\nprotocol:\n" + protocol + rest
	}
	s, err := scenario.Parse([]byte(y), name+".yaml", sets)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	return s
}

// crProtocol is ext/stdio running a Chang-Roberts program, as
// configs/ring-chang-roberts.yaml runs ring/chang-roberts.
func crProtocol(cmd string) string {
	return `  name: ext/stdio
  params:
    cmd: ` + cmd + `
    goal: highest-id
    ring: random
    announce: [elected]
    worst: n(n+1)/2
    assumes: no failures
    args: {initiators: all}
`
}

// projected reads every node trace of dir without the times, the
// header, the frames' sizes (a program's JSON body is not the Go
// family's msgpack struct) and the lines saying what messages carry:
// what happened, in each node's order.
func projected(t testing.TB, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "node-*.jsonl"))
	if len(files) == 0 {
		t.Fatalf("no node traces in %s", dir)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var e map[string]any
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if e["ev"] == "header" {
				continue
			}
			delete(e, "t")
			delete(e, "bytes")
			if e["ev"] == "send" || e["ev"] == "relay" {
				// What a message carries is each side's own words (the
				// Go family's Describe, the program's kind and body).
				delete(e, "text")
			}
			line, _ := json.Marshal(e)
			out = append(out, filepath.Base(f)+" "+string(line))
		}
	}
	return out
}

// sameRun fails unless the program's run matches the Go family's: the
// same messages by kind, leaders, verdict and trace events.
func sameRun(t *testing.T, goDir string, gosum *report.Summary, dir string, sum *report.Summary) {
	t.Helper()
	if sum.Verdict != "valid" || gosum.Verdict != "valid" {
		t.Fatalf("verdicts: program %s (%s), Go %s", sum.Verdict, sum.Reason, gosum.Verdict)
	}
	if !mapsEqual(sum.Messages.ByKind, gosum.Messages.ByKind) {
		t.Errorf("messages by kind: program %v, Go %v", sum.Messages.ByKind, gosum.Messages.ByKind)
	}
	if len(sum.Components) != 1 || len(gosum.Components) != 1 || fmtEq(sum.Components[0].Leaders, gosum.Components[0].Leaders) {
		t.Errorf("leaders: program %+v, Go %+v", sum.Components, gosum.Components)
	}
	a, b := projected(t, dir), projected(t, goDir)
	if !slices.Equal(a, b) {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("trace events differ at %d of %d/%d:\nprogram %s\nGo      %s", i, len(a), len(b), a[i], b[i])
			}
		}
		t.Fatalf("trace events: program %d, Go %d", len(a), len(b))
	}
}

func fmtEq(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return !bytes.Equal(x, y)
}

func mapsEqual(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestPythonChangRobertsMatchesGo runs examples/anylang/changroberts.py
// on configs/ring-chang-roberts.yaml (8 nodes, a random ring) and
// ring/chang-roberts on the same config: the same message counts, leader
// and trace events (but times and frame sizes), and the declared worst
// case n(n+1)/2 judged.
func TestPythonChangRobertsMatchesGo(t *testing.T) {
	need(t, "python3")
	goDir, gosum := simtest.Run(t, config(t, "ring-chang-roberts", ""))
	dir, sum := simtest.Run(t, config(t, "ring-chang-roberts", crProtocol(example("python3", "changroberts.py"))))
	sameRun(t, goDir, gosum, dir, sum)
	c := sum.Complexity
	if c == nil || c.Messages != gosum.Complexity.Messages || c.Announce != gosum.Complexity.Announce || c.Bound.Worst == nil || *c.Bound.Worst != 36 {
		t.Fatalf("complexity: program %+v, Go %+v", c, gosum.Complexity)
	}
	if c.Judged == nil || c.Judged.Verdict != "valid" {
		t.Fatalf("the declared bound is not judged valid: %+v", c.Judged)
	}
}

// TestJavaScriptChangRobertsMatchesGo is the same for
// examples/anylang/changroberts.js under Node.js.
func TestJavaScriptChangRobertsMatchesGo(t *testing.T) {
	need(t, "node")
	goDir, gosum := simtest.Run(t, config(t, "ring-chang-roberts", ""))
	dir, sum := simtest.Run(t, config(t, "ring-chang-roberts", crProtocol(example("node", "changroberts.js"))))
	sameRun(t, goDir, gosum, dir, sum)
}

// raProtocol is ext/stdio running examples/anylang/ricartagrawala.py.
func raProtocol(cmd string) string {
	return `  name: ext/stdio
  params:
    cmd: ` + cmd + `
    goal: mutex
    most: 2(n-1)
    assumes: no failures
`
}

// TestPythonRicartAgrawalaMatchesGo runs examples/anylang/ricartagrawala.py
// on configs/mutex-ricart-agrawala.yaml (8 nodes, the request generator)
// beside mutex/ricart-agrawala: valid for mutual exclusion, the same
// entries and 2(n-1) = 14 messages per entry, the declared bound judged.
func TestPythonRicartAgrawalaMatchesGo(t *testing.T) {
	need(t, "python3")
	_, gosum := simtest.Run(t, config(t, "mutex-ricart-agrawala", ""))
	_, sum := simtest.Run(t, config(t, "mutex-ricart-agrawala", raProtocol(example("python3", "ricartagrawala.py"))))
	m, g := sum.Mutex, gosum.Mutex
	if sum.Verdict != "valid" || m == nil || g == nil {
		t.Fatalf("verdict %s (%s), mutex %+v", sum.Verdict, sum.Reason, m)
	}
	if m.Entries != g.Entries || m.Entries == 0 || m.Violations != 0 || !mapsEqual(sum.Messages.ByKind, gosum.Messages.ByKind) {
		t.Fatalf("program: %d entries, %d violations, %v; Go: %d entries, %v", m.Entries, m.Violations, sum.Messages.ByKind, g.Entries, gosum.Messages.ByKind)
	}
	if m.MessagesPerEntry == nil || g.MessagesPerEntry == nil || *m.MessagesPerEntry != *g.MessagesPerEntry || *m.MessagesPerEntry != 14 {
		t.Fatalf("messages per entry: program %v, Go %v, want 14", m.MessagesPerEntry, g.MessagesPerEntry)
	}
	if m.Judged == nil || m.Judged.Verdict != "valid" {
		t.Fatalf("the declared 2(n-1) per entry is not judged valid: %+v", m.Judged)
	}
}

// TestDeclaredAssumptionsJudged: a crash in a run of a program that
// declares "assumes: no failures" is outside the algorithm's
// assumptions, as for ring/chang-roberts: not judged invalid.
func TestDeclaredAssumptionsJudged(t *testing.T) {
	need(t, "python3")
	s := config(t, "ring-chang-roberts", crProtocol(example("python3", "changroberts.py")), "faults=[{at: 1.05s, crash: [3]}]")
	_, sum := simtest.Run(t, s)
	if sum.Verdict == "invalid" || !strings.Contains(sum.Reason, "outside the algorithm's assumptions") {
		t.Fatalf("verdict %s (%s), want the crash reported as outside the assumptions", sum.Verdict, sum.Reason)
	}
}
