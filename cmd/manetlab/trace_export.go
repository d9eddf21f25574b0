package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"manetlab/internal/safefs"
	"manetlab/node"
	"manetlab/trace/export"
)

func traceExportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a run for ShiViz (vector-clock log), ns-3 NetAnim (XML) or as a Parquet table of events",
		ArgsUsage: "DIR...",
		UsageText: `manetlab trace export --format shiviz|netanim|parquet DIR... [-o FILE] [--nodes 1,2,5] [--from 10s] [--to 40s] [--step 1s]

Examples:
   manetlab trace export --format shiviz runs/quickstart-seed1 -o run.shiviz.log
   manetlab trace export --format netanim runs/quickstart-seed1 --nodes 1-5 --from 10s --to 40s -o run.xml
   manetlab trace export --format parquet runs/quickstart-seed1 -o events.parquet`,
		Description: `shiviz: a log ShiViz loads (first line its parsing regex, second line empty,
then per event a description line and "nodeN {vector clock}"), clocks computed
from process order and send->recv edges; every host's own entry runs 1, 2, 3...
over the events written. netanim: <anim ver="netanim-3.108">, nodes, position
updates every --step, colours by role (leader red, followers by leader, no
leader grey, crashed black), one packet per matched send->recv. parquet: one
row per event in merge order, typed columns (t in ns, node, ev, kind, from,
to, seq, ..., src; docs/sweeps.md lists them). --nodes and
--from/--to (time since the run's start) select what is written. Trace problems
go to stderr as file:line: message. docs/collect.md describes the output.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "shiviz, netanim or parquet", Required: true},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write to `FILE` (default stdout)"},
			&cli.StringFlag{Name: "nodes", Usage: "only these nodes, e.g. 1,2,5 or 1-10"},
			&cli.DurationFlag{Name: "from", Usage: "only events at or after this time since the start"},
			&cli.DurationFlag{Name: "to", Usage: "only events before this time since the start (default: the end)"},
			&cli.DurationFlag{Name: "step", Value: 1e9, Usage: "netanim: position sampling period"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return errors.New("trace export: give the trace directory")
			}
			opt := export.Options{From: c.Duration("from"), To: c.Duration("to"), Step: c.Duration("step"), Problems: c.App.ErrWriter}
			if c.IsSet("nodes") {
				ids, err := node.ParseIDs(c.String("nodes"))
				if err != nil {
					return fmt.Errorf("trace export: --nodes: %w", err)
				}
				opt.Nodes = ids
			}
			if opt.To > 0 && opt.To <= opt.From {
				return errors.New("trace export: --to must be after --from")
			}
			var run func([]string, io.Writer, export.Options) (*export.Report, error)
			switch c.String("format") {
			case "shiviz":
				run = export.ShiViz
			case "netanim":
				run = export.NetAnim
			case "parquet":
				run = export.Parquet
			default:
				return fmt.Errorf("trace export: --format %q: shiviz, netanim or parquet", c.String("format"))
			}
			var w io.Writer = c.App.Writer
			var f *os.File
			out := c.String("out")
			if out != "" {
				// Write beside the target and rename on success, so that
				// a failed export neither leaves a partial file nor
				// clobbers an earlier one.
				var err error
				if f, err = safefs.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+"."); err != nil {
					return err
				}
				defer os.Remove(f.Name())
				defer f.Close()
				w = f
			}
			defer showProgress(c, "trace export")()
			rep, err := run(c.Args().Slice(), w, opt)
			if err != nil {
				return err
			}
			if f != nil {
				if err := f.Close(); err != nil {
					return err
				}
				if err := os.Chmod(f.Name(), 0o644); err != nil {
					return err
				}
				if err := safefs.Rename(f.Name(), out); err != nil {
					return err
				}
			}
			if c.String("format") == "parquet" { // no pairs or packets: one row per event
				fmt.Fprintf(c.App.ErrWriter, "exported %d events, %d hosts; %d trace problems\n", rep.Events, rep.Hosts, rep.Problems)
				return nil
			}
			fmt.Fprintf(c.App.ErrWriter, "exported %d events, %d hosts, %d send->recv pairs, %d packets (%d receptions); %d trace problems\n",
				rep.Events, rep.Hosts, rep.Edges, rep.Packets, rep.Receptions, rep.Problems)
			return nil
		},
	}
}
