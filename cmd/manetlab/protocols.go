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
			names := protocol.Names()
			width := 0
			for _, n := range names {
				width = max(width, len(n))
			}
			for _, n := range names {
				s, _ := protocol.Lookup(n)
				fmt.Fprintf(c.App.Writer, "%-*s  %s\n", width, n, s.Summary)
			}
			return nil
		},
	}
}
