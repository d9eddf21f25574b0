// Command manetlab is the testbed's one binary: simulate a scenario (sim),
// run it as real node processes (run, node, mobility play), sweep
// parameters (sweep), work with mobility traces (mobility), and analyse the
// traces (trace). It is the only package that imports every protocol
// family (for their registration) and both drivers.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	_ "manetlab/adhoc"        // registers adhoc/vasudevan
	_ "manetlab/baseline"     // registers baseline/floodmax
	_ "manetlab/bully"        // registers bully/textbook, bully/garcia-molina
	_ "manetlab/firewire"     // registers firewire/tree-identify
	_ "manetlab/invitation"   // registers invitation/garcia-molina
	_ "manetlab/mutex"        // registers mutex/centralized, mutex/token-ring, mutex/ricart-agrawala, mutex/lamport, mutex/suzuki-kasami
	_ "manetlab/protocol/ext" // registers ext/stdio (a program per node, docs/anylang.md)
	_ "manetlab/ring"         // registers ring/lelann, ring/chang-roberts, ring/hirschberg-sinclair, ring/tanenbaum
	_ "manetlab/synchronous"  // registers sync/timeslice, sync/slow-fast, sync/bfs (over protocol/rounds synchronizers)
	_ "manetlab/traffic"      // registers traffic/cbr
)

func main() {
	app := newApp()
	if err := app.Run(reorderArgs(app, os.Args)); err != nil {
		fmt.Fprintln(os.Stderr, "manetlab:", err)
		var st exitStatus
		if errors.As(err, &st) {
			os.Exit(st.code)
		}
		os.Exit(1)
	}
}

func newApp() *cli.App {
	return &cli.App{
		Name:  "manetlab",
		Usage: "a testbed for leader election and mutual exclusion in wireless ad-hoc networks",
		Description: `Examples:
   manetlab sim configs/quickstart.yaml
   manetlab sim configs/quickstart.yaml --json --seed 7 --set radio.range=200
   manetlab mobility sample configs/mobility/small.ns2 --at 0:60:1
   manetlab protocols`,
		Commands: []*cli.Command{
			simCommand(),
			studioCommand(),
			exploreCommand(),
			sweepCommand(),
			runCommand(),
			mobilityCommand(),
			nodeCommand(),
			protocolsCommand(),
			traceCommand(),
			versionCommand(),
			launchCommand(),
			liveJudgeCommand(),
		},
		Suggest: true,
		Action:  unknownCommand,
		// --set values are YAML: "mobility.speed=[1,19]" must stay whole.
		DisableSliceFlagSeparator: true,
		HideHelpCommand:           true,
	}
}
