package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"manetlab/protocol"
)

func protocolsCommand() *cli.Command {
	return &cli.Command{
		Name:  "protocols",
		Usage: "list the protocols a scenario can name",
		UsageText: `manetlab protocols

Example:
   manetlab protocols
   manetlab sim configs/quickstart.yaml --set protocol.name=baseline/floodmax`,
		Action: func(c *cli.Context) error {
			for _, n := range protocol.Names() {
				s, _ := protocol.Lookup(n)
				fmt.Fprintf(c.App.Writer, "%-22s %s\n", n, s.Summary)
			}
			return nil
		},
	}
}
