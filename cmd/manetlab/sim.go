package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"

	"github.com/urfave/cli/v2"

	"manetlab/internal/safefs"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/report"
)

func simCommand() *cli.Command {
	return &cli.Command{
		Name:      "sim",
		Usage:     "run a scenario in the deterministic simulator (virtual time)",
		ArgsUsage: "SCENARIO.yaml",
		UsageText: `manetlab sim SCENARIO.yaml [--out DIR] [--seed N] [--set path=value]... [--json] [--schedule FILE]

Examples:
   manetlab sim configs/quickstart.yaml
   manetlab sim configs/quickstart.yaml --json --out runs/q
   manetlab sim configs/quickstart.yaml --set radio.range=250 --set radio.loss.p=0.1 \
       --set nodes.count=200 --set protocol.name=baseline/floodmax --seed 7`,
		Description: `Runs every node of the scenario in one process, in virtual time, writes one
trace file per node (or, from 1,000 nodes or with trace.layout: combined, every
node in nodes.jsonl) plus run.jsonl to --out, then prints a summary: the leader
of each connected component at the end and whether it is the component's best
node, messages by kind, and election time. The same scenario and seed write
byte-identical traces.

With --schedule, the choices of a studio session (a schedule file,
docs/studio.md: messages taken out of order, frames dropped, nodes crashed
by hand) are replayed at the steps they were made, then the run goes on in
the simulator's order to its end: the session's traces, byte for byte. A
schedule recorded on another scenario (its scenario_hash) is refused,
naming both; --other-scenario replays it anyway.`,
		Flags: append(scenarioFlags(),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "trace directory (default runs/NAME-seedN)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress line"},
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a Go CPU profile of the run to `FILE` (go tool pprof)"},
			scheduleFlag("replay a studio session's schedule `FILE` (docs/studio.md)"),
			otherScenarioFlag(),
			&cli.StringFlag{Name: "memprofile", Usage: "write Go heap profiles to `FILE` (at the end of the simulation) and FILE.end (after the summary)"},
			allowLargeFlag(),
			&cli.BoolFlag{Name: "estimate", Usage: "print the pre-start estimate (events, traces, memory, time) and exit without running"},
		),
		Action: func(c *cli.Context) error {
			if p := c.String("cpuprofile"); p != "" {
				stop, err := startCPUProfile(p)
				if err != nil {
					return err
				}
				defer stop()
			}
			s, sched, err := loadScheduled(c)
			if err != nil {
				return err
			}
			machine := readMachine()
			out := c.String("out")
			if out == "" {
				out = filepath.Join("runs", fmt.Sprintf("%s-seed%d", s.Name, s.Seed))
			}
			if sched == nil { // a schedule replays a studio session: small
				b, err := estimateSim(s)
				if err != nil {
					return err
				}
				if c.Bool("estimate") {
					b.write(c.App.Writer)
					return nil
				}
				if err := b.check(c, out, machine); err != nil {
					return fmt.Errorf("%s: %w", s.Path, err)
				}
			}
			setMemoryLimit(len(s.MemberIDs()), machine)
			// The summary reads the run from memory, not back from disk.
			opt := sim.Options{Out: out, Record: report.Keep}
			if !c.Bool("quiet") {
				opt.Progress = os.Stderr
			}
			var res *sim.Result
			if sched != nil {
				res, err = sim.RunSchedule(s, opt, sched)
			} else {
				res, err = sim.Run(s, opt)
			}
			var stopped *sim.TraceError
			if errors.As(err, &stopped) {
				return judgeStopped(c, res, out, stopped)
			}
			if err != nil {
				return err
			}
			if p := c.String("memprofile"); p != "" {
				if err := writeHeapProfile(p); err != nil {
					return err
				}
				defer writeHeapProfile(p + ".end")
			}
			printWarnings(c, res.Warnings)
			serr := printSummary(c, res.Recording, out, nil)
			if st := (exitStatus{}); serr != nil && !errors.As(serr, &st) || c.Bool("json") {
				return serr
			}
			fmt.Fprintf(c.App.Writer, "simulated %s in %s: %d events (%.0f/s), %d frames on the air (%d hellos; acknowledgements, relays and retransmissions included); traces in %s\n",
				res.Virtual, res.Wall.Round(1e6), res.Events, res.EventsPerSecond(), res.Frames, res.Hellos, out)
			return serr // the verdict's exit status (docs/analysis.md, "Exit statuses")
		},
	}
}

// judgeStopped ends a simulation that stopped because its traces could
// not be written (a full disk): it says so, summarises the traces as
// far as they were written (read back from disk: cut short, so never
// judged valid past where they stop) and fails naming the cause.
func judgeStopped(c *cli.Context, res *sim.Result, out string, stopped *sim.TraceError) error {
	printWarnings(c, res.Warnings)
	w := c.App.ErrWriter
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "manetlab: sim: %v; the summary below judges the traces as far as they were written\n", stopped)
	serr := printSummary(c, trace.Disk, out, nil)
	if serr != nil {
		return fmt.Errorf("sim: %w; and the traces written could not be summarised: %v", stopped, serr)
	}
	return fmt.Errorf("sim: %w (%d events simulated; traces in %s)", stopped, res.Events, out)
}

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := safefs.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// memoryPerNode is the garbage collector's soft memory limit per node of
// a run (setMemoryLimit): about three times what a static floodmax run
// holds live per node at 100,000 nodes, simulation and summary.
const memoryPerNode = 32 << 10

// setMemoryLimit bounds the heap of a simulation of n nodes, unless
// GOMEMLIMIT does: the collector's default lets the heap grow to twice
// what is live; under the limit it collects more often instead (at most
// half the CPU goes to it, so a run that needs more than the limit slows
// down rather than fails: 21 % of the CPU in a 100,000-node run whose
// live heap was twice the limit). The limit is n x memoryPerNode, at
// least 2 GiB (a long run of few nodes records many events) and at most
// three quarters of the available memory.
func setMemoryLimit(n int, m scenario.Machine) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := max(uint64(n)*memoryPerNode, 2<<30)
	if m.MemAvailable > 0 {
		limit = min(limit, m.MemAvailable/4*3)
	}
	debug.SetMemoryLimit(int64(limit))
}

// writeHeapProfile writes a heap profile of the live objects to path,
// after a garbage collection (go tool pprof -sample_index=inuse_space;
// alloc_space counts every allocation since the start).
func writeHeapProfile(path string) error {
	f, err := safefs.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}

// scenarioFlags are the flags of every command that reads a scenario.
func scenarioFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "set", Usage: "override a scenario field, e.g. --set radio.range=250 (repeatable)"},
		&cli.Uint64Flag{Name: "seed", Usage: "override the scenario's seed", DefaultText: "the scenario's seed; 1 when it gives none"},
	}
}

// loadScenario reads the scenario named by the first argument with the
// --set and --seed overrides, and prints its warnings.
func loadScenario(c *cli.Context) (*scenario.Scenario, error) {
	s, err := readScenario(c)
	if err != nil {
		return nil, err
	}
	printWarnings(c, s.Warnings)
	return s, nil
}

// readScenario is loadScenario without printing the warnings.
func readScenario(c *cli.Context) (*scenario.Scenario, error) {
	if c.NArg() != 1 {
		return nil, fmt.Errorf("%s needs exactly one scenario file (try configs/quickstart.yaml)", c.Command.Name)
	}
	sets := c.StringSlice("set")
	if c.IsSet("seed") {
		sets = append(sets, fmt.Sprintf("seed=%d", c.Uint64("seed")))
	}
	return scenario.Load(c.Args().First(), sets)
}

// printWarnings prints each warning on a line of its own to standard error.
func printWarnings(c *cli.Context, warns []string) {
	w := c.App.ErrWriter
	if w == nil {
		w = os.Stderr
	}
	for _, m := range warns {
		fmt.Fprintf(w, "manetlab: warning: %s\n", m)
	}
}

// countOf is n with the singular or plural noun: "1 node", "3 nodes".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// readMachine reads the machine's limits (a variable, so that a test can
// stand in a smaller machine).
var readMachine = scenario.ReadMachine
