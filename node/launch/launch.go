// Package launch runs a scenario with real node processes on this machine:
// the mobility player and one `manetlab node` process per node (or per K
// nodes), all started against a common start time; it applies the fault
// schedule by killing and restarting node processes, stops everything at
// the end of the scenario, on a failure or on Ctrl-C, and writes the run
// file, so that the run directory reads like one from the simulator.
//
// Every child runs in a process group of its own and is reaped; the
// launcher never leaves a process behind, whatever happens.
//
// It imports node (the run file), protocol, scenario and trace; it starts
// node processes and never runs a protocol itself.
package launch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"manetlab/internal/safefs"
	"manetlab/node"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// Options say how to launch a run. Zero values are sensible defaults
// except for Scenario and Out.
type Options struct {
	// Scenario is the scenario file the launcher read (with Sets), for
	// messages. The children read none of it: they read the copy of the
	// scenario as the launcher resolved it (Sets, seed and defaults
	// applied) written into Out at the start (ScenarioFileName), recoveries
	// included, so that an edit of the file during the run changes nothing.
	Scenario string
	Sets     []string
	// Replace lets a run use an Out that holds another run's files (run
	// file, traces, stores, scenario copy): they and the old logs are
	// removed first. Without it such a directory is refused.
	Replace bool
	// Out is the run directory: node traces, run.jsonl, and log/ with
	// each process's standard error.
	Out string
	// Run names the run; frames of other runs are ignored by the nodes.
	Run string
	// IDsPerProcess is how many nodes one process hosts (default 1).
	// Nodes named in the fault schedule get a process each regardless.
	IDsPerProcess int
	// Group, Control, Iface, KeyFile are passed on when not empty; TTL
	// when not negative.
	Group, Control, Iface, KeyFile string
	TTL                            int
	// MaxOffset is passed on as --max-offset when not zero.
	MaxOffset time.Duration
	// Dilation, above 1, runs every process in dilated time (passed on
	// as --dilation; node.Options.Dilation): the fault schedule is
	// applied at the model's times, Dilation times later on the wall
	// clock, and the run lasts Dilation times the scenario's duration.
	// The start delay, ready timeouts, grace and progress stay wall time.
	Dilation int
	// Machine, when not nil, replaces what scenario.ReadMachine reads of
	// this machine's limits (tests).
	Machine *scenario.Machine
	// Command is the manetlab binary and any leading arguments (default:
	// this executable). Tests point it at a fake node.
	Command []string
	// Wrap, when not empty, lists command prefixes, one per host, that
	// node processes run under (e.g. "ip netns exec h1"); processes are
	// spread over them in contiguous blocks, and the player runs under
	// the first.
	Wrap [][]string
	// StartDelay is how far ahead of the moment every process was ready
	// the common start time is set (default 500ms plus 5ms per process):
	// the readiness handshake. Every process is started with
	// --start-stdin, prints its ready line once its sockets and traces
	// are open, and only then is the start chosen and written to each
	// one's standard input, so a process cannot start late for having
	// been slow to start: the lead only carries the start line.
	StartDelay time.Duration
	// ReadyTimeout bounds the wait for every "ready" line (default 10s
	// plus 100ms per process).
	ReadyTimeout time.Duration
	// Grace is how long processes get to exit by themselves at the end,
	// and then after SIGTERM, before SIGKILL (default 3s).
	Grace time.Duration
	// Progress, when not nil, receives a line every ProgressEvery (default
	// 5s): elapsed/duration and processes alive; and warnings.
	Progress      io.Writer
	ProgressEvery time.Duration

	// The fields below serve a launcher that runs a share of a run
	// spread over several machines (`manetlab launch`, started by
	// `run --hosts` on each host).

	// Start, when not zero, is the common start time (else now plus
	// StartDelay once every process is ready). A Start already past
	// when every process is ready is refused.
	Start time.Time
	// StartLater, when not nil, gives the start instead (Start is
	// ignored): once every process is ready the launcher calls Ready and
	// waits for the start on it, chosen by whoever runs the other
	// launchers of the run (run --hosts, once every host was ready). A
	// channel closed first stops the run before its start.
	StartLater <-chan time.Time
	// IDs, when not nil, are the only nodes this launcher runs; it
	// applies the faults of these nodes only.
	IDs []protocol.NodeID
	// NoPlayer leaves the mobility player to another launcher.
	NoPlayer bool
	// TraceSink, when not empty, is passed to the nodes as --trace-sink:
	// they stream their traces to that collector.
	TraceSink string
	// Host names this machine in the faults record (Out's
	// trace.FaultsFileName, one trace.FaultRecord per crash or recovery
	// applied, as it is applied); empty: the machine's host name.
	Host string
	// Ready, when not nil, is called once every process has printed its
	// ready line, before the start is chosen (StartLater).
	Ready func(Readiness)
	// Manual, when not nil, takes faults by hand during the run (run
	// --live): each is applied when it comes as a scheduled one is (a
	// crash kills the node's process, a recovery starts it again) and
	// recorded alike, in the run file and the faults record; its Done
	// gets nil once it is applied, or why it was not.
	Manual <-chan ManualFault
	// Applied, when not nil, is called with every fault as it is
	// applied, scheduled or by hand (a host's launcher reports them home
	// for the live page).
	Applied func(trace.FaultRecord)
}

// ManualFault is a crash (or, with Recover, a recovery) of one node by
// hand; with Peer, a cut of the link between Node and Peer (with
// Recover, its healing). Done (buffered) gets the outcome.
type ManualFault struct {
	Node    protocol.NodeID
	Peer    protocol.NodeID
	Recover bool
	// Sides, when set instead of Node and Peer, cut (or heal) every
	// link between a node of Sides[0] and a node of Sides[1]: two hosts
	// cut apart. Halves already so are left as they are.
	Sides [2][]protocol.NodeID
	// Hosts, when set instead, names two hosts of run --hosts to cut
	// apart (or heal): home turns it into Sides.
	Hosts [2]string
	Done  chan error
}

// Readiness is how the processes of a launcher became ready: how many,
// how long from the first start to the last ready line, and the
// machine's load then (node.MachineLoad).
type Readiness struct {
	Procs int           `json:"procs"`
	Took  time.Duration `json:"took_ns"`
	Load  string        `json:"load,omitempty"`
}

// Result is what a launch did.
type Result struct {
	Dir, Run string
	// Start is the common start time handed to every process.
	Start time.Time
	// Elapsed is the run time from Start to the end written in run.jsonl
	// (the model's time); Wall is the same on the host's clock, Dilation
	// times as long.
	Elapsed, Wall time.Duration
	Dilation      int
	// Interrupted is true when the context was cancelled (Ctrl-C).
	Interrupted bool
	// Procs describes every process, the player last.
	Procs []ProcStats
	// TraceErrors lists the traces the nodes could not write (a full
	// disk), one line each, as the nodes reported them.
	TraceErrors []string
	// Failures lists node processes that ended on their own with an
	// error before the end of the run.
	Failures []string
	// RunFile, when the run file could not be written at the end (a full
	// disk; Run's error says why), holds its events as they would have
	// been written, for a summary of the run as it went
	// (trace.WithRunFile): the file on disk is then the provisional one,
	// without the faults applied.
	RunFile []trace.Event
	// Deadlines says how late the launcher's own checks came (every
	// 250 ms): the figure of an overloaded machine.
	Deadlines Deadlines
	// Unapplied, when not empty, says how many faults of the schedule
	// were not applied because the run ended (or was interrupted) before
	// the launcher reached them, naming the first: no process is started
	// or killed for a fault after the end or after cancellation.
	Unapplied string
}

// ProcStats is one process's resource use, summed over its restarts.
type ProcStats struct {
	Name string            `json:"name"`
	IDs  []protocol.NodeID `json:"ids,omitempty"`
	// Host numbers the --wrap prefix the process ran under from 1, as
	// the testbed numbers its hosts (mlh<PID>-1...); 1 without prefixes.
	Host int   `json:"host"`
	PIDs []int `json:"pids"`
	// CPU is User plus Sys, the process's user and system CPU time.
	CPU    time.Duration `json:"cpu_ns"`
	User   time.Duration `json:"user_ns"`
	Sys    time.Duration `json:"sys_ns"`
	MaxRSS int64         `json:"max_rss_bytes"`
	Wall   time.Duration `json:"wall_ns"`
	Exit   string        `json:"exit"`
}

// proc is one process slot: a group of nodes (or the player), run by one
// instance at a time.
type proc struct {
	group
	log   string // file receiving the process's stdout after ready, and stderr
	inst  *instance
	stats ProcStats
	// errTail keeps the end of the current instance's standard error in
	// memory too, for when its log cannot be written (a full disk).
	errTail *logTee
}

// logTee is a process's standard error: written to its log file, and its
// last tailBytes kept in memory. Writing it never fails (a failing log
// would stop the copy and block the process on a full pipe): the log's
// first error is kept instead.
type logTee struct {
	mu   sync.Mutex
	f    *os.File
	tail []byte
	err  error
}

const tailBytes = 4096

func (t *logTee) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tail = append(t.tail, b...)
	if len(t.tail) > tailBytes {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-tailBytes:]...)
	}
	if t.err == nil {
		if _, err := t.f.Write(b); err != nil {
			t.err = err
		}
	}
	return len(b), nil
}

// state is the kept tail and the log's error, if any.
func (t *logTee) state() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.tail), t.err
}

// instance is one OS process of a slot.
type instance struct {
	cmd     *exec.Cmd
	started time.Time
	first   chan struct{} // closed once the first stdout line (or EOF) is read
	line    string        // the first line, valid after first is closed
	done    chan struct{} // closed once the process is reaped
	err     error         // Wait's result, valid after done is closed
	// stdin takes the start line of the readiness handshake (nil once
	// the start is known: the process was given --start).
	stdin io.WriteCloser
	// ctl is a node process's standard input after the start: faults by
	// hand (--control-stdin); its answers come on answers.
	ctl     io.WriteCloser
	answers chan string
}

type launcher struct {
	opt   Options
	s     *scenario.Scenario
	procs []*proc // nodes, then the player
	byID  map[protocol.NodeID]*proc
	// down holds the nodes crashed by hand inside a process they share
	// with others (the process runs on); cuts the halves of links cut by
	// hand: {a, b} when a's radio drops b's frames (manual.go).
	down  map[protocol.NodeID]bool
	cuts  map[[2]protocol.NodeID]bool
	start time.Time
	// scenario is the copy of the scenario every process reads.
	scenario string

	// faults is the record of the faults applied (trace.FaultsFileName).
	faults *faultLog

	mu        sync.Mutex
	traceErrs []string // "node N: error", in the order reported
}

// noteTraceError records a node's "trace-error ID ERR" line; the
// supervisor warns of it.
func (l *launcher) noteTraceError(line string) {
	f := strings.SplitN(strings.TrimPrefix(line, node.TraceErrorPrefix+" "), " ", 2)
	msg := "node " + strings.Join(f, ": ") + " (its trace ends there)"
	l.mu.Lock()
	l.traceErrs = append(l.traceErrs, msg)
	l.mu.Unlock()
}

// traceErrors returns the trace errors reported so far.
func (l *launcher) traceErrors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.traceErrs)
}

// Run launches scenario s (read from opt.Scenario) and returns when every
// process has exited: at the end of the run, when ctx is cancelled, or on
// a failure to start. It writes run.jsonl unless the processes could not
// all be started. On any return, no child is left running.
func Run(ctx context.Context, s *scenario.Scenario, opt Options) (*Result, error) {
	if opt.Out == "" || opt.Run == "" || opt.Scenario == "" {
		return nil, errors.New("launch: Options need Scenario, Out and Run")
	}
	if len(opt.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("launch: find this executable: %w", err)
		}
		opt.Command = []string{exe}
	}
	if err := s.CheckTopology(); err != nil {
		return nil, err
	}
	if opt.Grace <= 0 {
		opt.Grace = 3 * time.Second
	}
	if opt.Dilation < 1 {
		opt.Dilation = 1
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 5 * time.Second
	}
	if err := trace.CheckOutDir(opt.Out); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if err := safefs.MkdirAll(filepath.Join(opt.Out, "log")); err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	// One run at a time in a directory, and never on top of another's
	// files: two runs would append to the same traces.
	lock, err := lockOut(opt.Out)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	defer lock.Close()
	if err := clearOut(opt.Out, opt.Replace); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	l := &launcher{opt: opt, s: s, byID: map[protocol.NodeID]*proc{}}
	groups, err := planIDs(s, opt.IDs, opt.IDsPerProcess, len(opt.Wrap))
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	for _, g := range groups {
		p := &proc{group: g}
		l.procs = append(l.procs, p)
		for _, id := range g.ids {
			l.byID[id] = p
		}
	}
	if !opt.NoPlayer {
		l.procs = append(l.procs, &proc{}) // the player, on the first host
	}
	// One machine runs them all unless --wrap spreads them over hosts
	// that share it anyway (network namespaces).
	m := opt.Machine
	if m == nil {
		rm := scenario.ReadMachine()
		m = &rm
	}
	if err := scenario.CheckProcesses(len(l.procs), scenario.NodeProcessBytes, *m); err != nil {
		return nil, fmt.Errorf("launch: %s: %w", opt.Scenario, err)
	}
	if l.opt.StartDelay <= 0 {
		// Every process is ready and waits for its start line: the
		// lead only has to see each one scheduled, which a loaded
		// machine (load average 25 on 2 cores) may take a few hundred
		// ms to do.
		l.opt.StartDelay = 500*time.Millisecond + time.Duration(len(l.procs))*5*time.Millisecond
	}
	if l.opt.ReadyTimeout <= 0 {
		l.opt.ReadyTimeout = 10*time.Second + time.Duration(len(l.procs))*100*time.Millisecond
	}
	if l.scenario, err = writeScenarioCopy(opt.Out, s); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if !opt.Start.IsZero() && opt.StartLater == nil {
		if late := time.Since(opt.Start); late >= 0 {
			return nil, fmt.Errorf("launch: the start time passed %s ago, before any process was started: give the run more lead (--start-delay)", late.Round(time.Millisecond))
		}
	}
	for _, p := range l.procs {
		p.log = filepath.Join(opt.Out, "log", strings.ReplaceAll(p.name(), " ", "-")+".log")
		p.stats = ProcStats{Name: p.name(), IDs: p.ids, Host: p.host + 1}
	}
	res := &Result{Dir: opt.Out, Run: opt.Run}
	defer func() { res.Procs = l.stats() }()

	// A provisional run file, replaced at the end: if the traces fill
	// the disk, the run can still be summarised from what they hold.
	if err := node.WriteRunFile(opt.Out, s, opt.Run, nil, 0); err != nil {
		return res, fmt.Errorf("launch: %w", err)
	}
	if l.faults, err = openFaultLog(opt.Out, opt.Host); err != nil {
		return res, fmt.Errorf("launch: %w", err)
	}
	if err := l.startAll(ctx); err != nil {
		l.killAll() // nothing gathered yet that a graceful stop would save
		l.faults.close()
		return res, err
	}
	res.Start = l.start
	sv := l.supervise(ctx)
	if err := l.faults.close(); err != nil {
		l.warn("the faults record %s could not be written (the run file records the faults): %v", trace.FaultsFile(opt.Out), err)
	}
	events, end := sv.events, sv.end
	res.Interrupted, res.Failures, res.Elapsed, res.Unapplied = sv.interrupted, sv.failures, end, sv.unapplied
	res.Deadlines = sv.deadlines
	res.Dilation, res.Wall = opt.Dilation, end*time.Duration(opt.Dilation)
	res.TraceErrors = l.traceErrors()
	if err := node.WriteRunFile(opt.Out, s, opt.Run, events, end); err != nil {
		if evs, eerr := node.RunFileEvents(s, opt.Run, events, end); eerr == nil {
			res.RunFile = evs
		}
		return res, err
	}
	return res, nil
}

// args are the command line of p's processes: before the start is
// chosen, with --start-stdin (the readiness handshake); after it (a
// recovery), with --start.
func (l *launcher) args(p *proc) []string {
	o := l.opt
	var a []string
	if p.ids == nil {
		a = []string{"mobility", "play", l.scenario, "--run", o.Run}
	} else {
		a = []string{"node", "--scenario", l.scenario}
		if len(p.ids) == 1 {
			a = append(a, "--id", strconv.FormatUint(uint64(p.ids[0]), 10))
		} else {
			a = append(a, "--ids", FormatIDs(p.ids))
		}
		a = append(a, "--out", o.Out, "--run", o.Run)
	}
	if p.ids != nil {
		a = append(a, "--control-stdin")
	}
	if l.start.IsZero() {
		a = append(a, "--start-stdin")
	} else {
		a = append(a, "--start", strconv.FormatInt(l.start.UnixNano(), 10))
	}
	a = append(a, "--seed", strconv.FormatUint(l.s.Seed, 10))
	if o.Group != "" && p.ids != nil {
		a = append(a, "--group", o.Group)
	}
	for _, f := range [][2]string{{"--control", o.Control}, {"--iface", o.Iface}, {"--key-file", o.KeyFile}} {
		if f[1] != "" {
			a = append(a, f[0], f[1])
		}
	}
	if o.TTL >= 0 {
		a = append(a, "--ttl", strconv.Itoa(o.TTL))
	}
	if o.MaxOffset != 0 && p.ids != nil {
		a = append(a, "--max-offset", o.MaxOffset.String())
	}
	if o.Dilation > 1 {
		a = append(a, "--dilation", strconv.Itoa(o.Dilation))
	}
	if o.TraceSink != "" && p.ids != nil {
		a = append(a, "--trace-sink", o.TraceSink)
	}
	if o.Host != "" && p.ids != nil {
		a = append(a, "--host", o.Host)
	}
	// The copy has the overrides applied (Sets): they are not passed.
	return a
}

// childEnv is the environment of the processes launched: the launcher's,
// with GOMAXPROCS=1 unless it sets GOMAXPROCS. A node process's work is
// one loop and its socket readers; on one P they hand batches over without
// waking other threads, which cost a node 25-30 % more CPU per received
// frame (BenchmarkReceiveBurst: 5.1-5.2 against 6.8-7.5 µs) and 50 node
// processes 15-20 % more CPU in all (issue 15). A process hosting many
// nodes on a machine with cores to spare may be given more by setting
// GOMAXPROCS for the launcher.
func childEnv(environ []string) []string {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return environ
		}
	}
	return append(slices.Clip(environ), "GOMAXPROCS=1")
}

// spawn starts a new instance of p.
func (l *launcher) spawn(p *proc) error {
	argv := slices.Concat(l.opt.Command, l.args(p))
	if len(l.opt.Wrap) > 0 {
		argv = slices.Concat(l.opt.Wrap[p.host], argv)
	}
	logf, err := trace.OpenNoFollow(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("%s: %w", p.name(), err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = childEnv(os.Environ())
	tee := &logTee{f: logf}
	p.errTail = tee
	cmd.Stderr = tee
	// Through a pipe now: should anything the process started keep its
	// standard error open after it exits, Wait stops waiting for it.
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return fmt.Errorf("%s: %w", p.name(), err)
	}
	var stdin io.WriteCloser
	if l.start.IsZero() || p.ids != nil {
		if stdin, err = cmd.StdinPipe(); err != nil {
			logf.Close()
			return fmt.Errorf("%s: %w", p.name(), err)
		}
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("%s: start %s: %w", p.name(), argv[0], err)
	}
	in := &instance{cmd: cmd, started: time.Now(), first: make(chan struct{}), done: make(chan struct{}), answers: make(chan string, 1)}
	if l.start.IsZero() {
		in.stdin = stdin
	}
	if p.ids != nil {
		in.ctl = stdin
	}
	p.inst = in
	p.stats.PIDs = append(p.stats.PIDs, cmd.Process.Pid)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			in.line = sc.Text()
		}
		close(in.first)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), node.TraceErrorPrefix+" ") {
				l.noteTraceError(sc.Text())
			}
			if a, ok := strings.CutPrefix(sc.Text(), node.ControlDonePrefix+" "); ok {
				select {
				case in.answers <- a:
				default: // nobody asked: a stray line
				}
				continue
			}
			tee.Write(append(sc.Bytes(), '\n'))
		}
		io.Copy(tee, stdout) // a line too long for the scanner: keep draining
		in.err = cmd.Wait()
		logf.Close()
		close(in.done)
	}()
	return nil
}

// awaitReady waits until p's current instance prints "ready <pid>", or
// fails naming p.
func (l *launcher) awaitReady(ctx context.Context, p *proc, timeout <-chan time.Time) error {
	in := p.inst
	pid := in.cmd.Process.Pid
	select {
	case <-in.first:
	case <-timeout:
		return fmt.Errorf("%s (pid %d) did not print \"ready <pid>\" within %s%s", p.name(), pid, l.opt.ReadyTimeout, l.tail(p))
	case <-ctx.Done():
		return fmt.Errorf("interrupted while %s (pid %d) was starting", p.name(), pid)
	}
	f := strings.Fields(in.line)
	if len(f) == 2 && f[0] == "ready" {
		if _, err := strconv.Atoi(f[1]); err == nil {
			return nil
		}
	}
	if in.line == "" {
		// Closed stdout without a line: it exited (or is exiting).
		select {
		case <-in.done:
		case <-time.After(time.Second):
		}
		return fmt.Errorf("%s (pid %d) exited before it was ready: %v%s", p.name(), pid, in.err, l.tail(p))
	}
	return fmt.Errorf("%s (pid %d) printed %q, want \"ready <pid>\"%s", p.name(), pid, in.line, l.tail(p))
}

// tail is the end of p's log, to quote in an error; when the log could
// not be written (a full disk), the end of what the process wrote to
// standard error, kept in memory, and why the log lacks it.
func (l *launcher) tail(p *proc) string {
	last := func(b []byte) string {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) > 5 {
			lines = lines[len(lines)-5:]
		}
		return strings.Join(lines, "\n  ")
	}
	if p.errTail != nil {
		if kept, werr := p.errTail.state(); werr != nil {
			if len(strings.TrimSpace(kept)) == 0 {
				return fmt.Sprintf("; it wrote nothing to standard error, and its log %s could not be written: %v", p.log, werr)
			}
			return fmt.Sprintf("; its log %s could not be written (%v); its standard error ends:\n  %s", p.log, werr, last([]byte(kept)))
		}
	}
	b, err := os.ReadFile(p.log)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	return fmt.Sprintf("; its log %s ends:\n  %s", p.log, last(b))
}

// startAll starts every process, waits for each one's ready line, then
// chooses the start (or takes it from Options.Start or StartLater) and
// writes it to every process: the readiness handshake.
func (l *launcher) startAll(ctx context.Context) error {
	t0 := time.Now()
	for _, p := range l.procs {
		if err := ctx.Err(); err != nil {
			return errors.New("interrupted while starting processes")
		}
		if err := l.spawn(p); err != nil {
			return err
		}
	}
	timeout := time.After(l.opt.ReadyTimeout)
	for _, p := range l.procs {
		if err := l.awaitReady(ctx, p, timeout); err != nil {
			return err
		}
	}
	if l.opt.Ready != nil {
		l.opt.Ready(Readiness{Procs: len(l.procs), Took: time.Since(t0), Load: node.MachineLoad()})
	}
	switch {
	case l.opt.StartLater != nil:
		select {
		case t, ok := <-l.opt.StartLater:
			if !ok {
				return errors.New("stopped before the start was given")
			}
			l.start = t
		case <-ctx.Done():
			return errors.New("interrupted while waiting for the start")
		}
	case !l.opt.Start.IsZero():
		if late := time.Since(l.opt.Start); late >= 0 {
			return fmt.Errorf("launch: the start time passed %s ago, before every process was ready: give the run more lead (--start-delay)", late.Round(time.Millisecond))
		}
		l.start = l.opt.Start
	default:
		l.start = time.Now().Add(l.opt.StartDelay).Round(time.Millisecond)
	}
	line := fmt.Sprintf("start %d\n", l.start.UnixNano())
	for _, p := range l.procs {
		if in := p.inst; in.stdin != nil {
			// A process gone meanwhile is the supervisor's to notice.
			io.WriteString(in.stdin, line)
			if in.ctl == nil {
				in.stdin.Close()
			}
			in.stdin = nil
		}
	}
	return nil
}

// alive reports whether p has a running instance.
func alive(p *proc) bool {
	if p.inst == nil {
		return false
	}
	select {
	case <-p.inst.done:
		return false
	default:
		return true
	}
}

// reap accounts for p's instance, which has exited.
func (p *proc) reap() {
	in := p.inst
	<-in.done
	user, sys, rss := usage(in.cmd.ProcessState)
	p.stats.User += user
	p.stats.Sys += sys
	p.stats.CPU += user + sys
	p.stats.MaxRSS = max(p.stats.MaxRSS, rss)
	p.stats.Wall += time.Since(in.started)
	p.stats.Exit = exitString(in)
	p.inst = nil
}

func exitString(in *instance) string {
	if in.err == nil {
		return "exit 0"
	}
	var ee *exec.ExitError
	if errors.As(in.err, &ee) {
		return ee.ProcessState.String()
	}
	return in.err.Error()
}

// supervised is what supervise did: the crashes and recoveries applied,
// the end time for the run file, whether the run was interrupted, the
// processes that failed on their own, and the faults not applied.
type supervised struct {
	deadlines   Deadlines
	events      []trace.Event
	end         time.Duration
	interrupted bool
	failures    []string
	unapplied   string
}

// supervise runs the fault schedule until the end of the run or ctx is
// cancelled, then stops every process. The end and the cancellation are
// checked before every crash and every recovery, and a recovery still
// waiting for its process's ready line then is given up: however dense
// the schedule, no process is started or killed for a fault after the end
// of the run or after ctx is cancelled, and no fault is recorded after
// the end.
func (l *launcher) supervise(ctx context.Context) (sv supervised) {
	dur := l.s.Duration.D()
	// at is when model time t comes on the wall clock.
	k := time.Duration(l.opt.Dilation)
	at := func(t time.Duration) time.Time { return l.start.Add(t * k) }
	endTime := at(dur)
	// A recovery waits for its process's ready line at most until the end.
	runCtx, stopRun := context.WithDeadline(ctx, endTime)
	defer stopRun()
	over := func() bool { return ctx.Err() != nil || !time.Now().Before(endTime) }
	faults := l.ownFaults()
	slices.SortStableFunc(faults, func(a, b scenario.Fault) int { return int(a.At.D() - b.At.D()) })
	next := 0
	check := time.NewTicker(250 * time.Millisecond)
	defer check.Stop()
	lastProgress := time.Now()
	endAt := time.NewTimer(time.Until(endTime))
	defer endAt.Stop()
	faultTimer := time.NewTimer(time.Hour)
	defer faultTimer.Stop()
	arm := func() {
		faultTimer.Stop()
		if next < len(faults) {
			faultTimer.Reset(time.Until(at(faults[next].At.D())))
		}
	}
	arm()
	// since is the model's time since the start.
	since := func() time.Duration { return max(0, time.Since(l.start)) / k }
	// skipped counts the faults not wholly applied; first names the
	// first of them.
	skipped, first := 0, ""
	skip := func(f scenario.Fault) {
		if skipped == 0 {
			first = fmt.Sprintf("the fault at %v", f.At)
		}
		skipped++
	}
	traceWarned := 0
	// applied records a crash or recovery that happened: in the run
	// file's events and in the faults record, as it happens.
	applied := func(e trace.Event) {
		sv.events = append(sv.events, e)
		r := l.faults.record(e)
		if l.opt.Applied != nil {
			l.opt.Applied(r)
		}
	}
	// crashNode kills p's process (node id's) and records the crash once the
	// process is gone: its trace holds nothing later. (At the very end,
	// the time it was killed: the run's end is no time for a fault.)
	crashNode := func(id protocol.NodeID, p *proc) {
		t := since()
		kill(p.inst.cmd.Process)
		p.reap()
		if dead := since(); dead < dur {
			t = dead
		}
		applied(trace.Event{T: int64(t), Node: id, Ev: trace.EvCrash})
	}
	// recoverNode starts p's process again (node id's) and records the
	// recovery; false when the end or a signal came while it started (it
	// was killed, and the recovery not applied). A process that fails to
	// start is a failure of the run: the node stays down.
	recoverNode := func(id protocol.NodeID, p *proc) bool {
		t := since()
		if err := l.restart(runCtx, p); err != nil {
			if runCtx.Err() != nil {
				return false
			}
			msg := fmt.Sprintf("the recovery of node %d at %s failed, it stayed down: %v", id, t.Round(time.Millisecond), err)
			l.warn("%s", msg)
			sv.failures = append(sv.failures, msg)
			return true
		}
		applied(trace.Event{T: int64(t), Node: id, Ev: trace.EvRecover})
		l.restoreCuts(p)
		return true
	}
loop:
	for {
		// select picks at random among ready cases: the end and the
		// cancellation come first.
		if ctx.Err() != nil {
			sv.interrupted = true
			break
		}
		if !time.Now().Before(endTime) {
			break
		}
		select {
		case <-ctx.Done():
			sv.interrupted = true
			break loop
		case <-endAt.C:
			break loop
		case <-faultTimer.C:
			// The faults due, for at most 100 ms: a schedule denser than
			// restarts can follow must not starve the checks and the
			// progress line below (the timer fires again at once).
			slice := time.Now().Add(100 * time.Millisecond)
			for next < len(faults) && !time.Now().Before(at(faults[next].At.D())) && time.Now().Before(slice) && !over() {
				f := faults[next]
				next++
				whole := true
				for _, id := range f.Crash {
					p := l.byID[id]
					if p == nil || !alive(p) {
						continue
					}
					if over() {
						whole = false
						break
					}
					crashNode(id, p)
				}
				for _, id := range f.Recover {
					p := l.byID[id]
					if p == nil || alive(p) {
						continue
					}
					if over() {
						whole = false
						break
					}
					if !recoverNode(id, p) {
						whole = false
						break
					}
				}
				if !whole {
					skip(f)
				}
			}
			arm()
		case m := <-l.opt.Manual:
			m.Done <- l.manual(m, manualOps{over: over, since: since, applied: applied, crash: crashNode, recover: recoverNode})
		case due := <-check.C:
			sv.deadlines.note(time.Since(due))
			if over() {
				continue // the top of the loop ends it
			}
			for _, p := range l.procs {
				if p.inst != nil && !alive(p) {
					in := p.inst
					p.reap()
					if in.err == nil && time.Since(l.start) >= (dur*k)-time.Second {
						continue // ended by itself at the end, a moment before the launcher's timer
					}
					msg := fmt.Sprintf("%s (pid %d) ended at %s before the end of the run: %s%s",
						p.name(), in.cmd.Process.Pid, since().Round(time.Millisecond), exitString(in), l.tail(p))
					l.warn("%s", msg)
					sv.failures = append(sv.failures, msg)
					for _, id := range p.ids {
						if !l.down[id] {
							applied(trace.Event{T: int64(min(since(), dur-1)), Node: id, Ev: trace.EvCrash})
						}
					}
				}
			}
			if errs := l.traceErrors(); len(errs) > traceWarned {
				for _, m := range errs[traceWarned:] {
					l.warn("cannot write a trace: %s", m)
				}
				traceWarned = len(errs)
			}
			if l.opt.Progress != nil && time.Since(lastProgress) >= l.opt.ProgressEvery {
				lastProgress = time.Now()
				l.progress(since(), dur)
			}
		}
	}
	sv.end = dur
	if sv.interrupted {
		sv.end = min(since(), dur)
		l.stopAll(0)
	} else {
		l.stopAll(l.opt.Grace)
	}
	for _, f := range faults[next:] {
		skip(f)
	}
	if skipped > 0 {
		why := fmt.Sprintf("the run ended at %v", dur)
		if sv.interrupted {
			why = fmt.Sprintf("the run was interrupted at %s", sv.end.Round(time.Millisecond))
		}
		sv.unapplied = fmt.Sprintf("%s of %d not applied: %s before the launcher reached them (the first: %s)",
			countOf(skipped, "fault", "faults"), len(faults), why, first)
	}
	return sv
}

// countOf is n with the singular or plural noun: "1 fault", "3 faults".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// restart starts a new instance of p with the same nodes and start time,
// and waits for it to be ready; it starts nothing once ctx is done (the
// run's end, or a signal).
func (l *launcher) restart(ctx context.Context, p *proc) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s not restarted: %w", p.name(), err)
	}
	if err := l.spawn(p); err != nil {
		return err
	}
	if err := l.awaitReady(ctx, p, time.After(l.opt.ReadyTimeout)); err != nil {
		kill(p.inst.cmd.Process)
		p.reap()
		return err
	}
	return nil
}

// stopAll lets every process exit by itself for wait, then sends SIGTERM
// and after a grace period SIGKILL to the stragglers, and reaps them all.
func (l *launcher) stopAll(wait time.Duration) {
	waitAll := func(d time.Duration) bool {
		deadline := time.After(d)
		for _, p := range l.procs {
			if p.inst == nil {
				continue
			}
			select {
			case <-p.inst.done:
			case <-deadline:
				return false
			}
		}
		return true
	}
	if wait <= 0 || !waitAll(wait) {
		for _, p := range l.procs {
			if alive(p) {
				terminate(p.inst.cmd.Process)
			}
		}
		if !waitAll(l.opt.Grace) {
			for _, p := range l.procs {
				if alive(p) {
					l.warn("%s (pid %d) ignored SIGTERM for %s; killing it", p.name(), p.inst.cmd.Process.Pid, l.opt.Grace)
					kill(p.inst.cmd.Process)
				}
			}
		}
	}
	// SIGKILL every group once more: the processes are gone, but anything
	// they started and left in their groups may not be.
	l.killAll()
}

// killAll sends SIGKILL to every process group and reaps them.
func (l *launcher) killAll() {
	for _, p := range l.procs {
		if p.inst != nil {
			kill(p.inst.cmd.Process)
			p.reap()
		}
	}
}

func (l *launcher) progress(el, dur time.Duration) {
	n, up := 0, 0
	player := ""
	for _, p := range l.procs {
		switch {
		case p.ids == nil && alive(p):
			player = ", player up"
		case p.ids == nil:
			player = ", player down"
		case alive(p):
			n, up = n+1, up+1
		default:
			n++
		}
	}
	traces := ""
	if errs := l.traceErrors(); len(errs) > 0 {
		traces = fmt.Sprintf(", %d traces not written (%s)", len(errs), errs[0])
	}
	dil := ""
	if l.opt.Dilation > 1 {
		dil = fmt.Sprintf(" (model time, dilated %d times)", l.opt.Dilation)
	}
	fmt.Fprintf(l.opt.Progress, "run: %s/%s%s, %d/%d node processes alive%s%s\n",
		el.Round(100*time.Millisecond/time.Duration(l.opt.Dilation)), dur, dil, up, n, player, traces)
}

func (l *launcher) warn(format string, args ...any) {
	if l.opt.Progress != nil {
		fmt.Fprintf(l.opt.Progress, "run: warning: "+format+"\n", args...)
	}
}

func (l *launcher) stats() []ProcStats {
	out := make([]ProcStats, len(l.procs))
	for i, p := range l.procs {
		out[i] = p.stats
	}
	return out
}
