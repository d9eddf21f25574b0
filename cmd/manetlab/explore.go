package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"manetlab/explore"
	"manetlab/internal/safefs"
	"manetlab/sim"
)

// errViolation makes `explore` exit with status 1 after printing the
// violation it found (a plain error, as errInvalid).
var errViolation = errors.New("explore: a property is violated")

// ExitUnconfirmed is explore's exit status when the search found a
// violation that the replay of its schedule does not show (a bug of the
// explorer, not reported as a violation: docs/explore.md, "A violation").
const ExitUnconfirmed = 4

func exploreCommand() *cli.Command {
	return &cli.Command{
		Name:      "explore",
		Usage:     "search the orders of events of a small simulator run for a violation (docs/explore.md)",
		ArgsUsage: "SCENARIO.yaml",
		UsageText: `manetlab explore SCENARIO.yaml [--set path=value]... [--seed N] [--strategy bfs|dfs|random|pct] [--depth D]
       [--states N] [--schedules N] [--time T] [--crashes k] [--drops k] [--pct-depth d] [--por] [--memory SIZE] [--out FOLDER]

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
and up to k drops of any frame, at any point. The network's link
acknowledgements and route discovery frames arrive at once (a message never
waits behind the frames in flight); its other events (hellos, relays, its
timers) and the reliable channel's happen in the simulator's order. After
every step it checks at most one leader per
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
replayed through the simulator and trace check, and written as a schedule
file, numbered, into the folder --out names (default runs/NAME-explore),
with the replay's traces. A violation exits with status 1; one its replay
does not show (a bug of the explorer, not reported) with status 4. The
search stops at --memory (default: half the available memory) like at the
other budgets. The scenario must use radio.mac: ideal.`,
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
			&cli.StringFlag{Name: "memory", Usage: "stop when the search holds this much memory (`SIZE`: e.g. 500MiB, 4GiB; none: no bound; default: half the available memory)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the `FOLDER` of the violation files: violation-N.json, numbered, never overwritten, and violation-N/, its replay's traces (default runs/NAME-explore)"},
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
			if c.IsSet("memory") {
				if opt.Memory, err = parseMemory(c.String("memory")); err != nil {
					return err
				}
			}
			if strings.HasSuffix(c.String("out"), ".json") {
				return fmt.Errorf("explore: --out %.80q: names the folder of the violation files (violation-N.json in it), not a file", c.String("out"))
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
			if res.Memory != "" {
				fmt.Fprintf(w, "%s\n", res.Memory)
			}
			for _, n := range res.Notes {
				fmt.Fprintf(w, "note: %s\n", n)
			}
			v := res.Violation
			if u := res.Unconfirmed; v == nil && u != nil {
				return exitStatus{ExitUnconfirmed, fmt.Sprintf("explore: the search found %s (%s), but the replay of its schedule does not show it: %s; not reported as a violation: a bug of the explorer (schedule: %s); exit status %d",
					u.Property, u.Witness, u.Replayed, strings.Join(strings.Fields(string(u.Schedule.JSON())), " "), ExitUnconfirmed), false}
			}
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
				out = filepath.Join("runs", s.Name+"-explore")
			}
			v.Schedule.Scenario = c.Args().First()
			v.Schedule.Set = c.StringSlice("set")
			if v.Schedule.ScenarioHash, err = s.Hash(); err != nil {
				return fmt.Errorf("explore: the scenario's hash: %w", err)
			}
			file, runDir, err := writeViolation(out, v.Schedule.JSON())
			if err != nil {
				return err
			}
			if _, err := sim.RunSchedule(s, sim.Options{Out: runDir}, v.Schedule); err != nil {
				return fmt.Errorf("explore: replaying the violation into %s: %w", runDir, err)
			}
			fmt.Fprintf(w, "violation: %s: %s\n", v.Property, v.Witness)
			fmt.Fprintf(w, "  at step %d; schedule minimised from %d to %d choices, written to %s\n", v.Step, v.Found, len(v.Schedule.Choices), file)
			fmt.Fprintf(w, "  replayed: %s\n", v.Replayed)
			fmt.Fprintf(w, "  the replay's traces: %s (manetlab trace check %s)\n", runDir, runDir)
			fmt.Fprintf(w, "  replay again: manetlab sim %s --schedule %s --out DIR\n", c.Args().First(), file)
			fmt.Fprintf(w, "  step through it: manetlab studio %s --schedule %s\n", c.Args().First(), file)
			return errViolation
		},
	}
}

// parseMemory reads --memory: a size with a unit (B, KiB, MiB, GiB, TiB;
// KB, MB, GB, TB as the same powers of two) or "none" (-1: no bound).
func parseMemory(v string) (int64, error) {
	if strings.EqualFold(v, "none") {
		return -1, nil
	}
	units := []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}, {"KB", 10}, {"MB", 20}, {"GB", 30}, {"TB", 40}, {"B", 0}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			if n, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil && n > 0 && n*float64(uint64(1)<<u.shift) < 1<<62 {
				return max(int64(n*float64(uint64(1)<<u.shift)), 1), nil
			}
			break
		}
	}
	return 0, fmt.Errorf("explore: --memory %.40q: want a size such as 500MiB or 4GiB, or none", v)
}

// writeViolation writes a violation's schedule into folder dir (created
// if need be) as violation-N.json, N the first number for which neither
// the file nor the replay's folder violation-N exists (the file created
// exclusively: never overwritten), and returns the file and the replay's
// folder.
func writeViolation(dir string, schedule []byte) (file, run string, err error) {
	d, err := safefs.OpenDir(dir, true)
	if err != nil {
		return "", "", fmt.Errorf("explore: --out: %w", err)
	}
	defer d.Close()
	for n := 1; n < 1<<20; n++ {
		run = filepath.Join(dir, fmt.Sprintf("violation-%d", n))
		file = run + ".json"
		if _, err := os.Lstat(run); err == nil {
			continue
		}
		f, err := d.OpenFile(filepath.Base(file), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("explore: %w", err)
		}
		if _, err := f.Write(schedule); err != nil {
			f.Close()
			return "", "", fmt.Errorf("explore: %w", err)
		}
		return file, run, f.Close()
	}
	return "", "", fmt.Errorf("explore: %s holds too many violation files", dir)
}
