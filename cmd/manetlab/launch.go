package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"manetlab/node"
	"manetlab/node/hosts"
	"manetlab/node/launch"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// launchCommand is the per-host launcher `run --hosts` starts on every
// host over ssh. Its flags are a contract with node/hosts: change them
// only together.
func launchCommand() *cli.Command {
	return &cli.Command{
		Name:   "launch",
		Usage:  "run one host's share of a run spread over several machines (started by run --hosts over ssh)",
		Hidden: true,
		UsageText: `manetlab launch --scenario S --out DIR --run NAME --ids 1-7,9 (--start-stdin | --start UNIX_NS) --host NAME
    [--player] [--iface IF] [--ttl 1] [--key-file F] [--trace-sink HOST:PORT]
    [--max-offset 500ms] [--dilation K] [--ids-per-process K] [--group G] [--control C]
    [--stop-if-home-lost D]`,
		Description: `Runs the given nodes of the scenario on this machine as "run" does (one
process per node, or per K nodes; a node named in the faults alone), and
with --player the mobility player, all against a common start: with
--start-stdin (what run --hosts gives) it prints "ready JSON" once every
process is ready (how many, how long they took, this machine's load) and
reads the start from its standard input, a line "start UNIX_NS" chosen
once every host was ready; else --start. It applies the crashes and recoveries of its own nodes at their times and
appends each one, as applied, to DIR/faults.jsonl:
   {"node":8,"ev":"crash","t":20001234567,"host":"h1"}
(t: nanoseconds since the start by this machine's clock). Prints
"result JSON" at the end on standard output; progress and warnings on
standard error, and the result also in DIR/launch-result.json. It
stops everything when home says "stop" on its standard input, on SIGINT,
SIGTERM or SIGHUP, and at the end of the run. When its standard input
ends without a "stop" (home lost the connection), it runs on to the end,
unless --stop-if-home-lost D: then it stops once home (which sends
"beat" every 5 s) has been silent for D. Its PID is in DIR/launch.pid.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scenario", Usage: "the resolved scenario `FILE`", Required: true},
			&cli.StringFlag{Name: "out", Usage: "run `DIR` on this host", Required: true},
			&cli.StringFlag{Name: "run", Usage: "run `NAME`", Required: true},
			&cli.StringFlag{Name: "ids", Usage: "this host's nodes, e.g. 1-7,9", Required: true},
			&cli.Int64Flag{Name: "start", Usage: "common start, Unix `NS`"},
			&cli.BoolFlag{Name: "start-stdin", Usage: "once every process is ready, print \"ready JSON\" and read the start, a line \"start UNIX_NS\", from standard input"},
			&cli.StringFlag{Name: "host", Usage: "this host's `NAME` in faults.jsonl", Required: true},
			&cli.BoolFlag{Name: "player", Usage: "run the mobility player here"},
			&cli.StringFlag{Name: "iface", Usage: "network interface for multicast"},
			&cli.IntFlag{Name: "ttl", Value: 1, Usage: "multicast TTL"},
			&cli.StringFlag{Name: "key-file", Usage: "the run's key `FILE`"},
			&cli.StringFlag{Name: "trace-sink", Usage: "collector `HOST:PORT` the nodes stream their traces to"},
			&cli.DurationFlag{Name: "max-offset", Usage: "passed to the nodes"},
			&cli.IntFlag{Name: "dilation", Value: 1, Usage: "run in dilated time `K`"},
			&cli.IntFlag{Name: "ids-per-process", Value: 1, Usage: "nodes hosted by one process"},
			&cli.DurationFlag{Name: "stop-if-home-lost", Usage: "stop once home has sent nothing for `D` after the start (0: run on to the scheduled end)"},
			&cli.StringFlag{Name: "group", Usage: "data multicast group `ADDR:PORT`"},
			&cli.StringFlag{Name: "control", Usage: "location multicast group `ADDR:PORT`"},
		},
		Action: launchAction,
	}
}

// lockedWriter serialises the launcher's lines on standard output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// manualLine reads "crash N", "recover N", "cut N P", "heal N P", or
// "cut-sides IDS IDS" and "heal-sides IDS IDS" (two hosts' nodes, as
// "1-7,9").
func manualLine(line string) (launch.ManualFault, bool) {
	f := strings.Fields(line)
	if len(f) == 3 && (f[0] == "cut-sides" || f[0] == "heal-sides") {
		a, err1 := node.ParseIDs(f[1])
		b, err2 := node.ParseIDs(f[2])
		if err1 != nil || err2 != nil || len(a)+len(b) > 1<<20 {
			return launch.ManualFault{}, false
		}
		return launch.ManualFault{Sides: [2][]protocol.NodeID{a, b}, Recover: f[0] == "heal-sides", Done: make(chan error, 1)}, true
	}
	link := len(f) == 3 && (f[0] == "cut" || f[0] == "heal")
	if !link && (len(f) != 2 || (f[0] != "crash" && f[0] != "recover")) {
		return launch.ManualFault{}, false
	}
	var ids []protocol.NodeID
	for _, x := range f[1:] {
		id, err := strconv.ParseUint(x, 10, 32)
		if err != nil || id == 0 {
			return launch.ManualFault{}, false
		}
		ids = append(ids, protocol.NodeID(id))
	}
	m := launch.ManualFault{Node: ids[0], Recover: f[0] == "recover" || f[0] == "heal", Done: make(chan error, 1)}
	if link {
		m.Peer = ids[1]
	}
	return m, true
}

// applyManual hands m to the launcher and answers home on w.
func applyManual(ctx context.Context, manual chan<- launch.ManualFault, m launch.ManualFault, w io.Writer) {
	d := hosts.FaultDone{Node: uint32(m.Node)}
	select {
	case manual <- m:
		if err := <-m.Done; err != nil {
			d.Error = err.Error()
		}
	case <-ctx.Done():
		d.Error = "the run is over"
	}
	b, _ := json.Marshal(d)
	fmt.Fprintf(w, "%s%s\n", hosts.FaultDonePrefix, b)
}

func launchAction(c *cli.Context) error {
	res := hosts.HostResult{Host: c.String("host")}
	out := c.App.Writer
	err := launchHost(c, &res)
	if err != nil {
		res.Error = err.Error()
	}
	b, jerr := json.Marshal(res)
	if jerr != nil {
		return jerr
	}
	// Also in the run directory, for home to read should the session
	// have been lost (hosts.ResultFile).
	if werr := writeResultFile(c.String("out"), b); werr != nil && err == nil {
		err = werr
	}
	fmt.Fprintf(out, "%s%s\n", hosts.ResultPrefix, b)
	return err
}

func launchHost(c *cli.Context, res *hosts.HostResult) error {
	if c.NArg() != 0 {
		return fmt.Errorf("launch: unexpected argument %q", c.Args().First())
	}
	ids, err := node.ParseIDs(c.String("ids"))
	if err != nil {
		return fmt.Errorf("launch: --ids: %w", err)
	}
	s, err := scenario.Load(c.String("scenario"), nil)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	if c.IsSet("start") == c.Bool("start-stdin") {
		return errors.New("launch: give --start-stdin or --start UNIX_NS")
	}
	// The ssh session that started this launcher is its standard input:
	// the start comes on it (--start-stdin), and home's order to stop;
	// losing it is not an order (homeLink). Writes to a session gone
	// fail instead of killing the launcher (SIGPIPE).
	signal.Ignore(syscall.SIGPIPE)
	var later chan time.Time
	if c.Bool("start-stdin") {
		later = make(chan time.Time, 1)
	}
	stdout := &lockedWriter{w: c.App.Writer}
	manual := make(chan launch.ManualFault)
	if err := writePID(c.String("out")); err != nil {
		return err
	}
	// After the start, faults by hand (run --hosts --live): "crash N"
	// or "recover N", answered "fault-done JSON".
	link := &homeLink{later: later, stop: cancel, lostAfter: c.Duration("stop-if-home-lost"), progress: c.App.ErrWriter, every: time.Second,
		other: func(line string) {
			if m, ok := manualLine(line); ok {
				go applyManual(ctx, manual, m, stdout)
			}
		}}
	if link.progress == nil {
		link.progress = os.Stderr
	}
	go link.read(os.Stdin)
	opt := launch.Options{
		Scenario: c.String("scenario"), Out: c.String("out"), Run: c.String("run"),
		IDsPerProcess: c.Int("ids-per-process"), Group: c.String("group"), Control: c.String("control"),
		Iface: c.String("iface"), KeyFile: c.String("key-file"), TTL: c.Int("ttl"),
		MaxOffset: c.Duration("max-offset"), Dilation: c.Int("dilation"), Command: runNodeCommand,
		IDs: ids, NoPlayer: !c.Bool("player"), TraceSink: c.String("trace-sink"),
		Host:     c.String("host"),
		Progress: c.App.ErrWriter,
		Ready: func(r launch.Readiness) {
			b, _ := json.Marshal(r)
			fmt.Fprintf(stdout, "%s%s\n", hosts.ReadyPrefix, b)
		},
		Manual: manual,
		Applied: func(r trace.FaultRecord) {
			b, _ := json.Marshal(r)
			fmt.Fprintf(stdout, "%s%s\n", hosts.FaultPrefix, b)
		},
	}
	if later != nil {
		opt.StartLater = later
	} else {
		opt.Start = time.Unix(0, c.Int64("start"))
	}
	if opt.Progress == nil {
		opt.Progress = os.Stderr
	}
	r, err := launch.Run(ctx, s, opt)
	if r != nil {
		res.Elapsed, res.Interrupted, res.Failures, res.Unapplied = r.Elapsed, r.Interrupted, r.Failures, r.Unapplied
		res.TraceErrors, res.Procs, res.Deadlines = r.TraceErrors, r.Procs, r.Deadlines
	}
	if err == nil && r == nil {
		err = errors.New("launch: no result")
	}
	return err
}
