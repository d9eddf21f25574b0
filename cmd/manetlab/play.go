package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"manetlab/node"
)

// playCommand is `mobility play`: the location player real nodes take
// their positions from. Its flags are part of the launcher's contract.
func playCommand() *cli.Command {
	return &cli.Command{
		Name:      "play",
		Usage:     "multicast the scenario's node positions to real nodes (location frames)",
		ArgsUsage: "SCENARIO.yaml",
		UsageText: `manetlab mobility play SCENARIO.yaml --run NAME [--start UNIX_NS]
    [--control 239.77.0.2:47001] [--iface IF] [--ttl 0] [--key-file F]
    [--period 100ms] [--dilation K] [--set path=value]... [--seed N]

Example (a player and one node sharing a start two seconds ahead):
   start=$(( $(date +%s%N) + 2000000000 ))
   manetlab mobility play configs/quickstart.yaml --run q1 --start $start &
   manetlab node --scenario configs/quickstart.yaml --ids 1-20 --out runs/q1 --run q1 --start $start`,
		Description: `Evaluates the scenario's mobility model at the time since --start and
multicasts every node's position as a location frame on --control, every
--period and whenever a leg starts, until the scenario's duration has passed
(or SIGINT/SIGTERM). Prints "ready <pid>" once its socket is open. Frames are
signed with the key from --key-file or $MANETLAB_KEY, as for node.`,
		Flags: append([]cli.Flag{
			&cli.DurationFlag{Name: "period", Value: node.DefaultPeriod, Usage: "time between two rounds of positions (the model's time: dilated with --dilation)"},
		}, realFlags()...),
		Action: func(c *cli.Context) error {
			s, err := loadScenario(c)
			if err != nil {
				return err
			}
			if c.Duration("period") <= 0 {
				return fmt.Errorf("mobility play: --period %s: want a positive duration such as 100ms", c.Duration("period"))
			}
			key, err := node.LoadKey(c.String("key-file"))
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			p, err := node.StartPlayer(ctx, node.PlayOptions{
				Scenario: s, Run: c.String("run"), Start: c.Int64("start"), Control: c.String("control"),
				Iface: c.String("iface"), TTL: c.Int("ttl"), Key: key, Period: c.Duration("period"), Log: c.App.ErrWriter,
				Dilation: c.Int("dilation"), StartLater: startLater(c),
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "ready %d\n", os.Getpid())
			return p.Wait()
		},
	}
}
