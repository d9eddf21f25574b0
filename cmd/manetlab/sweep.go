package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"manetlab/experiment"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "simulate every combination of scenario overrides over several seeds and tabulate the metrics",
		ArgsUsage: "SCENARIO.yaml",
		UsageText: `manetlab sweep SCENARIO.yaml --vary path=v1|v2... [--vary ...] [--seeds N] [--set path=value]... [--out DIR] [--json]

Examples:
   manetlab sweep configs/quickstart.yaml --vary 'protocol.name=adhoc/vasudevan|baseline/floodmax' --seeds 5
   manetlab sweep configs/vasudevan-paper.yaml --vary 'nodes.count=20|60|120' \
       --vary 'mobility.speed=[1,3]|[1,19]' --seeds 3 --json`,
		Description: `Each row is one combination of the --vary values (separated by '|', because
commas belong to YAML lists); each metric is the mean±sd over seeds 1..N:
F (share of node-time in an election), leader (share of node-time with a
leader), R (elections per node per minute), T (election time, s), M_bcast and
M_ucast (messages per node per election), wrong_or_unknown (share of
node-time whose leader is not its component's best), messages (total).
"valid" counts runs whose final verdict was valid. docs/analysis.md defines
every metric.`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "set", Usage: "override a scenario field in every run (repeatable)"},
			&cli.StringSliceFlag{Name: "vary", Usage: "a field and its values, path=v1|v2 (repeatable)"},
			&cli.IntFlag{Name: "seeds", Value: 3, Usage: "seeds 1..N per combination"},
			&cli.IntFlag{Name: "workers", Value: 2, Usage: "simulations run at once"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "trace directory (default runs/sweep-NAME)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress line"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("sweep needs exactly one scenario file")
			}
			opt := experiment.Options{Scenario: c.Args().First(), Sets: c.StringSlice("set"),
				Seeds: c.Int("seeds"), Workers: c.Int("workers"), Out: c.String("out")}
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
			if !c.Bool("quiet") {
				opt.Progress = func(done, total int) {
					fmt.Fprintf(os.Stderr, "\rsweep: %d/%d runs", done, total)
					if done == total {
						fmt.Fprintln(os.Stderr)
					}
				}
			}
			res, err := experiment.Run(opt)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			res.WriteTable(c.App.Writer)
			return nil
		},
	}
}
