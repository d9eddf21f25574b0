package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"manetlab/experiment"
	"manetlab/internal/safefs"
	"manetlab/scenario"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "simulate every combination of scenario overrides over several seeds and tabulate the metrics",
		ArgsUsage: "SCENARIO.yaml",
		UsageText: `manetlab sweep SCENARIO.yaml --vary path=v1|v2... [--vary ...] [--seeds N] [--set path=value]... [--out DIR] [--json]
       [--columns A,B,...] [--html FILE [--metric NAME]]
   manetlab sweep SCENARIO.yaml --vary ... --seeds N --plan
   manetlab sweep SCENARIO.yaml --vary ... --seeds N --results DIR [--shard I/N | --shard N] [--traces]
   manetlab sweep collect DIR [--json] [--html FILE [--metric NAME]] [--watch]

Examples:
   manetlab sweep configs/quickstart.yaml --vary 'protocol.name=adhoc/vasudevan|baseline/floodmax' --seeds 5
   manetlab sweep configs/vasudevan-paper.yaml --vary 'nodes.count=20|60|120' \
       --vary 'mobility.speed=[1,3]|[1,19]' --seeds 3 --json
   manetlab sweep configs/ring-chang-roberts.yaml --vary 'nodes.count=4|8|16' \
       --vary 'protocol.params.ring=ascending|descending' --html cr.html`,
		Description: `Each row is one combination of the --vary values (separated by '|', because
commas belong to YAML lists); each metric is the mean±sd over seeds 1..N:
F (share of node-time in an election), leader (share of node-time with a
leader), R (elections per node per minute), T (election time, s), M_bcast and
M_ucast (messages per node per election), wrong_or_unknown (share of
node-time whose leader is not its component's best), messages (total), frames
(every transmission, relays and link frames included) and frames_per_election.
Protocols whose counts theory predicts (ring elections) add
complexity.messages, .announce, .transport, .control, .time and theory for
each run: complexity.bound (the formula for n), .exact (for the
arrangement), .best and .worst. Runs with critical sections (mutual
exclusion) add mutex.messages_per_entry, .sync_delay (s), .sync_messages,
.waiting_mean and .waiting_p95 (s), .throughput (entries/s), .overtakes,
.jain, .waiting_at_end, .entries, .violations and theory's .theory_lo and
.theory_hi messages per entry. "valid", "invalid" and "unsettled" count runs
by final verdict (invalid: a settled component with a wrong leader;
unsettled: components changed too recently to judge). docs/analysis.md
defines every metric and verdict.

--json prints {"scenario", "axes": [{"path", "values"}], "seeds",
"points": [{"values", "runs", "valid", "invalid", "unsettled", "mean", "sd",
"theory"}]}: every
key lower-case, "mean" and "sd" keyed by metric name.

--columns valid,F,T chooses the text table's columns after the axes (the
verdict counts and any metric above; default all). F, leader and
wrong_or_unknown print as fractions (0.0330), as trace report and --json
give them.

--html FILE writes a self-contained page: a line chart of --metric (default
complexity.sync_messages for round protocols, else complexity.messages
where measured, else mutex.messages_per_entry, else F) against the first
--vary axis (or, when its values are not numbers, the first --vary axis
whose values are), one line per combination of the other axes, with the
theory beside complexity.messages, complexity.sync_messages (the counting
rule) and mutex.messages_per_entry; then every point's metrics and the
command line.

--plan prints the runs (tab-separated: id, each axis's value, seed); a run's
id is derived from the base scenario's hash, the point and the seed, so the
same grid always gives the same ids. --results DIR writes one record per
run into DIR (DIR/ID.json, written atomically; runs already there are
skipped) and --shard I/N runs only every N-th run from I (--shard N: I from
SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PARALLEL_SEQ less one);
"sweep collect DIR" then prints the table, JSON or chart of the whole
sweep. Every sweep writes runs.csv and runs.parquet, one row per run,
into --out or DIR. docs/sweeps.md: Slurm, GNU parallel, Kubernetes.

   manetlab sweep configs/sync-timeslice.yaml --vary 'protocol.params.synchronizer=simple|alpha|beta|abd' \
       --vary 'nodes.count=8|16|32|64' --html sync.html

   manetlab sweep configs/mutex-ricart-agrawala.yaml \
       --vary 'workload.rate=0.1|0.5|2' --vary 'protocol.name=mutex/centralized|mutex/ricart-agrawala' \
       --html mutex.html --metric mutex.messages_per_entry`,
		Subcommands: []*cli.Command{sweepCollectCommand()},
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "set", Usage: "override a scenario field in every run (repeatable)"},
			&cli.StringSliceFlag{Name: "vary", Usage: "a field and its values, path=v1|v2 (repeatable)"},
			&cli.IntFlag{Name: "seeds", Value: 3, Usage: "seeds 1..N per combination"},
			&cli.IntFlag{Name: "workers", Value: 2, Usage: "simulations run at once"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "trace directory (default runs/sweep-NAME)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
			columnsFlagDef(),
			&cli.StringFlag{Name: "html", Usage: "write a chart of the sweep to this HTML file"},
			&cli.StringFlag{Name: "metric", Usage: "the metric the HTML chart draws (default complexity.sync_messages for round protocols, else complexity.messages where measured, else mutex.messages_per_entry, else F)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress line"},
			&cli.BoolFlag{Name: "plan", Usage: "print the runs (id, axis values, seed) and run none"},
			&cli.StringFlag{Name: "results", Usage: "write one record per run into `DIR` (runs already there are skipped); docs/sweeps.md"},
			&cli.StringFlag{Name: "shard", Usage: "with --results: run only the I-th of N slices, `I/N` (0 <= I < N), or N with I from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PARALLEL_SEQ-1"},
			&cli.BoolFlag{Name: "traces", Usage: "with --results: keep each run's traces in DIR/traces/ID"},
			allowLargeFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("sweep needs exactly one scenario file")
			}
			if m := c.String("metric"); m != "" {
				if err := experiment.CheckMetric(m); err != nil {
					return err
				}
			}
			if err := experiment.CheckColumns(columnsFlag(c)); err != nil {
				return err
			}
			for _, name := range []string{"seeds", "workers"} {
				if n := c.Int(name); n < 1 {
					return fmt.Errorf("--%s %d: want 1 or more", name, n)
				}
			}
			opt := experiment.Options{Scenario: c.Args().First(), Sets: c.StringSlice("set"),
				Seeds: c.Int("seeds"), Workers: c.Int("workers"), Out: c.String("out"), Version: sweepVersion()}
			if s, err := scenario.Load(opt.Scenario, opt.Sets); err == nil {
				printWarnings(c, s.Warnings) // errors come with the grid's
			}
			if opt.Out == "" {
				base := filepath.Base(opt.Scenario)
				opt.Out = filepath.Join("runs", "sweep-"+base[:len(base)-len(filepath.Ext(base))])
			}
			for _, v := range c.StringSlice("vary") {
				a, err := experiment.ParseAxis(v)
				if err != nil {
					return err
				}
				opt.Axes = append(opt.Axes, a)
			}
			if c.String("html") != "" && len(opt.Axes) == 0 {
				return fmt.Errorf("--html charts against the first --vary axis: give at least one --vary")
			}
			opt.Check = func(points []*scenario.Scenario) error {
				b, err := estimateSweep(points, opt.Seeds, opt.Workers)
				if err != nil {
					return err
				}
				return b.check(c, opt.Out, readMachine())
			}
			if !c.Bool("quiet") {
				opt.Progress = func(done, total int) {
					fmt.Fprintf(os.Stderr, "\rsweep: %d/%d runs", done, total)
					if done == total {
						fmt.Fprintln(os.Stderr)
					}
				}
			}
			if c.Bool("plan") {
				p, err := experiment.NewPlan(opt)
				if err != nil {
					return err
				}
				return p.WritePlan(c.App.Writer)
			}
			if c.IsSet("results") || c.IsSet("shard") || c.Bool("traces") {
				return sweepResults(c, opt)
			}
			res, recs, err := experiment.RunRecords(opt)
			if err != nil {
				return err
			}
			if err := printSweep(c, res, sweepCommandLine(c)); err != nil {
				return err
			}
			p, err := experiment.NewPlan(opt)
			if err != nil {
				return err
			}
			return writeTidy(c, opt.Out, p, recs)
		},
	}
}

// printSweep prints a sweep's table or JSON and writes its chart.
func printSweep(c *cli.Context, res *experiment.Result, command string) error {
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := res.WriteColumns(c.App.Writer, columnsFlag(c)); err != nil {
		return err
	}
	if path := c.String("html"); path != "" {
		var buf bytes.Buffer
		if err := res.WriteHTML(&buf, experiment.HTMLOptions{Metric: c.String("metric"), Command: command}); err != nil {
			return err
		}
		if err := safefs.WriteFile(path, buf.Bytes()); err != nil {
			return err
		}
		if !c.Bool("quiet") {
			fmt.Fprintf(os.Stderr, "sweep: wrote %s\n", path)
		}
	}
	return nil
}

// writeTidy writes the runs' CSV and Parquet tables into dir.
func writeTidy(c *cli.Context, dir string, p *experiment.Plan, recs []*experiment.Record) error {
	paths, err := experiment.WriteTidy(dir, p, recs)
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(os.Stderr, "sweep: wrote %s\n", strings.Join(paths, ", "))
	}
	return nil
}

// sweepCommandLine spells out the sweep as a command line that repeats
// it, for the HTML page.
func sweepCommandLine(c *cli.Context) string {
	args := []string{"manetlab", "sweep", c.Args().First()}
	for _, name := range []string{"set", "vary"} {
		for _, v := range c.StringSlice(name) {
			args = append(args, "--"+name, v)
		}
	}
	args = append(args, "--seeds", fmt.Sprint(c.Int("seeds")))
	for _, name := range []string{"out", "metric", "html"} {
		if v := c.String(name); v != "" {
			args = append(args, "--"+name, v)
		}
	}
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// columnsFlagDef is the --columns flag of sweep and sweep collect.
func columnsFlagDef() cli.Flag {
	return &cli.StringFlag{Name: "columns", Usage: "the text table's columns after the axes, comma-separated `NAMES` (e.g. valid,F,T,messages; default all: valid, invalid, unsettled and every metric measured)"}
}

// columnsFlag is --columns as a list; nil: every column.
func columnsFlag(c *cli.Context) []string {
	if c.String("columns") == "" {
		return nil
	}
	var cols []string
	for _, s := range strings.Split(c.String("columns"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			cols = append(cols, s)
		}
	}
	return cols
}
