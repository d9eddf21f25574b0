package judge_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "manetlab/mutex"
	"manetlab/protocol"
	_ "manetlab/ring"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/analysis"
	"manetlab/trace/judge"
	"manetlab/trace/report"
)

// The judge's rules on whole simulated runs of protocols with a one-line
// bug, built here by wrapping a correct protocol's Env (test-only, in
// the spirit of explore/brokentest): each must be invalid in the run's
// verdict and in trace check, the correct protocol valid.

// wrapEnv is a protocol.Env whose sends and notes pass through hooks.
type wrapEnv struct {
	protocol.Env
	id   protocol.NodeID
	send func(e *wrapEnv, to protocol.NodeID, m protocol.Message) int // how many times to send m
	note func(e *wrapEnv, n protocol.Note) protocol.Note
	sent map[string]int
}

func (e *wrapEnv) times(to protocol.NodeID, m protocol.Message) int {
	if e.send == nil {
		return 1
	}
	return e.send(e, to, m)
}

func (e *wrapEnv) Send(to protocol.NodeID, m protocol.Message) {
	for range e.times(to, m) {
		e.Env.Send(to, m)
	}
}

func (e *wrapEnv) Deliver(to protocol.NodeID, m protocol.Message) {
	for range e.times(to, m) {
		e.Env.Deliver(to, m)
	}
}

func (e *wrapEnv) Note(n protocol.Note) {
	if e.note != nil {
		n = e.note(e, n)
	}
	e.Env.Note(n)
}

// register registers name as protocol base with every Env wrapped.
func register(name, base string, send func(e *wrapEnv, to protocol.NodeID, m protocol.Message) int, note func(e *wrapEnv, n protocol.Note) protocol.Note) {
	s, err := protocol.Lookup(base)
	if err != nil {
		panic(err)
	}
	inner := s.New
	s.Name = name
	s.New = func(cfg protocol.Config) (protocol.Process, error) {
		env := &wrapEnv{Env: cfg.Env, id: cfg.ID, send: send, note: note, sent: map[string]int{}}
		cfg.Env = env
		p, err := inner(cfg)
		if name == "test/sk-forgets-request" && cfg.ID == 3 {
			p = forgetful{p, env}
		}
		return p, err
	}
	protocol.Register(s)
}

// forgetful notes every request but drops it.
type forgetful struct {
	protocol.Process
	env protocol.Env
}

func (f forgetful) Step(ev protocol.Event) {
	if c, ok := ev.(protocol.Command); ok && c.Name == protocol.Request {
		f.env.Note(protocol.Note{Kind: protocol.NoteCSRequest})
		return
	}
	f.Process.Step(ev)
}

func init() {
	// Hirschberg-Sinclair sending its first probe twice: a count-only bug.
	register("test/hs-probe-twice", "ring/hirschberg-sinclair", func(e *wrapEnv, _ protocol.NodeID, m protocol.Message) int {
		if m.Kind() != "probe" {
			return 1
		}
		e.sent["probe"]++
		if e.sent["probe"] == 1 {
			return 2
		}
		return 1
	}, nil)
	// Suzuki-Kasami whose node 3 notes its request but never asks for the
	// token (its request handler returns early).
	register("test/sk-forgets-request", "mutex/suzuki-kasami", nil, nil)
	// Suzuki-Kasami whose first holder never passes the token on (nor
	// lets its channel send it again).
	register("test/sk-keeps-token", "mutex/suzuki-kasami", func(e *wrapEnv, _ protocol.NodeID, m protocol.Message) int {
		if e.id == 1 && (m.Kind() == "token" || protocol.IsTransport(m.Kind()) && m.Kind() != "transport-ack") {
			return 0
		}
		return 1
	}, nil)
	// Chang-Roberts where node 2 notes the lowest ID as its leader.
	register("test/cr-wrong-leader", "ring/chang-roberts", nil, func(e *wrapEnv, n protocol.Note) protocol.Note {
		if e.id == 2 && n.Kind == protocol.NoteLeader && n.Leader != protocol.None {
			n.Leader = 1
		}
		return n
	})
}

// judged simulates y with protocol name and returns the summary and the
// check.
func judged(t *testing.T, y, name string) (*report.Summary, *analysis.CheckReport) {
	t.Helper()
	s, err := scenario.Parse([]byte(y), "t.yaml", []string{"protocol.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return judgedDir(t, simulated(t, s))
}

// simulated runs s into a temporary directory and returns it.
func simulated(t *testing.T, s *scenario.Scenario) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// judgedDir returns the summary and trace check's report of the run in
// dir.
func judgedDir(t *testing.T, dir string) (*report.Summary, *analysis.CheckReport) {
	t.Helper()
	sum, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sum, rep
}

func property(rep *analysis.CheckReport, name string) analysis.Property {
	for _, p := range rep.Properties {
		if p.Name == name {
			return p
		}
	}
	return analysis.Property{Name: name, Verdict: "absent"}
}

const hsRing = "name: hs\nseed: 1\nduration: 20s\nnodes: {count: 8, values: id, placement: ring}\nradio: {propagation: unit-disk, range: 250}\n" +
	"mobility: {model: static}\nprotocol: {name: x, params: {ring: random, initiators: all}}\n"

// TestJudgeCountsOverTheBound: a Hirschberg-Sinclair that sends a probe
// more than its rules on a static lossless ring without faults is
// invalid (the exact count holds there), naming the count and the
// bound; the correct one is valid and keeps it.
func TestJudgeCountsOverTheBound(t *testing.T) {
	sum, rep := judged(t, hsRing, "ring/hirschberg-sinclair")
	if sum.Verdict != judge.Valid || property(rep, analysis.PropBound).Verdict != judge.Valid || judge.Exit(verdicts(rep)...) != judge.ExitValid {
		t.Fatalf("correct HS: %s (%s); bound %+v", sum.Verdict, sum.Reason, property(rep, analysis.PropBound))
	}
	exact := *sum.Complexity.Bound.Exact
	sum, rep = judged(t, hsRing, "test/hs-probe-twice")
	want := "over the exact count " + itoa(exact)
	if sum.Verdict != judge.Invalid || !strings.Contains(sum.Reason, want) || !strings.Contains(sum.Reason, "in the run's 1 election") {
		t.Errorf("HS with a probe twice: %s (%s), want invalid %q", sum.Verdict, sum.Reason, want)
	}
	if p := property(rep, analysis.PropBound); p.Verdict != judge.Invalid || !strings.Contains(p.Reason, want) {
		t.Errorf("trace check: %+v", p)
	}
	if strings.Contains(sum.Reason, "the run had") {
		t.Errorf("a cause the run did not have: %s", sum.Reason)
	}
}

const skGrid = "name: sk\nseed: 1\nduration: 20s\nnodes: {count: 8, values: id, placement: grid}\nradio: {propagation: unit-disk, range: 250}\n" +
	"mobility: {model: static, area: [150, 150]}\nprotocol: {name: x}\nworkload: {rate: 0.1, hold: 100ms, start: 1s, stop: 15s}\n"

// TestJudgeStarvationAtQuiescence: a Suzuki-Kasami node that forgets its
// own request leaves it waiting in a run that ends quiescent: nothing
// can ever grant it, so requests-granted and the run are invalid; the
// correct one is valid. A holder that never passes the token on (nor
// lets its channel retransmit it) keeps the channel retrying: the run
// never ends quiescent, and the verdict stays unknown.
func TestJudgeStarvationAtQuiescence(t *testing.T) {
	sum, rep := judged(t, skGrid, "mutex/suzuki-kasami")
	if sum.Verdict != judge.Valid || property(rep, analysis.PropGranted).Verdict != judge.Valid {
		t.Fatalf("correct SK: %s (%s); %+v", sum.Verdict, sum.Reason, property(rep, analysis.PropGranted))
	}
	sum, rep = judged(t, skGrid, "test/sk-forgets-request")
	if sum.Verdict != judge.Invalid || !strings.HasPrefix(sum.Reason, "requests never granted") || !strings.Contains(sum.Reason, "quiescent from") {
		t.Errorf("SK forgetting a request: %s (%s)", sum.Verdict, sum.Reason)
	}
	p := property(rep, analysis.PropGranted)
	if p.Verdict != judge.Invalid || len(p.Witnesses) == 0 || !strings.Contains(p.Witnesses[0].Text, "so it never will") {
		t.Errorf("trace check requests-granted: %+v", p)
	}
	sum, rep = judged(t, skGrid, "test/sk-keeps-token")
	if p := property(rep, analysis.PropGranted); sum.Verdict != judge.Unknown || p.Verdict != judge.Unknown || !strings.Contains(p.Reason, "did not end quiescent") {
		t.Errorf("SK keeping the token: %s (%s); %+v", sum.Verdict, sum.Reason, p)
	}
}

// TestJudgeWrongLeaderAtQuiescence: a Chang-Roberts node that follows
// the wrong leader, in a 6 s run (shorter than the stabilisation delay:
// nothing settled), is invalid because the run ended in a final state;
// the correct one is valid there for the same reason, not "nothing
// judged".
func TestJudgeWrongLeaderAtQuiescence(t *testing.T) {
	short := strings.Replace(hsRing, "duration: 20s", "duration: 6s", 1)
	sum, rep := judged(t, short, "ring/chang-roberts")
	if sum.Verdict != judge.Valid || property(rep, analysis.PropStableLeader).Verdict != judge.Valid {
		t.Fatalf("correct CR, 6 s: %s (%s); %+v", sum.Verdict, sum.Reason, property(rep, analysis.PropStableLeader))
	}
	sum, rep = judged(t, short, "test/cr-wrong-leader")
	if sum.Verdict != judge.Invalid || !strings.Contains(sum.Reason, "in the run's final state") {
		t.Errorf("CR with a wrong leader, 6 s: %s (%s)", sum.Verdict, sum.Reason)
	}
	if p := property(rep, analysis.PropStableLeader); p.Verdict != judge.Invalid || len(p.Witnesses) == 0 || !strings.Contains(p.Witnesses[0].Text, "quiescent") {
		t.Errorf("trace check stable-leader: %+v", p)
	}
}

func verdicts(rep *analysis.CheckReport) []string {
	var vs []string
	for _, p := range rep.Properties {
		vs = append(vs, p.Verdict)
	}
	return vs
}

func itoa(v int) string { return strconv.Itoa(v) }

// TestCheckStatesWhatTracesDoNotCover: with a node's trace cut short (a
// full disk: no end event), every property of trace check that is not
// invalid names the node and where its trace stops, never a plain valid,
// and the run is not judged final (it ended quiescent, but what the node
// did after is unknown).
func TestCheckStatesWhatTracesDoNotCover(t *testing.T) {
	s, err := scenario.Parse([]byte(strings.Replace(hsRing, "duration: 20s", "duration: 6s", 1)), "t.yaml", []string{"protocol.name=ring/chang-roberts"})
	if err != nil {
		t.Fatal(err)
	}
	dir := simulated(t, s)
	f := filepath.Join(dir, "node-3.jsonl")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(f, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Properties {
		if p.Verdict != judge.Invalid && !strings.HasPrefix(p.Reason, "not applicable") && !strings.Contains(p.Reason, "node 3") {
			t.Errorf("%s %s (%s): does not name node 3, whose trace stops early", p.Name, p.Verdict, p.Reason)
		}
	}
	if p := property(rep, analysis.PropStableLeader); p.Verdict == judge.Valid {
		t.Errorf("stable-leader valid on a run whose end a cut trace hides: %s", p.Reason)
	}
	sum, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdict != judge.Unknown || !strings.Contains(sum.Reason, "node 3") {
		t.Errorf("summary: %s (%s)", sum.Verdict, sum.Reason)
	}
}

// TestJudgeLossLeavesCountsUnjudged: a message the network gave up (a
// drop at its sender naming its destination) takes the run out of the
// exact count's conditions: the Hirschberg-Sinclair that sends a probe
// twice is then unknown, not invalid, in the summary and in trace check
// alike, both naming the loss (trace check's own load keeps no drops:
// the facts read them apart).
func TestJudgeLossLeavesCountsUnjudged(t *testing.T) {
	s, err := scenario.Parse([]byte(hsRing), "t.yaml", []string{"protocol.name=test/hs-probe-twice"})
	if err != nil {
		t.Fatal(err)
	}
	dir := simulated(t, s)
	f := filepath.Join(dir, "node-3.jsonl")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1] // the end event
	drop := strings.Replace(strings.Replace(last, `"ev":"end"`, `"ev":"drop","kind":"probe","to":4,"seq":999,"reason":"no-ack"`, 1), "\n", "", 1) + "\n"
	lines = append(lines[:len(lines)-1], drop, last+"\n")
	if err := os.WriteFile(f, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := property(rep, analysis.PropBound)
	for _, got := range []struct{ what, verdict, reason string }{
		{"summary", sum.Complexity.Judged.Verdict, sum.Complexity.Judged.Reason},
		{"trace check", p.Verdict, p.Reason},
	} {
		if got.verdict != judge.Unknown || !strings.Contains(got.reason, "loss: node 3's probe to 4 dropped") {
			t.Errorf("%s: message bound %s (%s)", got.what, got.verdict, got.reason)
		}
	}
	if sum.Verdict == judge.Invalid {
		t.Errorf("summary invalid with the loss: %s", sum.Reason)
	}
}
