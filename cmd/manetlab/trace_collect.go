package main

import (
	"context"
	"errors"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"manetlab/trace/collect"
)

func traceCollectCommand() *cli.Command {
	return &cli.Command{
		Name:      "collect",
		Usage:     "receive the traces nodes stream with --trace-sink",
		ArgsUsage: " ",
		UsageText: `manetlab trace collect --listen ADDR --out DIR [--run NAME] [--run-file FILE]

Examples:
   manetlab trace collect --listen 0.0.0.0:47100 --out runs/q1
   manetlab node --scenario S --id 3 --out runs/q1 --run q1 --trace-sink collector:47100`,
		Description: `Listens on ADDR (TCP) and appends each node's streamed trace to
DIR/node-<id>.jsonl. On every connection it tells the node how many bytes it
already holds and the node resends from there, out of its local file, so a
dropped connection, a restarted node or a restarted collector loses and
doubles nothing. Only complete lines are written. Nodes of another run are
refused and reported. The run file is not streamed: give it with --run-file
(copied to DIR/run.jsonl) or write it later (manetlab run --collected).
Stops on SIGINT/SIGTERM. docs/collect.md describes the protocol.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "TCP `ADDR` to listen on, host:port", Required: true},
			&cli.StringFlag{Name: "out", Usage: "trace `DIR`", Required: true},
			&cli.StringFlag{Name: "run", Usage: "run `NAME` to accept (default: the run file's, DIR's, else the first node's)"},
			&cli.StringFlag{Name: "run-file", Usage: "copy this run `FILE` to DIR/run.jsonl"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return errors.New("trace collect: no arguments (use --listen and --out)")
			}
			col, err := collect.Listen(c.String("listen"), collect.Options{Dir: c.String("out"), Run: c.String("run"),
				RunFile: c.String("run-file"), Log: c.App.ErrWriter})
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return serveUntil(ctx, col)
		},
	}
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
