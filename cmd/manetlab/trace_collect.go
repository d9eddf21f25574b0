package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"manetlab/node"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/collect"
)

func traceCollectCommand() *cli.Command {
	return &cli.Command{
		Name:      "collect",
		Usage:     "receive the traces nodes stream with --trace-sink",
		ArgsUsage: " ",
		UsageText: `manetlab trace collect --out DIR --scenario S [--run NAME] [--run-file FILE]
    [--listen 127.0.0.1:47100] [--key-file F] [--set path=value]... [--seed N]
    [--max-conns N] [--max-line BYTES] [--hello-timeout 10s] [--idle-timeout 60s]

Examples:
   manetlab trace collect --out runs/q1 --run q1 --scenario S            # nodes on this machine
   manetlab trace collect --out runs/q1 --run q1 --scenario S --listen 0.0.0.0:47100 --key-file run.key
   manetlab node --scenario S --id 3 --out runs/q1 --run q1 --key-file run.key --trace-sink collector:47100`,
		Description: `Listens on ADDR (TCP; loopback by default) and appends each node's streamed
trace to DIR/node-<id>.jsonl. On every connection it tells the node how many
bytes it already holds and the node resends from there, out of its local
file, so a dropped connection, a restarted node or a restarted collector
loses and doubles nothing. Only complete lines are written.

With the run's key (--key-file, else $MANETLAB_KEY, as for node) every node
must prove it holds it; without one only loopback peers are accepted. Only
the scenario's nodes (--scenario with --set/--seed, else the run file's),
one live stream each, of the run --run (else the run file's, DIR's, or with
a key the first authenticated node's) are accepted; the rest are refused
and reported. The connections, the line length and the time without a
complete line are capped (docs/security.md).

The run file is not streamed: give it with --run-file (copied to
DIR/run.jsonl) or write it later (manetlab run --collected). Stops on
SIGINT/SIGTERM. docs/collect.md describes the protocol.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:47100", Usage: "TCP `ADDR` to listen on, host:port (another host than loopback needs a key to accept anyone)"},
			&cli.StringFlag{Name: "out", Usage: "trace `DIR`", Required: true},
			&cli.StringFlag{Name: "run", Usage: "run `NAME` to accept (default: the run file's, DIR's, else with a key the first node's)"},
			&cli.StringFlag{Name: "run-file", Usage: "copy this run `FILE` to DIR/run.jsonl (its scenario names the nodes when --scenario is not given)"},
			&cli.StringFlag{Name: "scenario", Usage: "the run's scenario `FILE`: its nodes may stream"},
			&cli.StringFlag{Name: "key-file", Usage: "the run's HMAC key `FILE` (default $MANETLAB_KEY)"},
			&cli.IntFlag{Name: "max-conns", Usage: "cap on the connections held (default: 2 × nodes + 16)"},
			&cli.IntFlag{Name: "max-line", Value: collect.DefaultMaxLine, Usage: "longest trace line accepted, in `BYTES`"},
			&cli.DurationFlag{Name: "hello-timeout", Value: collect.DefaultHelloTimeout, Usage: "time a connection has for its handshake"},
			&cli.DurationFlag{Name: "idle-timeout", Value: collect.DefaultIdleTimeout, Usage: "a stream without a complete line for this long is closed (the node reconnects)"},
		}, scenarioFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return errors.New("trace collect: no arguments (use --out and --scenario)")
			}
			members, err := collectMembers(c)
			if err != nil {
				return err
			}
			key, err := node.LoadKey(c.String("key-file"))
			if err != nil {
				return fmt.Errorf("trace collect: %w", err)
			}
			col, err := collect.Listen(c.String("listen"), collect.Options{Dir: c.String("out"), Run: c.String("run"),
				RunFile: c.String("run-file"), Members: members, Key: key, Log: c.App.ErrWriter,
				MaxConns: c.Int("max-conns"), MaxLine: c.Int("max-line"),
				HelloTimeout: c.Duration("hello-timeout"), IdleTimeout: c.Duration("idle-timeout")})
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return serveUntil(ctx, col)
		},
	}
}

// collectMembers are the run's node IDs: --scenario's (with --set and
// --seed), else those of the scenario in --run-file.
func collectMembers(c *cli.Context) ([]protocol.NodeID, error) {
	if c.String("scenario") != "" {
		s, err := scenarioFlag(c)
		if err != nil {
			return nil, err
		}
		return s.MemberIDs(), nil
	}
	if p := c.String("run-file"); p != "" {
		h, err := trace.ReadHeader(p)
		if err != nil {
			return nil, fmt.Errorf("trace collect: run file: %w", err)
		}
		s, err := scenario.Parse([]byte(h.Scenario), p, nil)
		if err != nil {
			return nil, fmt.Errorf("trace collect: the scenario of run file %s: %w", p, err)
		}
		return s.MemberIDs(), nil
	}
	return nil, errors.New("trace collect: which nodes may stream? give the run's --scenario (or --run-file)")
}

// serveUntil runs the collector until ctx ends.
func serveUntil(ctx context.Context, col *collect.Collector) error {
	errc := make(chan error, 1)
	go func() { errc <- col.Serve() }()
	select {
	case <-ctx.Done():
		cerr := col.Close()
		<-errc
		return cerr
	case err := <-errc:
		col.Close()
		return err
	}
}
