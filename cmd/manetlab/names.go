package main

import (
	"github.com/urfave/cli/v2"

	"manetlab/internal/safefs"
)

// checkRunName refuses a run name that is not a name: it becomes the
// directory runs/NAME and, with --hosts, DIR/NAME on every host.
func checkRunName(c *cli.Context, name string) error {
	what := "--run"
	if !c.IsSet("run") {
		what = "the run name made of the scenario's name"
	}
	return safefs.CheckName(what, name)
}
