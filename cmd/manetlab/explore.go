package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"manetlab/explore"
	"manetlab/internal/safefs"
)

// errViolation makes `explore` exit with status 1 after printing the
// violation it found (a plain error, as errInvalid).
var errViolation = errors.New("explore: a property is violated")

func exploreCommand() *cli.Command {
	return &cli.Command{
		Name:      "explore",
		Usage:     "search the orders of events of a small simulator run for a violation (docs/explore.md)",
		ArgsUsage: "SCENARIO.yaml",
		UsageText: `manetlab explore SCENARIO.yaml [--set path=value]... [--seed N] [--strategy bfs|dfs|random|pct] [--depth D]
       [--states N] [--schedules N] [--time T] [--crashes k] [--drops k] [--pct-depth d] [--por] [--out FILE.json]

Examples:
   manetlab explore configs/explore-ring.yaml
   manetlab explore configs/explore-ring.yaml --set nodes.count=4 --strategy bfs --depth 60
   manetlab explore configs/explore-mutex.yaml --strategy pct --schedules 2000 --time 30s
   manetlab explore configs/explore-mutex.yaml --crashes 1 --drops 1 --states 50000`,
		Description: `Runs the scenario in the simulator under a controlled scheduler and
searches the orders in which its pending events may happen: the protocol's
message deliveries (any frame in flight may arrive first, earlier than the
radio's delay), its timers, boots, faults and commands (each when it is due),
and with --crashes and --drops up to k crashes (and recoveries) of any node
and up to k drops of any frame, at any point. The network's own events
(hellos, link acknowledgements, relays) and the reliable channel's happen in
the simulator's order. After every step it checks at most one leader per
epoch, mutual exclusion and the election's messages within the protocol's
worst case; when nothing is left to happen but the periodic hellos, every
request granted and every component following its best node.

bfs and dfs are exhaustive within --depth choices, a state seen before (the
same fingerprint of every node's protocol and network state and the pending
events) explored once; random and pct (probabilistic concurrency testing)
run --schedules schedules. --states and --time bound any search. With --por,
dfs uses sleep sets (a partial-order reduction): of two choices at different
nodes due at one time, one order is taken; far fewer states, but not exact:
the network's own events at that time then happen in one order only, and some
protocol states the plain search reaches are not (docs/explore.md).

It ends with one line: "no violation in N states (exhaustive to depth D)",
"no violation (budget reached after ...)", or the first violation, minimised,
written as a schedule file (--out) with the commands that replay it. A
violation exits with status 1. The scenario must use radio.mac: ideal.`,
		Flags: append(scenarioFlags(),
			&cli.StringFlag{Name: "strategy", Value: explore.DFS, Usage: "bfs, dfs, random or pct"},
			&cli.IntFlag{Name: "depth", Value: explore.DefaultDepth, Usage: "the most choices on a schedule"},
			&cli.IntFlag{Name: "states", Usage: "stop after `N` states (0: no limit)"},
			&cli.IntFlag{Name: "schedules", Value: explore.DefaultSchedules, Usage: "random and pct: the schedules to run"},
			&cli.DurationFlag{Name: "time", Usage: "stop after this much wall time (0: no limit)"},
			&cli.IntFlag{Name: "crashes", Usage: "up to `k` crashes (each node crashed may be recovered) at any point"},
			&cli.IntFlag{Name: "drops", Usage: "up to `k` frames dropped at any point"},
			&cli.IntFlag{Name: "pct-depth", Value: 3, Usage: "pct: the bug depth d (d-1 priority change points)"},
			&cli.BoolFlag{Name: "por", Usage: "dfs: sleep sets, one order of two choices at different nodes due at one time (not exact: docs/explore.md)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the violation's schedule file (default NAME-violation.json)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress line"},
		),
		Action: func(c *cli.Context) error {
			s, err := loadScenario(c)
			if err != nil {
				return err
			}
			opt := explore.Options{Strategy: c.String("strategy"), Depth: c.Int("depth"), States: c.Int("states"),
				Schedules: c.Int("schedules"), Time: c.Duration("time"), Crashes: c.Int("crashes"), Drops: c.Int("drops"),
				PCTDepth: c.Int("pct-depth"), POR: c.Bool("por")}
			if c.IsSet("seed") {
				opt.Seed = c.Uint64("seed")
			}
			if opt.Depth <= 0 {
				return fmt.Errorf("explore: --depth %d: want at least 1", opt.Depth)
			}
			if !c.Bool("quiet") {
				opt.Progress = c.App.ErrWriter
				if opt.Progress == nil {
					opt.Progress = os.Stderr
				}
			}
			res, err := explore.Run(s, opt)
			if err != nil {
				return err
			}
			w := c.App.Writer
			rate := float64(res.Distinct) / max(res.Elapsed.Seconds(), 1e-9)
			fmt.Fprintf(w, "explored %d states (%d distinct, %.0f distinct/s), %d schedules, depth up to %d, %d quiescent, in %s (%s)\n",
				res.States, res.Distinct, rate, res.Schedules, res.MaxDepth, res.Quiescent, res.Elapsed.Round(1e6), opt.Strategy)
			for _, n := range res.Notes {
				fmt.Fprintf(w, "note: %s\n", n)
			}
			v := res.Violation
			switch {
			case v == nil && res.Exhaustive:
				fmt.Fprintf(w, "no violation in %d states (exhaustive to depth %d)\n", res.States, opt.Depth)
				return nil
			case v == nil:
				fmt.Fprintf(w, "no violation (budget reached after %d states, %d schedules, %s: %s)\n",
					res.States, res.Schedules, res.Elapsed.Round(1e6), res.Budget)
				return nil
			}
			out := c.String("out")
			if out == "" {
				out = s.Name + "-violation.json"
			}
			v.Schedule.Scenario = c.Args().First()
			v.Schedule.Set = c.StringSlice("set")
			if err := safefs.WriteFile(out, v.Schedule.JSON()); err != nil {
				return fmt.Errorf("explore: %w", err)
			}
			runDir := "runs/" + strings.TrimSuffix(filepath.Base(out), ".json")
			fmt.Fprintf(w, "violation: %s: %s\n", v.Property, v.Witness)
			fmt.Fprintf(w, "  at step %d; schedule minimised from %d to %d choices, written to %s\n", v.Step, v.Found, len(v.Schedule.Choices), out)
			fmt.Fprintf(w, "  replay: manetlab sim %s --schedule %s --out %s && manetlab trace check %s\n", c.Args().First(), out, runDir, runDir)
			fmt.Fprintf(w, "  step through it: manetlab studio %s --schedule %s\n", c.Args().First(), out)
			return errViolation
		},
	}
}
