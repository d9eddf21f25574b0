package hosts

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"manetlab/internal/safefs"
	"manetlab/mobility"
	"manetlab/node"
	"manetlab/node/launch"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/collect"
)

// Options say how to run a scenario across hosts.
type Options struct {
	Hosts []Host
	// SSHConfig, when not empty, is given to ssh as -F.
	SSHConfig string
	// Scenario is the resolved scenario (--set, --seed applied).
	Scenario *scenario.Scenario
	Out, Run string
	Replace  bool
	// Key signs the frames and authenticates the streams; nil: a fresh
	// random key for this run.
	Key []byte
	// Version is this binary's `manetlab version`; Exe its path, copied
	// to hosts of its platform that lack that version.
	Version, Exe string
	// HostBins are static manetlab binaries for hosts of other
	// platforms (or of this one, in place of Exe): each goes to the
	// hosts of its platform (`uname -sm`) that lack its version, read
	// from its build information without running it here (VersionOf).
	HostBins []string
	// MaxOffset is the largest clock offset allowed between this machine
	// and a host (0: 500ms; negative: not checked), and is passed to the
	// nodes.
	MaxOffset time.Duration
	// StartDelay, when not zero, is the lead of the start time over the
	// moment every host's launcher said every process there was ready
	// (the readiness handshake); else it is measured: 500ms, plus twice
	// the slowest round trip to a host, plus 5ms per process on the
	// largest host.
	StartDelay time.Duration
	// IDsPerProcess, Group, Control, Dilation are passed on; Iface is the
	// interface of hosts whose entry names none (else the one ssh
	// reached); TTL the multicast TTL (1 when 0).
	IDsPerProcess  int
	Group, Control string
	Iface          string
	TTL            int
	Dilation       int
	// Collector is the address the collector listens on (default: every
	// address, a free port); hosts dial it, or when it names no host,
	// this machine's address as their ssh connection shows it.
	Collector string
	// HostTimeout is how long a host may stay unreachable (no answer to
	// ssh's keepalives) before its connection is given up
	// (0: DefaultHostTimeout). Within it the host runs on, its launcher
	// applying its faults, and home hears from it again; beyond it the
	// other hosts go on, the host runs on by itself (unless
	// StopLostHosts), and home reads its result and records after the
	// run's end.
	HostTimeout time.Duration
	// StopLostHosts has a host's launcher stop its nodes once home has
	// been silent for HostTimeout; else it runs on to the scheduled end
	// and home gathers its records after the run.
	StopLostHosts bool
	// Progress receives what happens, and the hosts' own lines prefixed
	// with their names; Quiet leaves the hosts' progress lines out.
	Progress io.Writer
	Quiet    bool
	// Manual, when not nil, takes faults by hand during the run (run
	// --live): each goes to the launcher of the node's host, which
	// applies and records it as a scheduled one (launch.Options.Manual).
	Manual <-chan launch.ManualFault
	// Applied, when not nil, is called with every fault a host's
	// launcher applies, as it reports it (scheduled or by hand).
	Applied func(trace.FaultRecord)
}

// Result is a run across hosts: launch.Result's fields, gathered, and
// the faults the hosts applied.
type Result struct {
	launch.Result
	Faults []trace.FaultRecord
	// Notes are things the user should know (a trace's tail fetched from
	// its host after the run, a host lost).
	Notes []string
}

// session is one host's launcher.
type session struct {
	i     int
	c     *conn
	info  *hostInfo
	ids   []protocol.NodeID
	stdin io.WriteCloser
	cmd   *exec.Cmd
	ready chan struct{}
	// readiness is what its launcher's ready line said (valid once
	// ready is closed).
	readiness launch.Readiness
	done      chan struct{}
	// last is when a line last came from its launcher (Unix ns; the
	// launcher prints progress every 5 s); outages are the silences
	// longer than silentAfter (watch).
	last        atomic.Int64
	mu          sync.Mutex
	outages     []outage
	silentSince time.Time // the last line before a silence watch noticed
	progress    io.Writer
	res         *HostResult
	// connLost is when its connection was given up while its launcher
	// ran on (lost.go).
	connLost time.Time
	// inMu guards stdin, which send and stop write from several
	// goroutines.
	inMu     sync.Mutex
	inClosed bool
	err      error // the ssh client's end
	ended    time.Time
	// manualMu holds one fault by hand at a time; answers carries the
	// launcher's answer to it.
	manualMu sync.Mutex
	answers  chan FaultDone
}

// Run runs the scenario across opt.Hosts and returns when every host's
// launcher has ended. A non-nil Result with Elapsed > 0 means the run
// ran (its run file written, perhaps with causes in the error).
func Run(ctx context.Context, opt Options) (*Result, error) {
	s := opt.Scenario
	// The run's name is its directory on every host (DIR/RUN), removed
	// after the run.
	if err := safefs.CheckName("run name", opt.Run); err != nil {
		return nil, err
	}
	if opt.TTL == 0 {
		opt.TTL = 1
	}
	if opt.MaxOffset == 0 {
		opt.MaxOffset = 500 * time.Millisecond
	}
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	if opt.Dilation < 1 {
		opt.Dilation = 1
	}
	if opt.HostTimeout <= 0 {
		opt.HostTimeout = DefaultHostTimeout
	}
	blocks, err := assign(s.MemberIDs(), shares(opt.Hosts))
	if err != nil {
		return nil, fmt.Errorf("--hosts: %w", err)
	}
	lock, err := launch.OpenOut(opt.Out, opt.Replace)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	key := opt.Key
	if key == nil {
		b := make([]byte, 32)
		rand.Read(b)
		key = []byte(hex.EncodeToString(b))
	}
	files, err := inputs(s, key)
	if err != nil {
		return nil, err
	}
	bins, err := binaries(opt.Exe, opt.Version, opt.HostBins)
	if err != nil {
		return nil, err
	}
	ctl, err := os.MkdirTemp("", "mlssh")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(ctl)
	logDir := filepath.Join(opt.Out, "log")
	ss := make([]*session, len(opt.Hosts))
	for i, h := range opt.Hosts {
		if h.Iface == "" {
			h.Iface = opt.Iface
		}
		ss[i] = &session{i: i, c: newConn(h, ctl, i, opt.SSHConfig, logDir, opt.HostTimeout), ids: blocks[i], ready: make(chan struct{}), done: make(chan struct{}), answers: make(chan FaultDone, 1)}
	}
	defer func() {
		for _, x := range ss {
			x.c.close()
		}
	}()

	// Every host checked at once; every failure named.
	say := func(format string, args ...any) {
		if !opt.Quiet {
			fmt.Fprintf(opt.Progress, format, args...)
		}
	}
	say("run: checking %d hosts\n", len(ss))
	var wg sync.WaitGroup
	errs := make([]error, len(ss))
	for i, x := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.info, errs[i] = prepare(ctx, x.c, opt.Run, bins, files)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		removeRunDirs(ss)
		return nil, errors.New("interrupted while checking the hosts; nothing was started")
	}
	var bad []string
	for i, x := range ss {
		switch {
		case errs[i] != nil:
			bad = append(bad, fmt.Sprintf("host %s: %v", x.c.host.Target, errs[i]))
		case opt.MaxOffset > 0 && x.info.clock.Offset.Abs() > opt.MaxOffset:
			dir := "ahead of"
			if x.info.clock.Offset < 0 {
				dir = "behind"
			}
			bad = append(bad, fmt.Sprintf("host %s: its clock is %s %s this machine's (measured over a %s round trip), more than --max-offset %s allows: synchronise the clocks (chrony or NTP)",
				x.c.host.Target, x.info.clock.Offset.Abs().Round(time.Millisecond), dir, x.info.clock.RTT.Round(time.Millisecond), opt.MaxOffset))
		}
	}
	if len(bad) == 0 {
		bad = checkNetworks(ss)
	}
	if len(bad) > 0 {
		removeRunDirs(ss)
		return nil, errors.New(strings.Join(bad, "\n"))
	}
	lead := opt.StartDelay
	if lead == 0 {
		lead = 500 * time.Millisecond
	}
	for _, x := range ss {
		copied := ""
		if x.info.copied {
			copied = ", this manetlab copied there"
		}
		say("run: host %s: nodes %s on %s, clock %+.1fms (round trip %.1fms), setup %s%s\n", x.c.host.Target, launch.FormatIDs(x.ids), x.info.iface,
			float64(x.info.clock.Offset)/1e6, float64(x.info.clock.RTT)/1e6, x.info.setup.Round(time.Millisecond), copied)
		if opt.StartDelay == 0 {
			// The start line crosses the ssh session, then the launcher
			// writes it to each of its processes.
			procs := len(x.ids)/max(opt.IDsPerProcess, 1) + 2
			lead = max(lead, 500*time.Millisecond+2*x.info.clock.RTT+time.Duration(procs)*5*time.Millisecond)
		}
	}

	// The collector, keyed: the nodes prove they hold the run's key.
	laddr := opt.Collector
	if laddr == "" {
		laddr = ":0"
	}
	colLog, err := safefs.Create(filepath.Join(logDir, "collector.log"))
	if err != nil {
		return nil, err
	}
	defer colLog.Close()
	col, err := collect.Listen(laddr, collect.Options{Dir: opt.Out, Run: opt.Run, Members: s.MemberIDs(), Key: mustKey(key), Log: colLog})
	if err != nil {
		removeRunDirs(ss)
		return nil, fmt.Errorf("collector: %w", err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- col.Serve() }()
	colHost, colPort, _ := net.SplitHostPort(col.Addr().String())
	if h, _, err := net.SplitHostPort(laddr); err == nil && h != "" && !net.ParseIP(h).IsUnspecified() {
		colHost = h
	} else {
		colHost = ""
	}

	say("run: starting the launchers; traces stream to the collector on port %s\n", colPort)
	for _, x := range ss {
		sink := net.JoinHostPort(x.info.home, colPort)
		if colHost != "" {
			sink = net.JoinHostPort(colHost, colPort)
		}
		if err := x.launch(opt, sink, x.i == 0); err != nil {
			x.err = err
			close(x.done)
		}
	}
	// The readiness handshake: the start is chosen once every host said
	// every process there was ready, so that no node starts late for
	// having been slow to start.
	start, notReady := awaitReady(ctx, ss, readyWait(ss, opt))
	if !start.IsZero() {
		start = time.Now().Add(lead).Round(time.Millisecond)
		var took []string
		for _, x := range ss {
			r := x.readiness
			load := ""
			if r.Load != "" {
				load = ", " + r.Load
			}
			took = append(took, fmt.Sprintf("%s: %d processes in %s%s", x.c.host.Target, r.Procs, r.Took.Round(time.Millisecond), load))
		}
		say("run: every host ready (%s); run %s starts at %s (in %s)\n", strings.Join(took, "; "), opt.Run, start.Format("15:04:05.000"), lead.Round(time.Millisecond))
		line := fmt.Sprintf("start %d", start.UnixNano())
		for _, x := range ss {
			x.send(line)
			go x.watch(start, opt.Progress, opt.HostTimeout)
			go x.beat()
		}
		if opt.Manual != nil {
			stopManual := make(chan struct{})
			defer close(stopManual)
			go routeManual(ss, opt.Manual, stopManual)
		}
	} else if notReady != "" {
		fmt.Fprintf(opt.Progress, "run: %s; stopping every host\n", notReady)
	}
	end := start.Add(s.Duration.D() * time.Duration(opt.Dilation))
	interrupted, lost, stopped := supervise(ctx, ss, opt.Progress, notReady, start)
	var causes []string
	if !start.IsZero() {
		// A host whose connection was given up ran on by itself: its
		// result is read from its run directory once its run is over.
		causes = awaitLost(ctx, ss, end, gatherTimeout, opt.Progress)
	}

	res := &Result{}
	res.Dir, res.Run, res.Start, res.Dilation = opt.Out, opt.Run, start, opt.Dilation
	res.Elapsed = s.Duration.D()
	if interrupted || lost != "" {
		res.Interrupted = true
		res.Elapsed = min(max(time.Millisecond, stopped.Sub(start))/time.Duration(opt.Dilation), s.Duration.D())
		if stopped.After(end) {
			res.Elapsed = s.Duration.D()
		}
	}
	res.Wall = res.Elapsed * time.Duration(opt.Dilation)
	if lost != "" {
		causes = append(causes, lost)
	}
	var players []launch.ProcStats
	var unapplied []string
	for _, x := range ss {
		if x.res == nil {
			if x.err != nil && x.connLost.IsZero() {
				causes = append(causes, fmt.Sprintf("host %s: %v", x.c.host.Target, x.err))
			}
			continue
		}
		if x.res.Error != "" {
			causes = append(causes, fmt.Sprintf("host %s: %s", x.c.host.Target, x.res.Error))
		}
		for _, f := range x.res.Failures {
			res.Failures = append(res.Failures, fmt.Sprintf("host %s: %s", x.c.host.Target, f))
		}
		for _, f := range x.res.TraceErrors {
			res.TraceErrors = append(res.TraceErrors, fmt.Sprintf("host %s: %s", x.c.host.Target, f))
		}
		if x.res.Unapplied != "" {
			unapplied = append(unapplied, "host "+x.c.host.Target+": "+x.res.Unapplied)
		}
		if w := x.res.Deadlines.Overloaded(); w != "" {
			res.Notes = append(res.Notes, "host "+x.c.host.Target+": "+w)
		}
		for _, p := range x.res.Procs {
			p.Host = x.i + 1
			if p.IDs == nil {
				players = append(players, p)
			} else {
				res.Procs = append(res.Procs, p)
			}
		}
	}
	res.Unapplied = strings.Join(unapplied, "; ")
	res.Notes = append(res.Notes, outageNotes(ss, start)...)
	res.Procs = append(res.Procs, players...)
	if len(players) == 0 {
		res.Procs = append(res.Procs, launch.ProcStats{Name: "player", Host: 1})
	}
	if start.IsZero() || (res.Interrupted && stopped.Before(start)) {
		// Nothing ran: no host started its nodes, or the run was stopped
		// before its start.
		col.Close()
		<-serveErr
		removeRunDirs(ss)
		if interrupted {
			causes = append(causes, "interrupted before the start")
		}
		if len(causes) == 0 {
			causes = append(causes, "no host started its nodes")
		}
		return nil, errors.New(strings.Join(causes, "\n"))
	}

	// The streams are done once the nodes have stopped (they drain
	// before they exit); a node killed and not recovered may have left
	// lines unsent: fetched below from its host's copy.
	col.Close()
	<-serveErr
	var wg2 sync.WaitGroup
	notes := make([][]string, len(ss))
	faults := make([][]trace.FaultRecord, len(ss))
	for i, x := range ss {
		if x.info == nil {
			continue
		}
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			faults[i], notes[i] = x.gather(opt.Out)
		}()
	}
	wg2.Wait()
	for i := range ss {
		res.Faults = append(res.Faults, faults[i]...)
		res.Notes = append(res.Notes, notes[i]...)
	}
	slices.SortStableFunc(res.Faults, func(a, b trace.FaultRecord) int { return int(min(max(a.T-b.T, -1), 1)) })
	if err := writeFaults(opt.Out, res.Faults); err != nil {
		causes = append(causes, err.Error())
	}
	var events []trace.Event
	for _, f := range res.Faults {
		events = append(events, trace.Event{T: f.T, Node: f.Node, Ev: f.Ev, Peer: f.Peer})
	}
	if err := node.WriteRunFile(opt.Out, s, opt.Run, events, res.Elapsed); err != nil {
		causes = append(causes, err.Error())
	}
	if len(causes) > 0 {
		return res, errors.New(strings.Join(causes, "\n"))
	}
	return res, nil
}

// readyWait is how long the hosts' launchers get to say every process
// is ready: 30 s, and 100 ms per process of the largest host, on top of
// twice the slowest command measured.
func readyWait(ss []*session, opt Options) time.Duration {
	d := 30 * time.Second
	for _, x := range ss {
		procs := len(x.ids)/max(opt.IDsPerProcess, 1) + 2
		d = max(d, 30*time.Second+2*x.info.setup+time.Duration(procs)*100*time.Millisecond)
	}
	return d
}

// awaitReady waits until every host's launcher said it was ready: a
// non-zero time then. Else, when a host's session ended first (its
// launcher failed), ctx ended, or wait passed, the zero time, with what
// went wrong unless supervise will tell (a session that ended, ctx).
func awaitReady(ctx context.Context, ss []*session, wait time.Duration) (time.Time, string) {
	timeout := time.After(wait)
	for _, x := range ss {
		select {
		case <-x.ready:
		case <-x.done:
			return time.Time{}, ""
		case <-ctx.Done():
			return time.Time{}, ""
		case <-timeout:
			return time.Time{}, fmt.Sprintf("host %s: its launcher did not say its processes were ready within %s", x.c.host.Target, wait)
		}
	}
	return time.Now(), ""
}

func shares(hs []Host) []int {
	out := make([]int, len(hs))
	for i, h := range hs {
		out[i] = max(h.Share, 1)
	}
	return out
}

func mustKey(k []byte) []byte {
	// node.LoadKey's reading: trimmed, an even number of hex digits
	// decoded.
	k = bytes.TrimSpace(k)
	if b, err := hex.DecodeString(string(k)); err == nil && len(k)%2 == 0 {
		return b
	}
	return k
}

// inputs are the files every host gets in its run directory's in/: the
// resolved scenario (its mobility file, if any, beside it) and the key.
func inputs(s *scenario.Scenario, key []byte) ([]file, error) {
	cp := *s
	var files []file
	if f := s.Mobility.File; f != "" {
		b, err := safefs.ReadInput(f, "mobility.file", mobility.MaxNS2Bytes)
		if err != nil {
			return nil, err
		}
		name := "mobility" + filepath.Ext(f)
		files = append(files, file{name: name, data: b})
		cp.Mobility.File = name
	}
	y, err := cp.YAML()
	if err != nil {
		return nil, err
	}
	return append(files, file{name: "scenario.yaml", data: y}, file{name: "run.key", data: key}), nil
}

// launch starts the host's launcher over ssh.
func (x *session) launch(opt Options, sink string, player bool) error {
	a := []string{x.info.bin, "launch", "--scenario", "in/scenario.yaml", "--out", ".", "--run", opt.Run,
		"--ids", launch.FormatIDs(x.ids), "--start-stdin", "--host", x.c.host.Target,
		"--iface", x.info.iface, "--ttl", strconv.Itoa(opt.TTL), "--key-file", "in/run.key", "--trace-sink", sink,
		"--max-offset", opt.MaxOffset.String(), "--dilation", strconv.Itoa(opt.Dilation), "--ids-per-process", strconv.Itoa(max(opt.IDsPerProcess, 1))}
	if player {
		a = append(a, "--player")
	}
	if opt.StopLostHosts {
		a = append(a, "--stop-if-home-lost", opt.HostTimeout.String())
	}
	if opt.Group != "" {
		a = append(a, "--group", opt.Group)
	}
	if opt.Control != "" {
		a = append(a, "--control", opt.Control)
	}
	cmd := x.c.command(context.Background(), "cd "+quote(x.info.runDir)+" && exec "+quoteAll(a...))
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	logf, err := safefs.Create(filepath.Join(opt.Out, "log", "host-"+safeName(x.c.host.Target)+".log"))
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("ssh: %w", err)
	}
	x.stdin, x.cmd = in, cmd
	var copies sync.WaitGroup
	copies.Add(2)
	go func() {
		defer copies.Done()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			x.heard()
			fmt.Fprintf(logf, "%s\n", sc.Text())
			if line := sc.Text(); !opt.Quiet || strings.Contains(line, "warning") {
				fmt.Fprintf(opt.Progress, "%s: %s\n", x.c.host.Target, line)
			}
		}
	}()
	go func() {
		defer copies.Done()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<24)
		readyOnce := sync.OnceFunc(func() { close(x.ready) })
		for sc.Scan() {
			x.heard()
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, ReadyPrefix):
				json.Unmarshal([]byte(strings.TrimPrefix(line, ReadyPrefix)), &x.readiness)
				readyOnce()
			case x.launcherLine(line, opt.Applied):
			case strings.HasPrefix(line, ResultPrefix):
				var r HostResult
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, ResultPrefix)), &r); err == nil {
					x.res = &r
				}
			}
		}
	}()
	go func() {
		copies.Wait()
		x.err = cmd.Wait()
		logf.Close()
		x.ended = time.Now()
		close(x.done)
	}()
	return nil
}

// supervise waits for every host's launcher to end. A signal (ctx), or
// a host whose session ends before the end of the run without its
// launcher's result (lost), stops every other: their standard input is
// closed, which their launchers take as the order to stop; a session
// still there after a grace period is killed (its launcher sees the end
// of its input all the same). stopped is when it stopped them.
func supervise(ctx context.Context, ss []*session, progress io.Writer, notReady string, start time.Time) (interrupted bool, lost string, stopped time.Time) {
	stopAll := func() {
		for _, x := range ss {
			x.stop()
		}
	}
	if notReady != "" {
		lost, stopped = notReady, time.Now()
		stopAll()
		go func() {
			time.Sleep(20 * time.Second)
			killAll(ss)
		}()
	}
	pending := slices.Clone(ss)
	for len(pending) > 0 {
		cases := make([]<-chan struct{}, len(pending))
		for i, x := range pending {
			cases[i] = x.done
		}
		idx := waitAny(ctx, cases)
		if idx < 0 {
			if !interrupted {
				interrupted, stopped = true, time.Now()
				fmt.Fprintf(progress, "run: stopping every host\n")
				stopAll()
				go func() {
					time.Sleep(20 * time.Second)
					killAll(ss)
				}()
			}
			ctx = context.Background()
			continue
		}
		x := pending[idx]
		pending = slices.Delete(pending, idx, idx+1)
		if lost == "" && !interrupted && (x.res == nil || x.res.Error != "" || x.res.Interrupted) {
			why := "dropped out: its session ended"
			var ee *exec.ExitError
			switch {
			case x.res != nil && x.res.Error != "":
				why = "failed: " + x.res.Error
			case errors.As(x.err, &ee) && ee.ExitCode() == 255 && !start.IsZero():
				// The connection was lost, or the launcher killed: the
				// host tells which, when it can be reached.
				state, err := x.probe(ctx)
				switch {
				case err != nil:
					x.lostHost(progress, start, "unreachable: "+err.Error())
					continue
				case state == "alive" || state == "done":
					x.lostHost(progress, start, "its launcher runs on")
					continue
				}
				why += " (ssh exit status 255, and its launcher is gone)"
			case errors.As(x.err, &ee) && ee.ExitCode() == 255:
				why += " (ssh exit status 255: the connection was lost, or its launcher was killed)"
			case x.err != nil:
				why += ": " + x.err.Error()
			}
			lost, stopped = fmt.Sprintf("host %s %s; stopped the run on every host", x.c.host.Target, why), time.Now()
			fmt.Fprintf(progress, "run: %s\n", lost)
			stopAll()
			go func() {
				time.Sleep(20 * time.Second)
				killAll(ss)
			}()
		}
	}
	return interrupted, lost, stopped
}

// killAll kills the ssh clients still running.
func killAll(ss []*session) {
	for _, x := range ss {
		select {
		case <-x.done:
		default:
			if x.cmd != nil && x.cmd.Process != nil {
				x.cmd.Process.Kill()
			}
		}
	}
}

// waitAny returns the index of the first channel closed, or -1 when ctx
// ends first.
func waitAny(ctx context.Context, chs []<-chan struct{}) int {
	got := make(chan int, len(chs))
	stop := make(chan struct{})
	defer close(stop)
	for i, ch := range chs {
		go func() {
			select {
			case <-ch:
				got <- i
			case <-stop:
			}
		}()
	}
	select {
	case i := <-got:
		return i
	case <-ctx.Done():
		return -1
	}
}
