package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs moves every flag of a command in front of its positional
// arguments, so that `manetlab sim file.yaml --json` works as people type it:
// urfave/cli v2 stops reading flags at the first positional argument. A "--"
// ends flag processing as usual.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) == 0 {
		return args
	}
	out := []string{args[0]}
	flags, cmds := app.Flags, app.Commands
	rest := args[1:]
	for {
		var flagArgs, positional []string
		var next *cli.Command
		i := 0
		for ; i < len(rest); i++ {
			a := rest[i]
			if a == "--" {
				positional = append(positional, rest[i:]...)
				i = len(rest)
				break
			}
			if strings.HasPrefix(a, "-") && len(a) > 1 {
				flagArgs = append(flagArgs, a)
				if !strings.Contains(a, "=") && takesValue(flags, a) && i+1 < len(rest) {
					i++
					flagArgs = append(flagArgs, rest[i])
				}
				continue
			}
			if len(positional) == 0 {
				if c := findCommand(cmds, a); c != nil {
					next = c
					break
				}
			}
			positional = append(positional, a)
		}
		out = append(out, flagArgs...)
		if next == nil {
			return append(out, positional...)
		}
		out = append(out, positional...)
		out = append(out, rest[i])
		rest = rest[i+1:]
		flags, cmds = next.Flags, next.Subcommands
	}
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// takesValue reports whether the flag named by arg ("-x" or "--name")
// consumes the next argument as its value.
func takesValue(flags []cli.Flag, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if bf, ok := f.(*cli.BoolFlag); ok && bf != nil {
				return false
			}
			return true
		}
	}
	return false // help flags and unknown flags: let cli report them
}
