package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"manetlab/experiment"
)

// sweepVersion is the version line written in every run's record.
func sweepVersion() string {
	v, err := versionLine()
	if err != nil {
		return "manetlab unknown"
	}
	return v
}

// shardIndexVars are the environment variables --shard N takes the
// slice's index from, in this order, with what is added to each.
var shardIndexVars = []struct {
	name string
	add  int
}{{"SLURM_ARRAY_TASK_ID", 0}, {"JOB_COMPLETION_INDEX", 0}, {"PARALLEL_SEQ", -1}}

// parseShard reads --shard: "I/N" (0 <= I < N), or "N" with I from the
// environment (getenv): a Slurm array task's id, a Kubernetes indexed
// Job's completion index, or GNU parallel's job sequence number less
// one ({#} counts from 1). N is never taken from the environment:
// SLURM_ARRAY_TASK_COUNT counts the tasks of one submission, and a task
// resubmitted alone (sbatch --array=2) would see 1.
func parseShard(spec string, getenv func(string) string) (i, n int, err error) {
	is, ns, explicit := strings.Cut(spec, "/")
	if !explicit {
		ns = is
	}
	if n, err = strconv.Atoi(ns); err != nil || n < 1 {
		return 0, 0, fmt.Errorf("--shard %q: want I/N or N with N >= 1", spec)
	}
	if explicit {
		if i, err = strconv.Atoi(is); err != nil || i < 0 || i >= n {
			return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 <= I < N", spec)
		}
		return i, n, nil
	}
	var names []string
	for _, v := range shardIndexVars {
		names = append(names, v.name)
		s := getenv(v.name)
		if s == "" {
			continue
		}
		k, err := strconv.Atoi(s)
		if k += v.add; err != nil || k < 0 || k >= n {
			return 0, 0, fmt.Errorf("--shard %d: %s=%q gives slice %d: want 0 <= I < %d", n, v.name, s, k, n)
		}
		return k, n, nil
	}
	return 0, 0, fmt.Errorf("--shard %d: none of %s is set: give --shard I/N", n, strings.Join(names, ", "))
}

// sweepResults runs the sweep, or the slice --shard names, into the
// results directory; without --shard it then prints the sweep as
// `sweep collect` does.
func sweepResults(c *cli.Context, opt experiment.Options) error {
	dir := c.String("results")
	if dir == "" {
		return errors.New("--shard and --traces need --results DIR")
	}
	if c.IsSet("out") {
		return errors.New("--results DIR holds the runs (their traces in DIR/traces with --traces): --out does not apply")
	}
	i, n := 0, 1
	if c.IsSet("shard") {
		var err error
		if i, n, err = parseShard(c.String("shard"), os.Getenv); err != nil {
			return err
		}
	}
	if c.IsSet("shard") {
		opt.Progress = nil // a batch job's log: the slice's line below says it
	}
	rep, err := experiment.RunShard(opt, dir, i, n, c.Bool("traces"))
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(os.Stderr, "sweep: slice %d/%d: %d runs, %d already in %s, %d run, %d failed\n", i, n, rep.Runs, rep.Skipped, dir, rep.Ran, rep.Failed)
	}
	if rep.Failed > 0 {
		return fmt.Errorf("sweep: %d runs failed (their records in %s say why; they run again with the next task)", rep.Failed, dir)
	}
	if c.IsSet("shard") {
		return nil
	}
	return collectResults(c, dir)
}

func sweepCollectCommand() *cli.Command {
	return &cli.Command{
		Name:      "collect",
		Usage:     "gather a results directory: the sweep's table, JSON and chart, runs.csv and runs.parquet, and the runs missing",
		ArgsUsage: "DIR",
		Description: `Reads DIR/sweep.json and one record per run, prints exactly the table (or
--json) that the one-machine sweep prints for the same grid, writes
DIR/runs.csv and DIR/runs.parquet (one row per run), and lists on stderr
the runs that are missing or failed; it then exits with status 1.
--watch first looks every --every until no run is missing, and prints a
line whenever runs have ended: runs done, failed, remaining and an
estimate of the time left.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
			columnsFlagDef(),
			&cli.StringFlag{Name: "html", Usage: "write a chart of the sweep to this HTML file"},
			&cli.StringFlag{Name: "metric", Usage: "the metric the HTML chart draws (as sweep's)"},
			&cli.BoolFlag{Name: "watch", Usage: "print progress until no run is missing, then collect"},
			&cli.DurationFlag{Name: "every", Value: 5 * time.Second, Usage: "--watch: time between looks at the directory"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no file names on stderr"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errors.New("sweep collect needs exactly one results directory")
			}
			if m := c.String("metric"); m != "" {
				if err := experiment.CheckMetric(m); err != nil {
					return err
				}
			}
			if err := experiment.CheckColumns(columnsFlag(c)); err != nil {
				return err
			}
			dir := c.Args().First()
			if c.Bool("watch") {
				last := ""
				for {
					g, err := experiment.Gather(dir)
					if err != nil {
						return err
					}
					// A line when a run has ended since the last one.
					if counts := fmt.Sprint(g.Done(), len(g.Failed), len(g.Missing)); counts != last {
						fmt.Fprintf(c.App.ErrWriter, "sweep: %s: %s\n", dir, g.Progress(time.Now()))
						last = counts
					}
					if len(g.Missing) == 0 {
						break
					}
					time.Sleep(c.Duration("every"))
				}
			}
			return collectResults(c, dir)
		},
	}
}

// collectResults prints a results directory's sweep and writes its tables.
func collectResults(c *cli.Context, dir string) error {
	g, err := experiment.Gather(dir)
	if err != nil {
		return err
	}
	if c.String("html") != "" && len(g.Plan.Axes) == 0 {
		return fmt.Errorf("--html charts against the first --vary axis: %s's sweep has none", dir)
	}
	if err := printSweep(c, g.Result(), shellQuote("manetlab")+" sweep collect "+shellQuote(dir)); err != nil {
		return err
	}
	if err := writeTidy(c, dir, g.Plan, g.Rows); err != nil {
		return err
	}
	if len(g.Missing)+len(g.Failed) > 0 {
		g.WriteMissing(c.App.ErrWriter)
		return fmt.Errorf("sweep collect: %s: %d of %d runs missing, %d failed", dir, len(g.Missing), len(g.Plan.Runs), len(g.Failed))
	}
	return nil
}
