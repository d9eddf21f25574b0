package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"manetlab/node"
	"manetlab/node/launch"
	"manetlab/trace"
	"manetlab/trace/report"
)

// runNodeCommand is the program `run` starts for nodes and the player, with
// its leading arguments; nil means this executable. Tests point it at a
// helper.
var runNodeCommand []string

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a scenario with real node processes on this machine, or with --hosts on several over ssh (UDP multicast, wall clock)",
		ArgsUsage: "SCENARIO.yaml",
		UsageText: `manetlab run SCENARIO.yaml [--out DIR] [--seed N] [--set path=value]... [--json]
    [--ids-per-process K] [--group ADDR:PORT] [--control ADDR:PORT] [--iface IF] [--ttl T]
    [--key-file F] [--max-offset 500ms] [--run NAME] [--dilation K] [--replace] [--stats] [--quiet] [--live [--port P]]
    [--hosts FILE|h1,h2,... [--ssh-config F] [--collector ADDR:PORT] [--host-timeout 90s] [--stop-lost-hosts] [--host-bin FILE]...]

Examples:
   manetlab run configs/quickstart.yaml
   manetlab run configs/quickstart.yaml --live
   manetlab run configs/quickstart.yaml --hosts alice@h1,h2,h3 --ttl 1
   manetlab run configs/quickstart.yaml --set duration=20s --set faults=[] --json
   manetlab run configs/static-line.yaml --set nodes.count=200 --ids-per-process 50 --stats`,
		Description: `Starts the mobility player and one "manetlab node" process per node (with
--ids-per-process K, processes of K nodes each); waits for every process to
print "ready", then sets a common start time a moment ahead (--start-delay)
and writes it to every process's standard input (the readiness handshake:
a process slow to start delays the start, it does not start late); applies
the fault schedule (a crash is SIGKILL of the node's process, a recovery starts
it again with the same ID and start time; nodes named in faults always get
a process of their own; a fault the launcher has not reached by the end of
the run, or by a signal, is not applied, and a warning counts them); stops
at the end of the scenario; writes run.jsonl
beside the node traces in --out (default runs/NAME-seedN-TIMESTAMP) and
prints the same summary as "sim".

A run holds an exclusive lock on --out (--out/run.lock) while it runs: a
second run on the same directory is refused, naming the holder. A
directory that holds another run's files (run.jsonl, node traces, stores)
is refused too, unless --replace, which removes them and the old logs
first. Every process reads one copy of the scenario, as resolved at the
start (--set and --seed applied), written to --out/scenario.yaml:
recovered nodes too, so editing the scenario file during a run changes
nothing.

With --dilation K (K > 1) every process runs in dilated time: the run clock
(trace times t, the DCF medium's air stamps) and every timer K times slower
than the host's clock, so the host's delays (a datagram's arrival lag, late
carrier sense) shrink K times in the model's time; the fault schedule is
applied at the model's times and the run lasts K times the scenario's
duration on the wall clock (docs/node.md, "Dilated time").

With --hosts it runs the scenario across machines over ssh (docs/node.md,
"Several machines"). --hosts takes a file (one entry a line, or YAML with a
"hosts" list) or a comma-separated list of entries "[user@]host [iface=IF]
[share=N] [dir=PATH]": the interface of the nodes there (default --iface,
else the one holding the address ssh reached), a weight of the nodes it
runs (contiguous blocks in ID order; default 1) and where its run
directories go (default manetlab-runs in the login's home). It checks
every host at once (ssh -o BatchMode=yes, one multiplexed connection each,
~/.ssh/config or --ssh-config; a manetlab of this version, else it copies
this binary, which must be a static build: CGO_ENABLED=0 go build; the
clock offset, refused above --max-offset naming the host and the figure),
copies the resolved scenario, its mobility file and the run's key
(--key-file's, else a fresh one, written 0600) to DIR/RUN/HOST/in, and starts
one launcher per host (--iface, --ttl 1, the player on the first host)
against a common start time with lead for the slowest host. Each host
applies the crashes and recoveries of its own nodes and records them in
its faults.jsonl; the nodes stream their traces to a collector here
(--collector, keyed with the run's key) and keep their own copies.
A host unreachable for less than --host-timeout (default 90s) runs on by
itself; home says when it fell silent and when it heard from it again.
Beyond it home gives the connection up and goes on with the other hosts;
the host runs on to the end (or, with --stop-lost-hosts, stops its nodes
once home has been silent that long) and home gathers its records after
the end. Ctrl-C, SIGTERM or a host whose launcher dies stops every host,
and nothing of the run is left on any. At the end it gathers the hosts' faults into
--out/faults.jsonl, writes run.jsonl with the faults at the times they were
applied, and prints the summary.

With --live it serves a page on 127.0.0.1 (the URL, ending in ?token=...,
is printed) that follows the run as the traces arrive: the map, who follows
whom, the verdict so far, rates, collisions, elections (docs/live.md). A
click on a node crashes it, or recovers it: the launcher applies it as a
scheduled fault and records it alike (run file, faults record, summary).

Every crash and recovery applied is also recorded, when it happened, in
--out/faults.jsonl (docs/trace.md, "The faults record").

With --collected it starts nothing: after a run by hand on several machines
(docs/node.md, "By hand"), with the node traces gathered in
--out, it writes run.jsonl for run --run (positions from the scenario) and
prints the summary. Its faults are those that happened, never the
schedule: those of --out/faults.jsonl when present (the launchers' records),
else those the traces show (a crash at the last event of a process whose
trace ends without an end event, a recovery where a new process starts). It
warns of a node whose trace goes on after its recorded crash, and of
restarts or early ends the record lacks. The run lasts the scenario's
duration unless it stopped early (an earlier run file's end, or traces
that all stop early with end events: an interrupted run), which it says.

Cross-host problems (scenario nodes without a trace, a node whose frames
others refused with the reason and count, nodes that started more than 2s
late, nodes that ran another scenario: docs/analysis.md) are printed
right after the verdict line, and the command then exits with status 3.

Each process has its own process group and dies with the launcher, even
when the launcher is killed by SIGKILL. Ctrl-C, SIGINT or SIGTERM stops every
process, writes what was gathered, prints its summary and exits with status 1
naming the signal; a second signal quits at once. The
standard error of every process goes to --out/log/. The summary ends with
the node processes' CPU time (user and system) and peak RSS, totals in
--out/log/usage.json, per process in --out/log/processes.json; --stats adds
the player's, and prints them with --json too (on standard error).

On one machine the default multicast TTL 0 keeps every frame on the host.
Without --iface the nodes use lo, which needs multicast:
   sudo ip link set lo multicast on; sudo ip route add 224.0.0.0/4 dev lo
Run as root on a host whose lo has none, "run" does this by itself inside a
private, unnamed network namespace, which ends with its last process however
the run ends; signals to "run" reach the launcher inside it. The host is left
alone.`,
		Flags: append(append(scenarioFlags(),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "trace directory (default runs/RUN)"},
			&cli.StringFlag{Name: "run", Usage: "run name (default NAME-seedN-TIMESTAMP)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress line"},
			&cli.IntFlag{Name: "ids-per-process", Value: 1, Usage: "nodes hosted by one process"},
			&cli.StringFlag{Name: "group", Usage: "data multicast group `ADDR:PORT` (the node's default when empty)"},
			&cli.StringFlag{Name: "control", Usage: "location multicast group `ADDR:PORT` (the node's default when empty)"},
			&cli.StringFlag{Name: "iface", Usage: "network interface for multicast"},
			&cli.IntFlag{Name: "ttl", Usage: "multicast TTL: 0 keeps frames on this host, 1 reaches the local network", DefaultText: "0, as the node has it"},
			&cli.StringFlag{Name: "key-file", Usage: "sign frames with the key in `FILE`"},
			&cli.DurationFlag{Name: "max-offset", Usage: "largest clock offset between the machines: frames stamped further ahead, or before a node's process started less this, are refused; a negative value turns the checks off", DefaultText: "500ms"},
			&cli.BoolFlag{Name: "stats", Usage: "print the player's CPU time and peak RSS too, and with --json the processes' on standard error"},
			&cli.StringSliceFlag{Name: "wrap", Usage: "run processes under `PREFIX` (split on spaces; repeat for several hosts, processes are spread over them; e.g. \"ip netns exec h1\")"},
			&cli.BoolFlag{Name: "replace", Usage: "remove the files of an earlier run in --out (run file, traces, stores, logs) instead of refusing the directory"},
			&cli.BoolFlag{Name: "collected", Usage: "start nothing: the node traces of run --run are already in --out (collected from several machines); write run.jsonl and print the summary"},
			&cli.IntFlag{Name: "dilation", Value: 1, Usage: "run in dilated time: the run clock and every timer `K` times slower than the host's clock, so the run lasts K times the duration"},
			&cli.DurationFlag{Name: "start-delay", Usage: "how far ahead of the moment every process (with --hosts, every host) was ready the common start time is set", DefaultText: "500ms + 5ms per process; with --hosts 500ms + twice the slowest round trip + 5ms per process"},
			&cli.StringFlag{Name: "hosts", Usage: "run across machines over ssh: a host list `FILE` or h1,h2,... (each [user@]host [iface=IF] [share=N] [dir=PATH])"},
			&cli.StringFlag{Name: "ssh-config", Usage: "with --hosts, ssh's configuration `FILE` (ssh -F; default ~/.ssh/config)"},
			&cli.StringSliceFlag{Name: "host-bin", Usage: "with --hosts, a static manetlab `FILE` for the hosts of its platform (another OS or architecture than this one's; repeat for several)"},
			&cli.DurationFlag{Name: "host-timeout", Usage: "with --hosts, how long a host may stay unreachable before its connection is given up; either way it runs on by itself, the other hosts go on, and its records are gathered after the run", DefaultText: "90s"},
			&cli.BoolFlag{Name: "stop-lost-hosts", Usage: "with --hosts, a host stops its nodes once home has been silent for --host-timeout, instead of running on to the end"},
			&cli.StringFlag{Name: "collector", Usage: "with --hosts, where the trace collector listens, `ADDR:PORT` (default every address, a free port; hosts dial the address their ssh connection came from)"},
			&cli.DurationFlag{Name: "ready-timeout", Usage: "how long to wait for every process to be ready", DefaultText: "10s + 100ms per process"},
			allowLargeFlag(),
		), liveFlags()...),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	// Warnings are printed once, by the process that runs (not also by
	// one that moves into a private network namespace first).
	s, err := readScenario(c)
	if err != nil {
		return err
	}
	if k := c.Int("dilation"); k < 1 || k > node.MaxDilation {
		return fmt.Errorf("--dilation %d: want 1 to %d", k, node.MaxDilation)
	}
	if c.Int("ids-per-process") < 1 {
		return fmt.Errorf("--ids-per-process %d: want 1 or more", c.Int("ids-per-process"))
	}
	name := c.String("run")
	if name == "" {
		name = fmt.Sprintf("%s-seed%d-%s", s.Name, s.Seed, time.Now().Format("20060102-150405"))
	}
	if err := checkRunName(c, name); err != nil {
		return err
	}
	out := c.String("out")
	if out == "" {
		out = filepath.Join("runs", name)
	}
	sets := c.StringSlice("set")
	opt := launch.Options{
		Scenario: c.Args().First(), Sets: sets, Out: out, Run: name,
		IDsPerProcess: c.Int("ids-per-process"), Replace: c.Bool("replace"),
		Group: c.String("group"), Control: c.String("control"), Iface: c.String("iface"), KeyFile: c.String("key-file"),
		TTL:          -1,
		MaxOffset:    c.Duration("max-offset"),
		Dilation:     c.Int("dilation"),
		Command:      runNodeCommand,
		StartDelay:   c.Duration("start-delay"),
		ReadyTimeout: c.Duration("ready-timeout"),
	}
	if c.IsSet("ttl") {
		if c.Int("ttl") < 0 || c.Int("ttl") > 255 {
			return fmt.Errorf("--ttl %d: want 0 to 255", c.Int("ttl"))
		}
		opt.TTL = c.Int("ttl")
	}
	for _, w := range c.StringSlice("wrap") {
		if f := strings.Fields(w); len(f) > 0 {
			opt.Wrap = append(opt.Wrap, f)
		}
	}
	if !c.Bool("quiet") {
		opt.Progress = c.App.ErrWriter
		if opt.Progress == nil {
			opt.Progress = os.Stderr
		}
	}

	if c.IsSet("port") && !c.Bool("live") {
		return errors.New("--port goes with --live")
	}
	if c.IsSet("hosts") {
		return runHosts(c, s, name, out)
	}
	for _, f := range []string{"ssh-config", "collector", "host-timeout", "host-bin", "stop-lost-hosts"} {
		if c.IsSet(f) {
			return fmt.Errorf("--%s goes with --hosts", f)
		}
	}

	if c.Bool("collected") {
		if c.Bool("live") {
			return errors.New("--live goes with a run, not with --collected (manetlab trace watch DIR shows a run directory)")
		}
		if !c.IsSet("run") || !c.IsSet("out") {
			return errors.New("--collected needs the --run name the nodes were given and the --out directory holding their traces")
		}
		printWarnings(c, s.Warnings)
		col, err := launch.WriteCollectedRunFile(out, name, s)
		if err != nil {
			return err
		}
		w := c.App.ErrWriter
		if w == nil {
			w = os.Stderr
		}
		fmt.Fprintf(w, "manetlab: run --collected: %s\n", collectedFrom(col, out))
		if col.EndFrom != "" {
			fmt.Fprintf(w, "manetlab: run --collected: the run lasted %v, not the scenario's %v: from %s\n", col.End, s.Duration.D(), col.EndFrom)
		}
		printWarnings(c, col.Warnings)
		return printSummary(c, trace.Disk, out, nil)
	}

	// An output directory others control is refused before anything
	// starts, a private network namespace included (docs/security.md).
	if err := trace.CheckOutDir(out); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	var ln net.Listener
	if c.Bool("live") {
		if ln, err = liveListener(c); err != nil {
			return err
		}
		defer ln.Close()
	}
	if runNodeCommand == nil && len(opt.Wrap) == 0 {
		// Only the command line itself can be re-run in a namespace.
		private, err := needPrivateNet(opt.Iface)
		if err != nil {
			return err
		}
		if private {
			return rerunInPrivateNet(ln)
		}
		if err := setupPrivateNet(); err != nil {
			return err
		}
	}

	printWarnings(c, s.Warnings)
	if err := checkReal(c, s, out, opt.Dilation); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(c.Context)
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		// After the first SIGINT or SIGTERM the launcher stops its
		// processes and writes what was gathered; a second one kills it
		// at once (and its processes with it: Pdeathsig).
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			cancel(interruption{sig})
		case <-ctx.Done():
		}
	}()
	stopLive := func() {}
	if ln != nil {
		manual, launched := make(chan launch.ManualFault), make(chan struct{})
		opt.Manual = manual
		_, stopPage := startLive(ctx, errWriter(c), ln, s, name, out, manualFaults{ch: manual, done: launched})
		stopLive = func() { close(launched); stopPage() }
	}
	res, err := launch.Run(ctx, s, opt)
	stopLive()
	if err != nil && (res == nil || res.Elapsed == 0) {
		// Nothing ran: there is nothing to summarise.
		return fmt.Errorf("run %s: %w", name, err)
	}
	if res.Unapplied != "" {
		printWarnings(c, []string{res.Unapplied})
	}
	if w := res.Deadlines.Overloaded(); w != "" {
		printWarnings(c, []string{w})
	}
	// The run ran: whatever went wrong afterwards (a full disk most
	// often), print the summary of what was gathered, then the causes.
	var causes []string
	if len(res.TraceErrors) > 0 {
		causes = append(causes, fmt.Sprintf("%d node traces could not be written, the summary covers what they hold: %s",
			len(res.TraceErrors), strings.Join(res.TraceErrors, "; ")))
	}
	if err != nil {
		causes = append(causes, fmt.Sprintf("run %s: %v", name, err))
	}
	if werr := writeProcStats(res); werr != nil {
		causes = append(causes, fmt.Sprintf("log/processes.json: %v", werr))
	}
	src := trace.Disk
	if res.RunFile != nil {
		// The run file on disk is the provisional one, without the
		// faults: summarise the run as it went.
		src = trace.WithRunFile(trace.Disk, out, res.RunFile)
		causes = append(causes, fmt.Sprintf("%s is the provisional run file, without the faults applied; the summary above is of the run as it went (its crashes and recoveries included)", trace.RunFile(out)))
	}
	var cross *exitStatus
	if serr := printSummary(c, src, out, res); serr != nil {
		if st := (exitStatus{}); errors.As(serr, &st) {
			cross = &st
		} else {
			causes = append(causes, fmt.Sprintf("summary: %v", serr))
		}
	}
	switch {
	case res.Interrupted:
		by := ""
		if sig, ok := context.Cause(ctx).(interruption); ok {
			by = " by " + signalName(sig.sig)
		}
		causes = append(causes, fmt.Sprintf("interrupted%s after %s; what was gathered is in %s", by, res.Elapsed.Round(time.Millisecond), out))
	case len(res.Failures) > 0:
		causes = append(causes, res.Failures...)
	}
	return runStatus(causes, cross)
}

// collectedFrom says where run --collected took the faults of the run
// file from, and how many.
func collectedFrom(col *launch.Collected, out string) string {
	crashes, recoveries := 0, 0
	for _, e := range col.Faults {
		if e.Ev == trace.EvCrash {
			crashes++
		} else {
			recoveries++
		}
	}
	n := fmt.Sprintf("%s and %s", countOf(crashes, "crash", "crashes"), countOf(recoveries, "recovery", "recoveries"))
	if col.FromRecord {
		return fmt.Sprintf("faults as recorded in %s: %s", trace.FaultsFile(out), n)
	}
	return fmt.Sprintf("no %s: faults as the traces show them (a crash where a process's trace ends without an end event, a recovery where a new one starts): %s", trace.FaultsFile(out), n)
}

// interruption is the cause of a run's end by a signal.
type interruption struct{ sig os.Signal }

func (i interruption) Error() string { return "interrupted by " + signalName(i.sig) }

// printSummary prints the summary of the run in out (text or --json),
// and with res the processes' figures; its error is an exitStatus when
// the run has cross-host problems (printed right after the verdict line).
func printSummary(c *cli.Context, src trace.Source, out string, res *launch.Result) error {
	sum, err := report.SummarizeFrom(src, out)
	if err != nil {
		return err
	}
	w := c.App.Writer
	if c.Bool("json") {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
		w = c.App.ErrWriter
		if w == nil {
			w = os.Stderr
		}
	} else {
		sum.WriteText(w)
	}
	if res == nil {
		return summaryError(c.Command.Name, sum)
	}
	// The node processes' use ends every text summary; --stats adds the
	// player's, and prints both with --json (on standard error).
	if c.Bool("stats") || !c.Bool("json") {
		writeUsageText(w, res, c.Bool("stats"))
	}
	if !c.Bool("json") {
		dil := ""
		if res.Dilation > 1 {
			dil = fmt.Sprintf(" (%s of wall time, dilated %d times)", res.Wall.Round(time.Millisecond), res.Dilation)
		}
		fmt.Fprintf(w, "ran %s in %s for %s%s; traces in %s\n",
			countOf(sum.Nodes, "node", "nodes"), countOf(len(res.Procs)-1, "process", "processes"), res.Elapsed.Round(time.Millisecond), dil, out)
	}
	return summaryError("run", sum)
}

// summaryError is the exit status of sim and run after the summary:
// cross-host problems (3), else the verdict's (judge.Exit: 1 invalid, 2
// unsettled, unknown or stalled).
func summaryError(cmd string, sum *report.Summary) error {
	if err := crossHostError(cmd, sum.CrossHost); err != nil {
		return err
	}
	return verdictError(cmd, sum.Verdict)
}

// writeProcStats writes every process's resource use to
// log/processes.json, and the node processes' totals to log/usage.json
// (launch.Usage), for scripts.
func writeProcStats(res *launch.Result) error {
	if len(res.Procs) == 0 {
		return nil
	}
	for name, v := range map[string]any{"processes.json": res.Procs, "usage.json": res.Usage()} {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		f, err := trace.CreateFile(filepath.Join(res.Dir, "log", name))
		if err == nil {
			_, err = f.Write(append(b, '\n'))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeUsageText prints the node processes' CPU time (total, user and
// system, mean and largest per process) and peak RSS (mean and largest),
// and with player the player's.
func writeUsageText(w io.Writer, res *launch.Result, player bool) {
	u := res.Usage()
	if u.NodeProcesses == 0 {
		return
	}
	// CPU is the host's: over the run's wall time (dilated, K times
	// its duration).
	el := max(res.Wall.Seconds(), res.Elapsed.Seconds(), 1e-3)
	fmt.Fprintf(w, "processes: %d node processes over %.1fs of run: CPU %.2fs total (user %.2fs, system %.2fs; %.2f cores), %.2fs mean (%.1f%% of a core), %.2fs max; peak RSS %.1f MiB mean, %.1f MiB max\n",
		u.NodeProcesses, el, u.CPU.Seconds(), u.User.Seconds(), u.Sys.Seconds(), u.CPU.Seconds()/el,
		u.CPUMean.Seconds(), 100*u.CPUMean.Seconds()/el, u.CPUMax.Seconds(), mib(u.RSSMean), mib(u.RSSMax))
	if player {
		fmt.Fprintf(w, "player: CPU %.2fs, peak RSS %.1f MiB; per process in %s, totals in %s\n",
			u.PlayerCPU.Seconds(), mib(u.PlayerRSS), filepath.Join(res.Dir, "log", "processes.json"), filepath.Join(res.Dir, "log", "usage.json"))
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// runStatus is the exit of a run (local or --hosts) whose summary
// returned st (nil: valid) after the other causes of failure: cross-host
// problems (3) decide it whatever else happened; else an interruption or
// a failure (status 1, naming it, with the verdict's line after it: the
// verdict of a run cut short says nothing of the algorithm); else the
// verdict's status (1 invalid, 2 undecided).
func runStatus(causes []string, st *exitStatus) error {
	switch {
	case st != nil && st.code == ExitCrossHost:
		return exitStatus{st.code, strings.Join(append(causes, st.msg), "\n"), false}
	case len(causes) > 0 && st != nil:
		return errors.New(strings.Join(append(causes, st.msg), "\n"))
	case len(causes) > 0:
		return errors.New(strings.Join(causes, "\n"))
	case st != nil:
		return *st
	}
	return nil
}
