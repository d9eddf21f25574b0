package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"manetlab/live"
	"manetlab/node/launch"
	"manetlab/protocol"
	"manetlab/scenario"
)

// liveFDEnv names the file descriptor of the live page's listener that
// run hands to itself when it moves into a private network namespace:
// the socket stays in this one, where the browser is.
const liveFDEnv = "MANETLAB_LIVE_FD"

func liveFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "live", Usage: "serve a live page of the run on 127.0.0.1 (docs/live.md): the map, the leaders, the verdict so far, rates; click a node to crash or recover it"},
		&cli.IntFlag{Name: "port", Usage: "with --live, the page's port; 0, the default, takes a free one", DefaultText: "0"},
	}
}

// liveListener is the live page's listener: the one handed over by the
// process that moved this one into a private network namespace, else a
// new one on 127.0.0.1:--port.
func liveListener(c *cli.Context) (net.Listener, error) {
	if fd := os.Getenv(liveFDEnv); fd != "" {
		n, err := strconv.Atoi(fd)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: not a file descriptor", liveFDEnv, fd)
		}
		f := os.NewFile(uintptr(n), "live-listener")
		defer f.Close()
		return net.FileListener(f)
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", c.Int("port")))
	if err != nil {
		return nil, fmt.Errorf("--live: %w", err)
	}
	return ln, nil
}

// startLive serves the live page of the run in out on ln, printing its
// URL; the returned stop ends it once the run is over (the final verdict
// judged) and returns when it has.
func startLive(ctx context.Context, w io.Writer, ln net.Listener, s *scenario.Scenario, run, out string, f live.Faulter) (lv *live.Live, stop func()) {
	lv = live.New(live.Config{Dir: out, Faults: f, Scenario: s, Run: run, Judge: liveJudge()})
	sctx, cancel := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() { lv.Run(sctx); close(ran) }()
	served := make(chan struct{})
	go func() { lv.Serve(sctx, ln); close(served) }()
	fmt.Fprintf(w, "live: %s (the page follows %s; it stops with the run: manetlab trace watch %s shows it again)\n", lv.URL(ln.Addr()), out, out)
	return lv, func() {
		lv.Finish()
		<-ran
		cancel()
		<-served
	}
}

// manualFaults hands the page's faults to the launcher (launch.Options.Manual),
// or with --hosts to home, which sends each to its host's launcher.
type manualFaults struct {
	ch   chan launch.ManualFault
	done <-chan struct{} // closed when the launcher has returned
}

func (l manualFaults) Fault(id protocol.NodeID, recover bool) error {
	return l.send(launch.ManualFault{Node: id, Recover: recover, Done: make(chan error, 1)})
}

func (l manualFaults) Cut(a, b protocol.NodeID, heal bool) error {
	return l.send(launch.ManualFault{Node: a, Peer: b, Recover: heal, Done: make(chan error, 1)})
}

func (l manualFaults) CutHosts(a, b string, heal bool) error {
	return l.send(launch.ManualFault{Hosts: [2]string{a, b}, Recover: heal, Done: make(chan error, 1)})
}

func (l manualFaults) send(m launch.ManualFault) error {
	select {
	case l.ch <- m:
	case <-l.done:
		return errors.New("the run is over")
	case <-time.After(30 * time.Second):
		return errors.New("the launcher did not take the fault within 30s")
	}
	select {
	case err := <-m.Done:
		return err
	case <-l.done:
		return errors.New("the run ended before the fault was applied")
	}
}

// liveJudge is how a live page judges the run so far: in a child process
// of this binary (manetlab live-judge), so that what a judgement reads
// (every trace so far) does not stay in the server; nil (in the server)
// in a test binary not pointed at its helper.
func liveJudge() func(context.Context, live.JudgeRequest) live.Verdict {
	argv := runNodeCommand
	if argv == nil {
		exe, err := os.Executable()
		if err != nil || testing.Testing() {
			return nil
		}
		argv = []string{exe}
	}
	return live.JudgeInChild(append(slices.Clone(argv), "live-judge")...)
}

// liveJudgeCommand is the child of liveJudge: one judgement, the request
// (live.JudgeRequest, JSON) on standard input, the verdict on standard
// output.
func liveJudgeCommand() *cli.Command {
	return &cli.Command{
		Name:   "live-judge",
		Usage:  "judge the run so far for a live page (started by run --live and trace watch)",
		Hidden: true,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return errors.New("live-judge: takes its request on standard input, no arguments")
			}
			return live.ServeJudge(os.Stdin, c.App.Writer)
		},
	}
}

func traceWatchCommand() *cli.Command {
	return &cli.Command{
		Name:      "watch",
		Usage:     "serve the live page of a run directory as its files grow, read-only (docs/live.md)",
		ArgsUsage: "DIR",
		UsageText: "manetlab trace watch DIR [--port P]",
		Description: `Serves on 127.0.0.1 the page of run --live for the run in DIR, read from
its files as they grow (the run file's scenario, the node traces, the
faults record): a run started elsewhere (another terminal, run --hosts,
files collected by hand), or one that is over. It cannot crash or recover
nodes. The URL is printed; Ctrl-C stops it.`,
		Flags: []cli.Flag{&cli.IntFlag{Name: "port", Usage: "the page's port; 0, the default, takes a free one", DefaultText: "0"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errors.New("trace watch: want one run directory")
			}
			dir := c.Args().First()
			if st, err := os.Stat(dir); err != nil {
				return fmt.Errorf("trace watch: %w", err)
			} else if !st.IsDir() {
				return fmt.Errorf("trace watch: %s is not a directory", dir)
			}
			ln, err := liveListener(c)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			lv := live.New(live.Config{Dir: dir, Judge: liveJudge()})
			go lv.Run(ctx)
			fmt.Fprintf(c.App.Writer, "live: %s (following %s, read-only; Ctrl-C to stop)\n", lv.URL(ln.Addr()), dir)
			return lv.Serve(ctx, ln)
		},
	}
}

// errWriter is where the command's messages go (standard error unless a
// test set another).
func errWriter(c *cli.Context) io.Writer {
	if c.App.ErrWriter != nil {
		return c.App.ErrWriter
	}
	return os.Stderr
}
