package launch

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"manetlab/node/launch/launchtest"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/judge"
	"manetlab/trace/report"
)

// The test binary doubles as the fake node (and, for the Ctrl-C test, as
// the launcher): the launcher under test starts os.Args[0] with the
// environment below set.
const (
	envFake     = "MANETLAB_LAUNCH_TEST_FAKE"
	envLauncher = "MANETLAB_LAUNCH_TEST_LAUNCHER"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envLauncher); dir != "" {
		os.Unsetenv(envLauncher) // its children are fake nodes
		os.Exit(launcherMain(dir, os.Args[1]))
	}
	if os.Getenv(envFake) == "1" {
		os.Exit(launchtest.Main(os.Args[1:]))
	}
	os.Setenv(envFake, "1")
	// A race-enabled fake would otherwise sleep a second at exit, longer
	// than the grace periods of these tests.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

// launcherMain is `manetlab run` in miniature: the Ctrl-C test runs it as
// a subprocess and interrupts it.
func launcherMain(dir, path string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := scenario.Load(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	res, err := Run(ctx, s, Options{Scenario: path, Out: dir, Run: "sigint", TTL: -1, Command: []string{os.Args[0]},
		Grace: time.Second, Progress: os.Stderr, ProgressEvery: 300 * time.Millisecond, StartDelay: 500 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if res.Interrupted {
		fmt.Println("interrupted")
		return 130
	}
	return 0
}

// writeScenario writes a static scenario of n nodes in range of each
// other, values = IDs, plus extra YAML.
func writeScenario(t *testing.T, n int, dur string, extra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	y := fmt.Sprintf("name: t\nduration: %s\nnodes: {count: %d, values: id, placement: grid}\nmobility: {model: static, area: [100, 100]}\n%s", dur, n, extra)
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func launch(t *testing.T, path string, opt Options) (*Result, error) {
	t.Helper()
	return launchCtx(context.Background(), t, path, opt)
}

func launchCtx(ctx context.Context, t *testing.T, path string, opt Options) (*Result, error) {
	t.Helper()
	s, err := scenario.Load(path, opt.Sets)
	if err != nil {
		t.Fatal(err)
	}
	opt.Scenario = path
	if opt.Out == "" {
		opt.Out = t.TempDir()
	}
	if opt.Run == "" {
		opt.Run = strings.ReplaceAll(t.Name(), "/", "-")
	}
	opt.Command = []string{os.Args[0]}
	if opt.TTL == 0 {
		opt.TTL = -1
	}
	if opt.StartDelay == 0 {
		opt.StartDelay = 500 * time.Millisecond
	}
	var log syncBuffer
	if opt.Progress != nil {
		opt.Progress = io.MultiWriter(opt.Progress, &log)
	} else {
		opt.Progress = &log
	}
	if opt.ProgressEvery == 0 {
		opt.ProgressEvery = 500 * time.Millisecond
	}
	res, err := Run(ctx, s, opt)
	t.Logf("progress:\n%s", log.String())
	t.Cleanup(func() { checkNothingLeft(t, opt.Out, opt.Run, res) })
	return res, err
}

// checkNothingLeft fails t if any process the launcher started, by the
// launcher's account or by the fakes' own, still runs.
func checkNothingLeft(t *testing.T, dir, run string, res *Result) {
	t.Helper()
	pids := append(launchtest.PIDs(dir), launchtest.PIDs(launchtest.PlayerPIDDir(run))...)
	if res != nil {
		for _, p := range res.Procs {
			pids = append(pids, p.PIDs...)
		}
	}
	os.RemoveAll(launchtest.PlayerPIDDir(run))
	for _, pid := range pids {
		if launchtest.Running(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("pid %d still runs after the launcher returned", pid)
		}
	}
}

func TestRunElectsAndWritesTheRunFile(t *testing.T) {
	path := writeScenario(t, 4, "1500ms", "")
	res, err := launch(t, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Procs) != 5 || res.Procs[4].Name != "player" || res.Interrupted || len(res.Failures) > 0 {
		t.Fatalf("result %+v", res)
	}
	for _, p := range res.Procs {
		if len(p.PIDs) != 1 || p.Exit != "exit 0" || p.MaxRSS == 0 {
			t.Errorf("process %+v", p)
		}
	}
	sum, err := report.Summarize(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !judge.ValidOrNothingJudged(sum.Verdict, sum.Reason) || sum.Driver != "node" || sum.Nodes != 4 || sum.Duration != 1.5 || len(sum.Problems) > 0 {
		t.Fatalf("summary %+v", sum)
	}
	for id := protocol.NodeID(1); id <= 4; id++ {
		if _, err := os.Stat(trace.NodeFile(res.Dir, id)); err != nil {
			t.Error(err)
		}
	}
}

func TestIDsPerProcessKeepsFaultedNodesAlone(t *testing.T) {
	path := writeScenario(t, 7, "1s", "faults: [{at: 900ms, crash: [3]}]\n")
	res, err := launch(t, path, Options{IDsPerProcess: 3})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Procs {
		names = append(names, p.Name)
	}
	if got, want := strings.Join(names, "; "), "nodes 1-2; node 3; nodes 4-6; node 7; player"; got != want {
		t.Fatalf("processes %q, want %q", got, want)
	}
	b, err := os.ReadFile(filepath.Join(res.Dir, launchtest.ArgsLog))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--ids 1-2 ", "--id 3 ", "--ids 4-6 ", "--id 7 "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %q in the command lines:\n%s", want, b)
		}
	}
	if sum, err := report.Summarize(res.Dir); err != nil || !judge.ValidOrNothingJudged(sum.Verdict, sum.Reason) {
		t.Fatalf("summary %+v, %v", sum, err)
	}
}

func TestNodeThatFailsToStartIsNamedAndEverythingStops(t *testing.T) {
	// A node that fails or garbles is told apart from one that hangs
	// whatever the machine's load: those cases get a ready timeout long
	// enough for the process to start and fail first.
	for _, tc := range []struct {
		mode, want string
		ready      time.Duration
	}{
		{"fail=3", `node 3 \(pid \d+\) exited before it was ready: exit status 1; its log .* ends:\n  manetlab: fake: told to fail`, 10 * time.Second},
		{"garble=2", `node 2 \(pid \d+\) printed "hello there", want "ready <pid>"`, 10 * time.Second},
		// The hanging cases' timeout applies to every process: 3 s lets
		// the others start under the race detector on a loaded machine
		// (at 1 s node 1 was named in place of the hanging player).
		{"hang=4", `node 4 \(pid \d+\) did not print "ready <pid>" within 3s`, 3 * time.Second},
		{"hang=0", `player \(pid \d+\) did not print "ready <pid>" within 3s`, 3 * time.Second},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Setenv(launchtest.Env, tc.mode)
			path := writeScenario(t, 5, "30s", "")
			start := time.Now()
			_, err := launch(t, path, Options{ReadyTimeout: tc.ready, Grace: 500 * time.Millisecond})
			if err == nil {
				t.Fatal("no error")
			}
			if !regexpMatch(tc.want, err.Error()) {
				t.Fatalf("error %q\nwant %s", err, tc.want)
			}
			if el := time.Since(start); el > tc.ready+4*time.Second {
				t.Errorf("took %s to give up", el)
			}
		})
	}
}

func TestFaultScheduleKillsAndRestartsWithTheSameStart(t *testing.T) {
	path := writeScenario(t, 3, "2500ms", "faults: [{at: 800ms, crash: [2]}, {at: 1600ms, recover: [2]}]\n")
	res, err := launch(t, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	node2 := res.Procs[1]
	if node2.Name != "node 2" || len(node2.PIDs) != 2 {
		t.Fatalf("node 2: %+v", node2)
	}
	// Both instances got the same command line (the same id and start):
	// the first the start once ready (the handshake), the recovery on
	// its command line.
	b, _ := os.ReadFile(filepath.Join(res.Dir, launchtest.ArgsLog))
	b = bytes.Replace(b, []byte(" --start-stdin "), []byte(fmt.Sprintf(" --start %d ", res.Start.UnixNano())), -1)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(l, "--id 2 ") {
			lines = append(lines, l[strings.IndexByte(l, ' '):])
		}
	}
	if len(lines) != 2 || lines[0] != lines[1] {
		t.Fatalf("node 2 started with %q", lines)
	}
	run, err := analysis.ReadDir(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	// The run file records when each fault was applied: on time, or a
	// little late on a loaded machine, never early.
	var faults []string
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			faults = append(faults, fmt.Sprintf("%s %d", e.Ev, e.Node))
			at := map[string]time.Duration{trace.EvCrash: 800 * time.Millisecond, trace.EvRecover: 1600 * time.Millisecond}[e.Ev]
			if got := time.Duration(e.T); got < at || got > at+500*time.Millisecond {
				t.Errorf("%s of node %d recorded at %s, want from %s to %s", e.Ev, e.Node, got, at, at+500*time.Millisecond)
			}
		}
	}
	if got, want := strings.Join(faults, ", "), "crash 2, recover 2"; got != want {
		t.Errorf("run file faults %q, want %q", got, want)
	}
	checkFaultsRecord(t, res.Dir, run.RunEvents)
	// The killed instance wrote no end; the restarted one appended a
	// second start and an end to the same file.
	var evs []string
	for _, e := range run.Nodes[2] {
		evs = append(evs, e.Ev)
	}
	if got, want := strings.Join(evs, " "), "start leader start leader end"; got != want {
		t.Errorf("node 2's trace %q, want %q", got, want)
	}
	if sum, err := report.Summarize(res.Dir); err != nil || !judge.ValidOrNothingJudged(sum.Verdict, sum.Reason) || sum.Alive != 3 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
}

// TestDilatedFaultSchedule: dilated 4 times, a run of 600 ms lasts 2.4 s,
// every process is told --dilation 4, and the faults at 200 and 400 ms
// of the model come 4 times later on the wall clock and are recorded in
// the model's time.
func TestDilatedFaultSchedule(t *testing.T) {
	path := writeScenario(t, 3, "600ms", "faults: [{at: 200ms, crash: [2]}, {at: 400ms, recover: [2]}]\n")
	began := time.Now()
	res, err := launch(t, path, Options{Dilation: 4})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(res.Start); took < 4*600*time.Millisecond {
		t.Errorf("the run ended %v after its start, want 4 times its 600 ms", took)
	}
	b, _ := os.ReadFile(filepath.Join(res.Dir, launchtest.ArgsLog))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(l, "--dilation 4") {
			t.Errorf("a node started without --dilation 4: %s", l)
		}
	}
	run, err := analysis.ReadDir(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var faults []string
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			faults = append(faults, fmt.Sprintf("%s %d", e.Ev, e.Node))
			at := map[string]time.Duration{trace.EvCrash: 200 * time.Millisecond, trace.EvRecover: 400 * time.Millisecond}[e.Ev]
			// Undilated, the crash would come at 200 ms of the wall,
			// 50 ms of the model.
			if got := time.Duration(e.T); got < at || got > at+150*time.Millisecond {
				t.Errorf("%s of node 2 recorded at %s of the model, want from %s to %s", e.Ev, got, at, at+150*time.Millisecond)
			}
		}
	}
	if got, want := strings.Join(faults, ", "), "crash 2, recover 2"; got != want {
		t.Errorf("run file faults %q, want %q", got, want)
	}
	checkFaultsRecord(t, res.Dir, run.RunEvents)
	t.Logf("took %v", time.Since(began).Round(time.Millisecond))
}

func TestCancelStopsEverythingAndWritesWhatWasGathered(t *testing.T) {
	t.Setenv(launchtest.Env, "ignoreterm=2")
	path := writeScenario(t, 3, "60s", "")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := launchCtx(ctx, t, path, Options{Grace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %s to stop", el)
	}
	if !res.Interrupted || res.Elapsed <= 0 || res.Elapsed > 2*time.Second {
		t.Fatalf("result %+v", res)
	}
	if res.Procs[1].Exit != "signal: killed" || res.Procs[0].Exit != "exit 0" {
		t.Errorf("exits: node 1 %q (want exit 0 on SIGTERM), node 2 %q (want killed: it ignores SIGTERM)", res.Procs[0].Exit, res.Procs[1].Exit)
	}
	sum, err := report.Summarize(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	// Node 2 was killed and wrote no end: its component is not judged
	// past its last line (issue 24, item 4).
	if sum.Duration != res.Elapsed.Seconds() || sum.Verdict != "unknown" ||
		!strings.Contains(sum.Reason, "traces that stop without an end event: node 2 at ") {
		t.Errorf("summary %+v", sum)
	}
}

func TestNodeThatDiesIsReported(t *testing.T) {
	t.Setenv(launchtest.Env, "die=2@0.3")
	path := writeScenario(t, 3, "1500ms", "")
	res, err := launch(t, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0], "node 2 (pid") || !strings.Contains(res.Failures[0], "exit status 3") {
		t.Fatalf("failures %q", res.Failures)
	}
	run, err := analysis.ReadDir(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	crashed := false
	for _, e := range run.RunEvents {
		crashed = crashed || (e.Ev == trace.EvCrash && e.Node == 2)
	}
	if !crashed {
		t.Error("the run file does not record node 2's crash")
	}
}

// TestMoreProcessesThanAllowedAreRefused: the launcher checks the
// machine's process limit before it starts anything.
func TestMoreProcessesThanAllowedAreRefused(t *testing.T) {
	path := writeScenario(t, 5, "1s", "")
	res, err := launch(t, path, Options{Machine: &scenario.Machine{MaxProcs: 4}})
	if err == nil || !strings.Contains(err.Error(), "processes: 6 to start, at most 4: the user's process limit (ulimit -u)") {
		t.Fatalf("error %v", err)
	}
	if res != nil {
		t.Errorf("a result after refusing: %+v", res)
	}
}

// TestTraceErrorsAreReported: a node that says it cannot write its trace
// shows in the warnings, the progress line and Result.TraceErrors.
func TestTraceErrorsAreReported(t *testing.T) {
	t.Setenv(launchtest.Env, "diskfull=2")
	path := writeScenario(t, 3, "1500ms", "")
	var progress syncBuffer
	res, err := launch(t, path, Options{Progress: &progress, ProgressEvery: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.TraceErrors) != 1 || !strings.Contains(res.TraceErrors[0], "node 2: trace") || !strings.Contains(res.TraceErrors[0], "no space left on device") {
		t.Fatalf("trace errors %q", res.TraceErrors)
	}
	p := progress.String()
	if !strings.Contains(p, "run: warning: cannot write a trace: node 2") || !strings.Contains(p, "1 traces not written (node 2") {
		t.Errorf("progress:\n%s", p)
	}
}

// syncBuffer is a strings.Builder safe for the launcher's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCtrlCLeavesNoChildren runs a launcher as a subprocess, as a user
// would, and interrupts it with SIGINT while its nodes run.
func TestCtrlCLeavesNoChildren(t *testing.T) {
	path := writeScenario(t, 4, "60s", "")
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], path)
	cmd.Env = append(os.Environ(), envLauncher+"="+dir)
	stderr, _ := cmd.StderrPipe()
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		checkNothingLeft(t, dir, "sigint", nil)
	})
	// Wait for the first progress line: every process is ready by then.
	sc := bufio.NewScanner(stderr)
	var log []string
	for sc.Scan() {
		log = append(log, sc.Text())
		if strings.HasPrefix(sc.Text(), "run: ") {
			break
		}
	}
	pids := launchtest.PIDs(dir)
	if len(pids) != 4 {
		t.Fatalf("%d fake nodes recorded, want 4; launcher said %q", len(pids), log)
	}
	cmd.Process.Signal(os.Interrupt)
	go func() {
		for sc.Scan() {
		}
	}()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || out.String() != "interrupted\n" {
		t.Fatalf("launcher: %v, output %q", err, out.String())
	}
	for _, pid := range pids {
		if launchtest.Running(pid) {
			t.Errorf("node pid %d survived Ctrl-C", pid)
		}
	}
	if _, err := report.Summarize(dir); err != nil {
		t.Errorf("no summary after Ctrl-C: %v", err)
	}
}

func TestFormatIDs(t *testing.T) {
	for _, tc := range []struct {
		in   []protocol.NodeID
		want string
	}{
		{[]protocol.NodeID{1}, "1"},
		{[]protocol.NodeID{3, 1, 2}, "1-3"},
		{[]protocol.NodeID{1, 2, 3, 5, 7, 8, 10}, "1-3,5,7-8,10"},
	} {
		if got := FormatIDs(tc.in); got != tc.want {
			t.Errorf("FormatIDs(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPlanSpreadsProcessesOverHosts(t *testing.T) {
	s, err := scenario.Parse([]byte("nodes: {count: 12}\n"), "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range plan(s, 2, 3) {
		got = append(got, fmt.Sprintf("%s@%d", FormatIDs(g.ids), g.host))
	}
	if want := "1-2@0 3-4@0 5-6@1 7-8@1 9-10@2 11-12@2"; strings.Join(got, " ") != want {
		t.Errorf("plan %q, want %q", got, want)
	}
}

func regexpMatch(pattern, s string) bool {
	return regexp.MustCompile(`(?s)` + pattern).MatchString(s)
}

// TestUsage sums the node processes and keeps the player apart.
func TestUsage(t *testing.T) {
	r := &Result{Elapsed: 10 * time.Second, Procs: []ProcStats{
		{Name: "node 1", CPU: 3 * time.Second, User: 1 * time.Second, Sys: 2 * time.Second, MaxRSS: 10 << 20},
		{Name: "node 2", CPU: 1 * time.Second, User: 1 * time.Second, MaxRSS: 20 << 20},
		{Name: "player", CPU: 5 * time.Second, MaxRSS: 7 << 20},
	}}
	u := r.Usage()
	want := Usage{NodeProcesses: 2, Elapsed: 10 * time.Second, CPU: 4 * time.Second, User: 2 * time.Second, Sys: 2 * time.Second,
		CPUMean: 2 * time.Second, CPUMax: 3 * time.Second, RSSMean: 15 << 20, RSSMax: 20 << 20, PlayerCPU: 5 * time.Second, PlayerRSS: 7 << 20}
	if u != want {
		t.Errorf("usage %+v, want %+v", u, want)
	}
	if u := (&Result{}).Usage(); u != (Usage{}) {
		t.Errorf("no processes: %+v", u)
	}
	if u := (&Result{Procs: []ProcStats{{Name: "player", CPU: time.Second}}}).Usage(); u.NodeProcesses != 0 || u.PlayerCPU != time.Second {
		t.Errorf("player only: %+v", u)
	}
}

// TestChildEnv: children run with GOMAXPROCS=1 unless the launcher's
// environment says otherwise.
func TestChildEnv(t *testing.T) {
	env := []string{"HOME=/root", "PATH=/bin"}
	got := childEnv(env)
	if !slices.Equal(got, []string{"HOME=/root", "PATH=/bin", "GOMAXPROCS=1"}) {
		t.Errorf("childEnv %q", got)
	}
	if len(env) != 2 || !slices.Equal(env, []string{"HOME=/root", "PATH=/bin"}) {
		t.Errorf("the launcher's environment changed: %q", env)
	}
	set := []string{"GOMAXPROCS=4", "PATH=/bin"}
	if got := childEnv(set); !slices.Equal(got, set) {
		t.Errorf("with GOMAXPROCS set: %q", got)
	}
}

// denseFaults is a fault schedule of n faults from 100 ms, every step:
// crash [2, 3], then recover [2, 3], and so on.
func denseFaults(n int, step time.Duration) string {
	var b strings.Builder
	b.WriteString("faults:\n")
	for i := range n {
		at := 100*time.Millisecond + time.Duration(i)*step
		if i%2 == 0 {
			fmt.Fprintf(&b, "  - {at: %s, crash: [2, 3]}\n", at)
		} else {
			fmt.Fprintf(&b, "  - {at: %s, recover: [2, 3]}\n", at)
		}
	}
	return b.String()
}

// startedAfter lists the fake processes that recorded their PID after t
// plus slack (the time a started process takes to get there).
func startedAfter(dir string, t time.Time, slack time.Duration) []string {
	es, _ := os.ReadDir(filepath.Join(dir, launchtest.PIDDir))
	var late []string
	for _, e := range es {
		if fi, err := e.Info(); err == nil && fi.ModTime().After(t.Add(slack)) {
			late = append(late, fmt.Sprintf("pid %s at %s", e.Name(), fi.ModTime().Sub(t)))
		}
	}
	return late
}

// TestDenseFaultScheduleEndsWithTheRun: 2,000 faults in a 3 s run, far
// more than restarts can keep up with. The run ends near its end (within
// 30 s, whatever the machine's load: the launcher used to apply the whole
// schedule, a restart at a time, for 4 minutes after the end), records no
// crash or recovery at or after its end, starts no process after it, and
// says once how many faults it did not apply.
func TestDenseFaultScheduleEndsWithTheRun(t *testing.T) {
	path := writeScenario(t, 3, "3s", denseFaults(2000, 1450*time.Microsecond))
	start := time.Now()
	res, err := launch(t, path, Options{Grace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("a 3 s run took %s", el)
	}
	if res.Interrupted || res.Elapsed != 3*time.Second {
		t.Errorf("result %+v", res)
	}
	if !regexpMatch(`^\d+ faults of 2000 not applied: the run ended at 3s before the launcher reached them \(the first: the fault at [0-9.]+m?s\)$`, res.Unapplied) {
		t.Errorf("unapplied: %q", res.Unapplied)
	}
	run, err := analysis.ReadDir(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	faults := 0
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			faults++
			if e.T >= int64(3*time.Second) {
				t.Errorf("%s of node %d recorded at %s, at or after the end", e.Ev, e.Node, time.Duration(e.T))
			}
		}
	}
	if faults == 0 {
		t.Error("no fault applied")
	}
	if late := startedAfter(res.Dir, res.Start.Add(3*time.Second), time.Second); len(late) > 0 {
		t.Errorf("processes started after the end: %s", strings.Join(late, ", "))
	}
}

// TestCancelStopsADenseFaultSchedule: a 60 s run with a fault every 5 ms,
// cancelled at its first progress line (every process is ready by then,
// and the schedule under way): the launcher returns within a few seconds
// (it used to go on starting processes), starts none after the
// cancellation, and says that the rest of the schedule was not applied.
func TestCancelStopsADenseFaultSchedule(t *testing.T) {
	path := writeScenario(t, 3, "60s", denseFaults(1000, 5*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cw := &cancelWriter{cancel: cancel}
	res, err := launchCtx(ctx, t, path, Options{Grace: 500 * time.Millisecond, Progress: cw})
	cancelled := cw.at()
	if err != nil {
		t.Fatal(err)
	}
	if cancelled.IsZero() {
		t.Fatal("no progress line")
	}
	if el := time.Since(cancelled); el > 20*time.Second {
		t.Errorf("returned %s after the cancellation", el)
	}
	if !res.Interrupted || !regexpMatch(`^\d+ faults of 1000 not applied: the run was interrupted at [0-9.]+m?s before the launcher reached them`, res.Unapplied) {
		t.Errorf("interrupted %v, unapplied %q", res.Interrupted, res.Unapplied)
	}
	if late := startedAfter(res.Dir, cancelled, 500*time.Millisecond); len(late) > 0 {
		t.Errorf("processes started after the cancellation: %s", strings.Join(late, ", "))
	}
	run, err := analysis.ReadDir(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range run.RunEvents {
		if (e.Ev == trace.EvCrash || e.Ev == trace.EvRecover) && e.T > int64(res.Elapsed) {
			t.Errorf("%s of node %d recorded at %s, after the end %s", e.Ev, e.Node, time.Duration(e.T), res.Elapsed)
		}
	}
}

// cancelWriter calls cancel at the first progress line written to it,
// and remembers when.
type cancelWriter struct {
	mu     sync.Mutex
	cancel func()
	when   time.Time
}

func (c *cancelWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.when.IsZero() && regexp.MustCompile(`(?m)^run: \d`).Match(p) {
		c.when = time.Now()
		c.cancel()
	}
	return len(p), nil
}

func (c *cancelWriter) at() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.when
}

// waitForPIDs waits until n fakes have recorded their PIDs in dir.
func waitForPIDs(t *testing.T, dir string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(launchtest.PIDs(dir)) < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d fakes recorded in %s, want %d", len(launchtest.PIDs(dir)), dir, n)
		}
	}
}

// TestOneRunPerOutDirectory: while a run holds its --out, a second one on
// it is refused, naming the holder; after it, a new run is refused
// because the directory holds the first one's traces, unless Replace,
// which starts afresh (one start per node trace, not two).
func TestOneRunPerOutDirectory(t *testing.T) {
	path := writeScenario(t, 3, "1500ms", "")
	out := t.TempDir()
	first := make(chan error, 1)
	go func() {
		_, err := launch(t, path, Options{Out: out, Run: "first"})
		first <- err
	}()
	waitForPIDs(t, out, 3)
	_, err := launch(t, path, Options{Out: out, Run: "second"})
	if err == nil || !regexpMatch(`^run: output directory .* is in use by another run \(pid \d+ holds its lock .*run.lock\): wait for it to end, or choose another --out$`, err.Error()) {
		t.Errorf("a second run at the same time: %v", err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	_, err = launch(t, path, Options{Out: out, Run: "third"})
	if err == nil || !strings.Contains(err.Error(), `already holds the files of run "first" (faults.jsonl, node-1.jsonl, node-2.jsonl, node-3.jsonl, run.jsonl and 1 more): a new run would mix its traces with them; choose another --out, or pass --replace to remove them first`) {
		t.Errorf("a run after another: %v", err)
	}
	// A run --hosts leaves its hosts' logs in log/hosts/NAME/: --replace
	// removes them too.
	hostLogs := filepath.Join(out, "log", "hosts", "h1")
	os.MkdirAll(hostLogs, 0o755)
	os.WriteFile(filepath.Join(hostLogs, "node-1.log"), []byte("old\n"), 0o644)
	if _, err := launch(t, path, Options{Out: out, Run: "fourth", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(hostLogs); err == nil {
		t.Errorf("--replace left %s", hostLogs)
	}
	run, err := analysis.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if run.Header.Run != "fourth" {
		t.Errorf("run file of %q", run.Header.Run)
	}
	for id, evs := range run.Nodes {
		starts := 0
		for _, e := range evs {
			if e.Ev == trace.EvStart {
				starts++
			}
		}
		if starts != 1 {
			t.Errorf("node %d's trace has %d starts after --replace, want 1", id, starts)
		}
	}
}

// TestEveryProcessReadsTheScenarioCopy: the processes read the copy of the
// scenario written into --out at the start, recoveries included: node 2,
// restarted after the scenario file was edited to add a fourth (better)
// node, still follows node 3, and no process got --set overrides (they are
// in the copy).
func TestEveryProcessReadsTheScenarioCopy(t *testing.T) {
	path := writeScenario(t, 3, "2500ms", "faults: [{at: 600ms, crash: [2]}, {at: 1500ms, recover: [2]}]\n")
	out := t.TempDir()
	done := make(chan error, 1)
	go func() {
		_, err := launch(t, path, Options{Out: out, Sets: []string{"radio.range=300"}})
		done <- err
	}()
	waitForPIDs(t, out, 3)
	edited := strings.Replace(mustRead(t, path), "count: 3", "count: 4", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(out, ScenarioFileName)
	if c := mustRead(t, copyPath); !strings.Contains(c, "range: 300") || !strings.Contains(c, "count: 3") {
		t.Errorf("the copy:\n%s", c)
	}
	lines := strings.Split(strings.TrimSpace(mustRead(t, filepath.Join(out, launchtest.ArgsLog))), "\n")
	if len(lines) != 4 {
		t.Errorf("%d node starts, want 4 (3 and a recovery)", len(lines))
	}
	for _, l := range lines {
		if !strings.Contains(l, "--scenario "+copyPath+" ") || strings.Contains(l, "--set") {
			t.Errorf("command line %q: want --scenario %s and no --set", l, copyPath)
		}
	}
	run, err := analysis.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var leaders []string
	for _, e := range run.Nodes[2] {
		if e.Ev == string(protocol.NoteLeader) {
			leaders = append(leaders, fmt.Sprint(e.Leader))
		}
	}
	if got := strings.Join(leaders, " "); got != "3 3" {
		t.Errorf("node 2 followed %q, want \"3 3\" (the restart read the edited file?)", got)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNodeThatCannotStartOnAFullDiskSaysWhy: node 3's log cannot be
// written (a character device that answers every write with ENOSPC, as
// /dev/full does, stands for a full disk), and node 3 fails before it is
// ready: the error still quotes what it said on standard error, and says
// why its log lacks it.
func TestNodeThatCannotStartOnAFullDiskSaysWhy(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating a device node (a stand-in for a full disk) needs root")
	}
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "log"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(out, "log", "node-3.log"), syscall.S_IFCHR|0o644, 1<<8|7); err != nil {
		t.Skipf("mknod (a /dev/full): %v", err)
	}
	t.Setenv(launchtest.Env, "fail=3")
	path := writeScenario(t, 3, "30s", "")
	_, err := launch(t, path, Options{Out: out, ReadyTimeout: 5 * time.Second, Grace: 500 * time.Millisecond})
	want := `node 3 \(pid \d+\) exited before it was ready: exit status 1; its log .*/log/node-3.log could not be written \(write .*: no space left on device\); its standard error ends:\n  manetlab: fake: told to fail$`
	if err == nil || !regexpMatch(want, err.Error()) {
		t.Fatalf("error %v\nwant %s", err, want)
	}
}

// TestFailedRecoveryIsReported: node 2's restart fails: the run goes on,
// the failure names the recovery and what the node said, and the run file
// records the crash and no recovery, so the summary has node 2 down at
// the end rather than as if no fault happened.
func TestFailedRecoveryIsReported(t *testing.T) {
	t.Setenv(launchtest.Env, "failrestart=2")
	path := writeScenario(t, 3, "2s", "faults: [{at: 500ms, crash: [2]}, {at: 1s, recover: [2]}]\n")
	res, err := launch(t, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || !regexpMatch(`^the recovery of node 2 at 1(\.\d+)?s failed, it stayed down: node 2 \(pid \d+\) exited before it was ready: exit status 1; its log .* ends:\n(.|\n)*manetlab: fake: told to fail$`, res.Failures[0]) {
		t.Fatalf("failures %q", res.Failures)
	}
	sum, err := report.Summarize(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var faults []string
	for _, m := range sum.Timeline {
		if m.Event != "" {
			faults = append(faults, m.Event)
		}
	}
	if sum.Alive != 2 || len(faults) != 1 || !strings.HasPrefix(faults[0], "node 2 crashed") {
		t.Errorf("summary: %d alive, faults %q", sum.Alive, faults)
	}
}

// checkFaultsRecord: the faults record of dir holds the run file's faults
// (events), in order, at the same real times, each with the host that
// applied it.
func checkFaultsRecord(t *testing.T, dir string, events []trace.Event) {
	t.Helper()
	recs, err := trace.ReadFaults(trace.FaultsFile(dir), func(protocol.NodeID) bool { return true }, 2500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var ri int
	for _, e := range events {
		if e.Ev != trace.EvCrash && e.Ev != trace.EvRecover && e.Ev != trace.EvCut && e.Ev != trace.EvHeal {
			continue
		}
		if ri >= len(recs) || recs[ri].Node != e.Node || recs[ri].Ev != e.Ev || recs[ri].T != e.T || recs[ri].Peer != e.Peer || recs[ri].Host == "" {
			t.Errorf("faults record %+v does not match the run file's %s of node %d at %d", recs, e.Ev, e.Node, e.T)
			return
		}
		ri++
	}
	if ri != len(recs) {
		t.Errorf("faults record %+v, run file has %d faults", recs, ri)
	}
}
