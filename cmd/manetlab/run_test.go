package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/node/launch"
	"manetlab/node/launch/launchtest"
	"manetlab/node/netnstest"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/report"
)

// The run tests have `manetlab run` start this test binary, which
// TestRunHelperProcess turns into a fake node (launchtest) or into the
// real manetlab, chosen by this variable.
const envRunHelper = "MANETLAB_RUN_TEST_HELPER"

// TestRunHelperProcess is not a test: it is what the processes started by
// the run tests execute (the os/exec helper-process pattern).
func TestRunHelperProcess(t *testing.T) {
	switch os.Getenv(envRunHelper) {
	case "fake":
		os.Exit(launchtest.Main(flag.Args()))
	case "main":
		app := newApp()
		if err := app.Run(reorderArgs(app, append([]string{"manetlab"}, flag.Args()...))); err != nil {
			os.Stderr.WriteString("manetlab: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// writeRunScenario writes a static scenario of n nodes all in range of
// each other, values = IDs, plus extra YAML. (A scenario file rather than
// --set, because the CLI splits --set values on commas.)
func writeRunScenario(t *testing.T, n int, dur, extra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	y := fmt.Sprintf("name: t\nduration: %s\nnodes: {count: %d, values: id, placement: grid}\nmobility: {model: static, area: [300, 300]}\n%s", dur, n, extra)
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// useHelper makes `run` start this test binary as mode ("fake" or "main").
func useHelper(t *testing.T, mode string) {
	t.Setenv(envRunHelper, mode)
	runNodeCommand = []string{os.Args[0], "-test.run=^TestRunHelperProcess$", "--"}
	t.Cleanup(func() { runNodeCommand = nil })
}

func TestRunPrintsTheSummaryAsJSON(t *testing.T) {
	useHelper(t, "fake")
	dir := t.TempDir()
	out, err := runCLI(t, "run", writeRunScenario(t, 5, "5s", ""), "--json", "--out", dir, "--quiet", "--stats",
		"--seed", "3", "--set", "nodes.count=3", "--set", "duration=1s", "--start-delay", "500ms", "--ttl", "0", "--group", "239.77.9.1:47999")
	if err != nil {
		t.Fatal(err)
	}
	var sum report.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !judgedOrTooShort(sum.Verdict, sum.Reason) || sum.Seed != 3 || sum.Nodes != 3 || sum.Driver != "node" {
		t.Fatalf("summary %+v", sum)
	}
	args, err := os.ReadFile(filepath.Join(dir, launchtest.ArgsLog))
	if err != nil {
		t.Fatal(err)
	}
	// The nodes read the scenario's copy in --out, with --set and --seed
	// applied.
	copyPath := filepath.Join(dir, launch.ScenarioFileName)
	for _, want := range []string{"--scenario " + copyPath + " ", "--seed 3 ", "--ttl 0\n", "--group 239.77.9.1:47999 ", "--out " + dir + " "} {
		if !strings.Contains(string(args), want) {
			t.Errorf("nodes were not given %q:\n%s", want, args)
		}
	}
	if strings.Contains(string(args), "--set") {
		t.Errorf("nodes were given --set, already applied in the copy:\n%s", args)
	}
	if c, err := os.ReadFile(copyPath); err != nil || !strings.Contains(string(c), "count: 3") || !strings.Contains(string(c), "duration: 1s") || !strings.Contains(string(c), "seed: 3") {
		t.Errorf("the scenario's copy: %v\n%s", err, c)
	}
	var procs []map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "log", "processes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &procs); err != nil || len(procs) != 4 || procs[3]["name"] != "player" {
		t.Fatalf("processes.json: %v\n%s", err, b)
	}
	var u launch.Usage
	b, err = os.ReadFile(filepath.Join(dir, "log", "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &u); err != nil || u.NodeProcesses != 3 || u.CPU <= 0 || u.CPU != u.User+u.Sys || u.RSSMax <= 0 || u.RSSMean > u.RSSMax || u.PlayerRSS <= 0 {
		t.Fatalf("usage.json: %v\n%s", err, b)
	}
}

func TestRunTextSummaryAndStats(t *testing.T) {
	useHelper(t, "fake")
	dir := t.TempDir()
	out, err := runCLI(t, "run", writeRunScenario(t, 4, "1s", ""), "--out", dir, "--quiet", "--stats", "--ids-per-process", "2", "--start-delay", "500ms")
	if err != nil {
		t.Fatal(err)
	}
	if !textJudgedOrTooShort(out) {
		t.Errorf("no valid or nothing-judged verdict in\n%s", out)
	}
	for _, want := range []string{"processes: 2 node processes over 1.0s of run: CPU ", "s total (user ", "peak RSS ", "player: CPU", "ran 4 nodes in 2 processes for 1s; traces in " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// Without --stats: the node processes' line, not the player's.
	out, err = runCLI(t, "run", writeRunScenario(t, 2, "1s", ""), "--out", t.TempDir(), "--quiet", "--start-delay", "300ms")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "processes: 2 node processes over") || strings.Contains(out, "player: CPU") {
		t.Errorf("without --stats:\n%s", out)
	}
}

func TestRunNamesTheNodeThatFailed(t *testing.T) {
	useHelper(t, "fake")
	t.Setenv(launchtest.Env, "fail=2")
	_, err := runCLI(t, "run", writeRunScenario(t, 3, "5s", ""), "--out", t.TempDir(), "--quiet",
		"--start-delay", "300ms", "--run", "failing")
	if err == nil || !strings.Contains(err.Error(), "run failing: node 2 (pid") || !strings.Contains(err.Error(), "told to fail") {
		t.Fatalf("error %v", err)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "run needs exactly one scenario file"},
		{[]string{"run", "../../configs/static-line.yaml", "--ids-per-process", "0"}, "--ids-per-process 0: want 1 or more"},
		{[]string{"run", "../../configs/static-line.yaml", "--ttl", "-1"}, "--ttl -1: want 0 to 255"},
		{[]string{"run", "../../configs/static-line.yaml", "--set", "nodes.count=-1"}, "nodes.count"},
	} {
		_, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestRunRealNodesInNamespace runs the real node and player, one process
// per node, inside a network namespace with multicast on lo, with a crash
// and a recovery.
func TestRunRealNodesInNamespace(t *testing.T) {
	if !realProcesses(t) {
		return
	}
	dir := t.TempDir()
	path := writeRunScenario(t, 10, "12s", "radio: {range: 500}\nfaults: [{at: 3s, crash: [3]}, {at: 5s, recover: [3]}]\n")
	out, err := runCLI(t, "run", path, "--json", "--out", dir, "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	var sum report.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	if !judgedOrTooShort(sum.Verdict, sum.Reason) || sum.Nodes != 10 || sum.Alive != 10 || sum.Messages.Total == 0 || len(sum.Problems) > 0 {
		t.Errorf("summary %+v", sum)
	}
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	starts := 0
	for _, e := range run.Nodes[3] {
		if e.Ev == trace.EvStart {
			starts++
		}
	}
	if starts != 2 {
		t.Errorf("node 3 started %d times, want 2 (boot and recovery)", starts)
	}
}

// TestRunCollected writes the run file for traces gathered by hand and
// prints the same summary as the launcher did.
func TestRunCollected(t *testing.T) {
	useHelper(t, "fake")
	dir := t.TempDir()
	path := writeRunScenario(t, 3, "1s", "")
	first, err := runCLI(t, "run", path, "--out", dir, "--quiet", "--run", "byhand", "--start-delay", "1s")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(trace.RunFile(dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "run", path, "--collected", "--out", dir); err == nil || !strings.Contains(err.Error(), "--collected needs the --run name") {
		t.Fatalf("error %v", err)
	}
	again, err := runCLI(t, "run", path, "--collected", "--out", dir, "--run", "byhand")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, again) || !textJudgedOrTooShort(again) {
		t.Errorf("launched:\n%s\ncollected:\n%s", first, again)
	}
}

// realProcesses prepares a test that runs real node processes: it skips
// when this build has no node command, runs the rest of the test in a
// network namespace with multicast on lo (netnstest.Run: false in the
// parent, which must return) and lets the test binary stand in for the
// manetlab binary.
func realProcesses(t *testing.T) bool {
	t.Helper()
	if findCommand(newApp().Commands, "node") == nil {
		t.Skip("no node command in this build")
	}
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return false
	}
	useHelper(t, "main")
	return true
}

// TestRunRefusesAnOutWithAnotherRun: `run` into a directory that holds
// another run's files is refused before anything starts, saying how to
// replace them; with --replace it runs, and the old node trace is gone.
func TestRunRefusesAnOutWithAnotherRun(t *testing.T) {
	useHelper(t, "fake")
	dir := t.TempDir()
	old := trace.NodeFile(dir, 9)
	if err := os.WriteFile(old, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := writeRunScenario(t, 2, "500ms", "")
	_, err := runCLI(t, "run", path, "--out", dir, "--quiet", "--start-delay", "1s")
	if err == nil || !strings.Contains(err.Error(), "already holds the files (node-9.jsonl)") || !strings.Contains(err.Error(), "pass --replace to remove them first") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(trace.RunFile(dir)); err == nil {
		t.Error("a refused run wrote a run file")
	}
	if _, err := runCLI(t, "run", path, "--out", dir, "--quiet", "--start-delay", "1s", "--replace"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("--replace left the old node trace")
	}
}

// TestRunREADMEShortenedQuickstart runs the README's own example, `run
// configs/quickstart.yaml --set duration=20s`, with real processes: its
// crash at 20 s is at the run's end, so it is dropped with one warning
// and never applied (it used to be applied 14 ms after the end: 21 "time
// goes back" problems and an unsettled verdict). The run file records no
// fault, the summary has no trace problem, no cross-host problem and no
// crash, and the verdict is valid (or, on a loaded machine, unsettled by
// the mobility's last change, never invalid).
func TestRunREADMEShortenedQuickstart(t *testing.T) {
	if !realProcesses(t) {
		return
	}
	dir := t.TempDir()
	app := newApp()
	var out, errw bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errw
	args := []string{"manetlab", "run", "../../configs/quickstart.yaml", "--set", "duration=20s", "--json", "--out", dir, "--quiet"}
	if err := app.Run(reorderArgs(app, args)); err != nil {
		t.Fatalf("%v\n%s", err, errw.String())
	}
	// (A loaded machine may add that it was overloaded: not counted.)
	if w := "warning: dropped 2 faults at or after the run's end 20s, outside the run: never applied (the first: faults[0] at 20s)"; strings.Count(errw.String(), "warning:")-strings.Count(errw.String(), "warning: this machine was overloaded") != 1 || !strings.Contains(errw.String(), w) {
		t.Errorf("standard error %q, want the one warning %q", errw.String(), w)
	}
	var sum report.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	// Valid on an idle machine; on a loaded one the protocol may not yet
	// follow a change the mobility makes in the last second (unsettled,
	// never invalid). No crash either way: 20 alive, none in the timeline.
	if (sum.Verdict != "valid" && sum.Verdict != "unsettled") || len(sum.Problems) > 0 || len(sum.CrossHost) > 0 || sum.Alive != 20 {
		t.Errorf("verdict %s (%s), %d alive, problems %q, cross-host %+v", sum.Verdict, sum.Reason, sum.Alive, sum.Problems, sum.CrossHost)
	}
	for _, m := range sum.Timeline {
		if m.Event != "" {
			t.Errorf("the timeline shows %q at %.3fs: no fault was applied", m.Event, m.T)
		}
	}
	t.Logf("verdict %s (%s)", sum.Verdict, sum.Reason)
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			t.Errorf("run.jsonl records a %s of node %d at %dns: no fault was applied", e.Ev, e.Node, e.T)
		}
	}
}

// TestRunCollectedNeverInvents reproduces issue 21's case: a run where
// nobody killed anything, summarised with --collected against a scenario
// that schedules a crash of the best node. The summary must not say it
// crashed, and run.jsonl records no fault; with the launcher's faults
// record, the faults are those it applied, at their real times.
func TestRunCollectedNeverInvents(t *testing.T) {
	useHelper(t, "fake")
	path := writeRunScenario(t, 4, "2s", "faults: [{at: 500ms, crash: [4]}, {at: 1s, recover: [4]}]\n")
	collected := func(dir string) (string, string) {
		t.Helper()
		if err := os.Remove(trace.RunFile(dir)); err != nil {
			t.Fatal(err)
		}
		app := newApp()
		var out, errw bytes.Buffer
		app.Writer, app.ErrWriter = &out, &errw
		if err := app.Run(reorderArgs(app, []string{"manetlab", "run", path, "--collected", "--out", dir, "--run", "byhand"})); err != nil && !verdictOnly(err) {
			t.Fatalf("%v\n%s", err, errw.String())
		}
		return out.String(), errw.String()
	}
	faults := func(dir string) []trace.Event {
		t.Helper()
		run, err := analysis.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var fs []trace.Event
		for _, e := range run.RunEvents {
			if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
				fs = append(fs, e)
			}
		}
		return fs
	}

	// Nobody killed anything, and no faults record.
	quiet := t.TempDir()
	if _, err := runCLI(t, "run", path, "--set", "faults=[]", "--out", quiet, "--quiet", "--run", "byhand", "--start-delay", "1s"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(trace.FaultsFile(quiet)); err != nil {
		t.Fatal(err)
	}
	out, errs := collected(quiet)
	if strings.Contains(out, "crashed") || !textJudgedOrTooShort(out) {
		t.Errorf("the summary of a run without faults:\n%s", out)
	}
	if !strings.Contains(errs, "faults as the traces show them") || !strings.Contains(errs, "0 crashes and 0 recoveries") {
		t.Errorf("standard error %q does not say where the faults came from", errs)
	}
	if fs := faults(quiet); len(fs) != 0 {
		t.Errorf("run.jsonl records %+v; nobody killed anything", fs)
	}

	// The faults applied, recorded by the launcher at their real times.
	applied := t.TempDir()
	if _, err := runCLI(t, "run", path, "--out", applied, "--quiet", "--run", "byhand", "--start-delay", "1s"); err != nil {
		t.Fatal(err)
	}
	want := faults(applied)
	if len(want) != 2 || want[0].T < int64(500*time.Millisecond) {
		t.Fatalf("the launched run's faults %+v", want)
	}
	out, errs = collected(applied)
	if got := faults(applied); fmt.Sprint(got) != fmt.Sprint(want) || !strings.Contains(errs, "faults as recorded in") {
		t.Errorf("collected faults %+v, want the launcher's %+v; standard error %q", got, want, errs)
	}
	if !strings.Contains(out, "node 4 crashed") {
		t.Errorf("the summary does not show the crash applied:\n%s", out)
	}
}

// TestCrossHostProblemsFirstAndExit3: a host's traces missing (node 4's
// here). run --collected, trace check and trace report print the problem
// right after their verdict line, before the other verdicts and the
// figures, and end with exit status 3 (ExitCrossHost),
// the JSON reports carry it in cross_host.
func TestCrossHostProblemsFirstAndExit3(t *testing.T) {
	useHelper(t, "fake")
	dir := t.TempDir()
	path := writeRunScenario(t, 4, "1s", "")
	if _, err := runCLI(t, "run", path, "--out", dir, "--quiet", "--run", "byhand", "--start-delay", "1s"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{trace.RunFile(dir), trace.NodeFile(dir, 4)} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	want := "problem: 1 node of the scenario left no usable trace in " + dir + ": 4 ("
	exit3 := func(what string, err error) {
		t.Helper()
		var st exitStatus
		if !errors.As(err, &st) || st.code != ExitCrossHost || !strings.Contains(err.Error(), "1 cross-host problem") {
			t.Errorf("%s: error %v, want exit status %d for the cross-host problem", what, err, ExitCrossHost)
		}
	}
	before := func(what, out, verdict string) {
		t.Helper()
		// After the verdict line, which comes first (issue 35), before
		// the other verdicts and the figures.
		if p, v := strings.Index(out, want), strings.Index(out, verdict); p < 0 || v < 0 || p > v || !strings.HasPrefix(out, "verdict: ") {
			t.Errorf("%s: the verdict line is not first, or the problem is not printed before %q:\n%s", what, verdict, out)
		}
	}
	out, err := runCLI(t, "run", path, "--collected", "--out", dir, "--run", "byhand")
	exit3("run --collected", err)
	before("run --collected", out, "messages (sent by the protocol")
	out, err = runCLI(t, "trace", "check", dir)
	exit3("trace check", err)
	before("trace check", out, "\none-leader-per-epoch ")
	out, err = runCLI(t, "trace", "report", dir)
	exit3("trace report", err)
	before("trace report", out, "F (share")
	for _, args := range [][]string{{"trace", "check", dir, "--json"}, {"trace", "report", dir, "--json"}, {"run", path, "--collected", "--out", dir, "--run", "byhand", "--json"}} {
		out, err := runCLI(t, args...)
		exit3(strings.Join(args, " "), err)
		var rep struct {
			CrossHost []struct {
				Kind  string `json:"kind"`
				Nodes []int  `json:"nodes"`
			} `json:"cross_host"`
		}
		if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil || len(rep.CrossHost) != 1 || rep.CrossHost[0].Kind != "no-trace" || fmt.Sprint(rep.CrossHost[0].Nodes) != "[4]" {
			t.Errorf("%s: cross_host %+v (%v)", strings.Join(args, " "), rep.CrossHost, jerr)
		}
	}
	page := filepath.Join(t.TempDir(), "r.html")
	_, err = runCLI(t, "trace", "report", dir, "--html", page)
	exit3("trace report --html", err)
	if b, rerr := os.ReadFile(page); rerr != nil || !strings.Contains(string(b), `"cross_host":[{"kind":"no-trace","nodes":[4]`) {
		t.Errorf("the page's data lacks the cross-host problem (%v)", rerr)
	}
	// With every trace there, no problem and exit 0.
	if _, err := runCLI(t, "run", path, "--out", t.TempDir(), "--quiet", "--start-delay", "1s"); err != nil {
		t.Errorf("a clean run: %v", err)
	}
}
