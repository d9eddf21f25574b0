package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"manetlab/internal/safefs"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/htmlreport"
	"manetlab/trace/judge"
	"manetlab/trace/report"
)

// errInvalid makes `trace check` exit with status 1 after printing its
// report, when a property is violated. It is a plain error, not a
// cli.Exit, which would end the process inside app.Run (and the tests).
var errInvalid = errors.New("trace check: a property is invalid")

// ExitCrossHost is the exit status of run, trace check and trace report
// when the run has cross-host problems (analysis.CrossHost: traces
// missing, frames refused, late starts, another scenario), printed before
// the verdicts: they come before a property's violation (status 1) and
// an undecided verdict (status 2).
const ExitCrossHost = judge.ExitCrossHost

// exitStatus is an error that makes the command exit with code instead
// of 1. Like errInvalid, a plain error, returned after the report.
type exitStatus struct {
	code int
	msg  string
	// verdict: the status states the verdict (verdictError), not a
	// failure of the command.
	verdict bool
}

func (e exitStatus) Error() string { return e.msg }

// verdictError is the error of command cmd whose verdicts are vs: nil
// when all are valid, else the exit status trace/judge gives them (1
// invalid, 2 undecided: docs/analysis.md, "Exit statuses"). Returned
// after the report, like errInvalid.
func verdictError(cmd string, vs ...string) error {
	code := judge.Exit(vs...)
	switch code {
	case judge.ExitValid:
		return nil
	case judge.ExitInvalid:
		return exitStatus{code, fmt.Sprintf("%s: the verdict is invalid; exit status %d", cmd, code), true}
	}
	var which []string
	for _, v := range vs {
		if v != judge.Valid && !slices.Contains(which, v) {
			which = append(which, v)
		}
	}
	return exitStatus{code, fmt.Sprintf("%s: the verdict is %s, not decided; exit status %d", cmd, strings.Join(which, " and "), code), true}
}

// crossHostError is the error of a command whose run has problems ps,
// or nil.
func crossHostError(cmd string, ps []analysis.CrossHost) error {
	if len(ps) == 0 {
		return nil
	}
	n := fmt.Sprintf("%d cross-host problems", len(ps))
	if len(ps) == 1 {
		n = "1 cross-host problem"
	}
	return exitStatus{code: ExitCrossHost, msg: fmt.Sprintf("%s: %s (printed after the verdict line; the first: %s); exit status %d", cmd, n, ps[0].Text, ExitCrossHost)}
}

func traceCommand() *cli.Command {
	return &cli.Command{
		Name:  "trace",
		Usage: "merge, check, measure, export and collect the traces of a run",
		UsageText: `manetlab trace merge DIR... [-o merged.jsonl]
   manetlab trace check DIR [--stabilisation 15s] [--json]
   manetlab trace report DIR [--json] [--html FILE [--window FROM:TO]]
   manetlab trace export --format shiviz|netanim DIR... [-o FILE] [--nodes 1-10] [--from 10s --to 40s]
   manetlab trace collect --out DIR --scenario S [--run NAME] [--listen ADDR:PORT] [--key-file F]
   manetlab trace watch DIR [--port P]`,
		Subcommands: []*cli.Command{traceMergeCommand(), traceCheckCommand(), traceReportCommand(),
			traceCollectCommand(), traceExportCommand(), traceWatchCommand()},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a Go CPU profile of the command to `FILE` (go tool pprof)"},
			&cli.StringFlag{Name: "memprofile", Usage: "write a Go heap profile to `FILE` at the command's end (go tool pprof)"},
		},
		Before: func(c *cli.Context) error {
			if p := c.String("cpuprofile"); p != "" {
				stop, err := startCPUProfile(p)
				if err != nil {
					return err
				}
				profileStop = stop
			}
			return nil
		},
		After: func(c *cli.Context) error {
			if profileStop != nil {
				profileStop()
				profileStop = nil
			}
			if p := c.String("memprofile"); p != "" {
				return writeHeapProfile(p)
			}
			return nil
		},
		Action: unknownCommand,
	}
}

// profileStop ends the CPU profile `trace --cpuprofile` started.
var profileStop func()

func traceMergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "order all events of a run causally into one JSON-lines file",
		ArgsUsage: "DIR...",
		UsageText: `manetlab trace merge DIR... [-o merged.jsonl] [--json]

Examples:
   manetlab trace merge runs/quickstart-seed1 -o merged.jsonl
   manetlab trace merge hostA/run7 hostB/run7 hostC/run7 > merged.jsonl`,
		Description: `Keeps each node's order and puts every receive after its send (matched by
sender and sequence number), using hybrid logical clocks where present and a
topological pass otherwise. Each output line carries "src", the file:line it
came from. Clock offset estimates and trace problems go to stderr (--json:
as JSON).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the merged trace to `FILE` (default stdout)"},
			&cli.BoolFlag{Name: "json", Usage: "print the merge report as JSON on stderr"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return errors.New("trace merge: give at least one trace directory")
			}
			var w io.Writer = c.App.Writer
			var f *os.File
			if p := c.String("out"); p != "" {
				var err error
				if f, err = safefs.Create(p); err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			defer showProgress(c, "trace merge")()
			rep, err := analysis.Merge(c.Args().Slice(), w)
			if err != nil {
				return err
			}
			if f != nil {
				if err := f.Close(); err != nil {
					return err
				}
			}
			if c.Bool("json") {
				return writeJSON(c.App.ErrWriter, rep)
			}
			rep.WriteText(c.App.ErrWriter)
			return nil
		},
	}
}

func traceCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "decide the safety properties of a run, with witnesses",
		ArgsUsage: "DIR",
		UsageText: `manetlab trace check DIR [--stabilisation 20s] [--step 100ms] [--json]

Examples:
   manetlab trace check runs/quickstart-seed1
   manetlab trace check runs/quickstart-seed1 --stabilisation 10s --json`,
		Description: `Gives valid, invalid or unknown for: at most one leader per election epoch;
exactly one leader per connected component, its best node, in every component
whose membership and links have not changed for the stabilisation delay (by
default what the protocol's timers need, plus the hello timeout), with the
share of node-time so judged; never two nodes in the critical
section at once (by happened-before); for mutual exclusion runs, every request
granted (unknown, never invalid, while some still wait at the end). A mutual
exclusion protocol's leader notes are judged by the election it composes
(protocol.params.election); without any, the leader properties do not apply.
Every violation comes with a witness naming nodes, events and file:line.
Cross-host problems of a run of real processes (scenario nodes without a
trace, a node whose frames others refused, nodes that started late, nodes
that ran another scenario) are printed first. Exits with status 3 when
there is any, else with status 1 when a property is invalid, else with
status 2 when one is unknown (or stalled), else 0 (docs/analysis.md,
"Exit statuses").
docs/analysis.md gives the rules.`,
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "stabilisation", Usage: "how long a component must stay unchanged before its leadership is judged (default: the protocol's own delay, e.g. 14.5s for adhoc/vasudevan's defaults)"},
			&cli.DurationFlag{Name: "step", Value: analysis.DefaultStep, Usage: "ground-truth sampling step"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errors.New("trace check: give one trace directory")
			}
			defer showProgress(c, "trace check")()
			rep, err := analysis.Check(c.Args().First(), analysis.CheckOptions{Stabilisation: c.Duration("stabilisation"), Step: c.Duration("step")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if err := writeJSON(c.App.Writer, struct {
					Verdict verdictJSON `json:"verdict"`
					*analysis.CheckReport
				}{newVerdictJSON(rep.Verdict()), rep}); err != nil {
					return err
				}
			} else {
				rep.WriteText(c.App.Writer)
			}
			if err := crossHostError("trace check", rep.CrossHost); err != nil {
				return err
			}
			if rep.Invalid() {
				return errInvalid
			}
			var vs []string
			for _, p := range rep.Properties {
				vs = append(vs, p.Verdict)
			}
			return verdictError("trace check", vs...)
		},
	}
}

func traceReportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "measure a run: the paper's metrics, messages, per-node and per-election figures",
		ArgsUsage: "DIR",
		UsageText: `manetlab trace report DIR [--json] [--html FILE [--window FROM:TO]]

Examples:
   manetlab trace report runs/quickstart-seed1
   manetlab trace report runs/quickstart-seed1 --json | jq .F
   manetlab trace report runs/quickstart-seed1 --html report.html --window 10s:12s`,
		Description: `Prints F (share of live time in an election), R (elections per node per
minute), T (mean election time), M (broadcasts and unicasts per node per
election), the share of node-time with a wrong or unknown leader, messages
and bytes by kind, and per-node and per-election breakdowns. Runs with
critical sections add messages per entry (by kind), synchronisation delay (in
time and in messages), waiting time (mean, 95th percentile), throughput,
fairness (overtakes, Jain's index) and requests still waiting at the end,
with the protocol's theory beside them.
docs/analysis.md defines each figure. --html also writes a self-contained
page: a map of positions, radio links and tree edges over time, a timeline of
every node's leader, who held the critical section when (runs with sections),
a message sequence diagram of a window, the metrics, the run's verdict as run
and sim state it and the check verdicts (docs/analysis.md, "HTML report";
the verdicts' words: "Verdicts"). Cross-host problems of a run of real
processes are printed first (and on the page), and make it exit with
status 3 (docs/analysis.md, "Cross-host problems").`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.StringFlag{Name: "html", Usage: "also write a self-contained HTML page to `FILE`"},
			&cli.StringFlag{Name: "window", Usage: "the sequence diagram's window `FROM:TO` (e.g. 10s:12s; default the 2 s from the first election-start, or the first 2 s)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errors.New("trace report: give one trace directory")
			}
			if c.IsSet("window") && c.String("html") == "" {
				return errors.New("trace report: --window applies to the --html page; give --html FILE")
			}
			defer showProgress(c, "trace report")()
			var rep *analysis.MetricsReport
			var verdict verdictJSON // the verdict line, first
			var err error
			if p := c.String("html"); p != "" {
				// The page and the report from one read of the run.
				opt := htmlreport.Options{}
				if c.IsSet("window") {
					if opt.Window, err = htmlreport.ParseWindow(c.String("window")); err != nil {
						return fmt.Errorf("trace report: --window: %w", err)
					}
					opt.WindowSet = true
				}
				// The page states the run's verdict as the summary of
				// run and sim does, from the page's one read.
				s, serr := report.NewSummarizer(trace.Disk, c.Args().First())
				if serr == nil {
					opt.Visit = s.Visit
				}
				var d *htmlreport.Data
				if d, rep, err = htmlreport.Report(c.Args().First(), opt); err != nil {
					return err
				}
				if serr != nil {
					return fmt.Errorf("trace report: the run's verdict: %w", serr)
				}
				sum, err := s.Summary(rep)
				if err != nil {
					return fmt.Errorf("trace report: the run's verdict: %w", err)
				}
				verdict = newVerdictJSON(sum.Verdict, sum.Reason)
				d.Verdict = &htmlreport.Verdict{Word: verdict.Word, Reason: verdict.Reason, Line: verdict.Line}
				if err := htmlreport.Save(p, d); err != nil {
					return fmt.Errorf("trace report: --html: %w", err)
				}
			} else {
				// The text starts with the run's verdict line, as sim's
				// and run's do, from the metrics' one read (the JSON
				// with the same words in its "verdict").
				// A directory the metrics cannot read is named by their
				// error, as without the verdict.
				opt := analysis.MetricsOptions{Routing: true}
				s, serr := report.NewSummarizer(trace.Disk, c.Args().First())
				if serr == nil {
					opt.Visit = s.Visit
				}
				if rep, err = analysis.ComputeMetrics(c.Args().First(), opt); err != nil {
					return err
				}
				if serr != nil {
					return fmt.Errorf("trace report: the run's verdict: %w", serr)
				}
				sum, err := s.Summary(rep)
				if err != nil {
					return fmt.Errorf("trace report: the run's verdict: %w", err)
				}
				verdict = newVerdictJSON(sum.Verdict, sum.Reason)
			}
			if c.Bool("json") {
				if err := writeJSON(c.App.Writer, struct {
					Verdict verdictJSON `json:"verdict"`
					*analysis.MetricsReport
				}{verdict, rep}); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(c.App.Writer, verdict.Line)
				rep.WriteText(c.App.Writer)
			}
			return crossHostError("trace report", rep.CrossHost)
		},
	}
}

// showProgress sends the analysis' progress lines (every 2 s, for runs
// that take that long) to stderr as name's, until the returned function
// is called.
func showProgress(c *cli.Context, name string) func() {
	w := c.App.ErrWriter
	if w == nil {
		w = os.Stderr
	}
	analysis.Progress, analysis.ProgressName = w, name
	return func() { analysis.Progress = nil }
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// verdictJSON is the verdict line of `trace check` and `trace report` in
// their JSON, first: the word, the reason and the line the text prints
// first (judge.Line), the same words.
type verdictJSON struct {
	Word   string `json:"word"`
	Reason string `json:"reason,omitempty"`
	Line   string `json:"line"`
}

func newVerdictJSON(word, reason string) verdictJSON {
	return verdictJSON{Word: word, Reason: reason, Line: judge.Line(word, reason)}
}
