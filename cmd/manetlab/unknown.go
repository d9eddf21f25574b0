package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// unknownCommand is the Action of the app and of the commands made of
// subcommands (trace, mobility): without a word, their help; with `help
// NAME`, NAME's help; with a word that names no command, an error that
// names the nearest one. urfave/cli said "No help topic for 'simulate'"
// and exited with status 3, the status of cross-host problems.
func unknownCommand(c *cli.Context) error {
	parent, cmds := "manetlab", c.App.Commands
	if c.Command != nil && c.Command.Name != c.App.Name && len(c.Command.Subcommands) > 0 {
		parent, cmds = "manetlab "+c.Command.Name, c.Command.Subcommands
	}
	show := func() error {
		if parent == "manetlab" {
			return cli.ShowAppHelp(c)
		}
		return cli.ShowSubcommandHelp(c)
	}
	if !c.Args().Present() {
		return show()
	}
	name := c.Args().First()
	if name == "help" {
		if c.Args().Len() == 1 {
			return show()
		}
		name = c.Args().Get(1)
		for _, cmd := range cmds {
			if !cmd.Hidden && cmd.HasName(name) {
				return cli.ShowCommandHelp(c, cmd.Name)
			}
		}
	}
	msg := fmt.Sprintf("no command %q", name)
	if parent != "manetlab" {
		msg += " in " + parent
	}
	if n := nearestCommand(cmds, name); n != "" {
		msg += fmt.Sprintf("; the nearest is %q (%s %s --help)", n, parent, n)
	}
	return fmt.Errorf("%s; %s --help lists the commands", msg, parent)
}

// nearestCommand is the visible command whose name is nearest to name: one
// that begins the other (sim, simulate), else the fewest edits, if they
// are fewer than half of name; "" when none is near.
func nearestCommand(cmds []*cli.Command, name string) string {
	best, bestD := "", len(name)/2+1
	for _, cmd := range cmds {
		if cmd.Hidden {
			continue
		}
		for _, n := range cmd.Names() {
			d := editDistance(name, n)
			if strings.HasPrefix(name, n) || strings.HasPrefix(n, name) {
				d = 0
			}
			if d < bestD {
				best, bestD = cmd.Name, d
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
