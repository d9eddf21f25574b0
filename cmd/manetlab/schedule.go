package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"manetlab/scenario"
	"manetlab/sim"
)

// scheduleFlag is the --schedule flag of sim and studio.
func scheduleFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "schedule", Usage: usage}
}

// loadScheduled reads the scenario and, with --schedule, the schedule:
// the schedule's seed and --set overrides apply unless the command line
// gives its own (its --set come after the schedule's, so they win).
func loadScheduled(c *cli.Context) (*scenario.Scenario, *sim.Schedule, error) {
	path := c.String("schedule")
	if path == "" {
		s, err := loadScenario(c)
		return s, nil, err
	}
	sched, err := sim.ReadSchedule(path)
	if err != nil {
		return nil, nil, err
	}
	if c.NArg() != 1 {
		return nil, nil, fmt.Errorf("%s needs exactly one scenario file (the schedule was made on %q)", c.Command.Name, sched.Scenario)
	}
	sets := append(append([]string(nil), sched.Set...), c.StringSlice("set")...)
	switch {
	case c.IsSet("seed"):
		sets = append(sets, fmt.Sprintf("seed=%d", c.Uint64("seed")))
	case sched.Seed != 0:
		sets = append(sets, fmt.Sprintf("seed=%d", sched.Seed))
	}
	s, err := scenario.Load(c.Args().First(), sets)
	if err != nil {
		return nil, nil, err
	}
	printWarnings(c, s.Warnings)
	return s, sched, nil
}
