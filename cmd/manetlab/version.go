package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"manetlab/node/hosts"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print this binary's version: its source revision, platform and a hash of the executable",
		ArgsUsage: " ",
		Description: `Prints one line: "manetlab", the source revision it was built from (with
"+dirty" when the checkout had changes), the Go version, the platform and
the first 16 hex digits of the SHA-256 of the executable. run --hosts
compares the whole line with the hosts' manetlab and copies its own
binary to a host whose line differs.`,
		Action: func(c *cli.Context) error {
			v, err := versionLine()
			if err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, v)
			return nil
		},
	}
}

// versionLine is what `manetlab version` prints: two binaries with the
// same line are the same file (hosts.VersionOf reads it from the
// executable's build information and bytes, as run --hosts reads that of
// a binary for other hosts).
func versionLine() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("version: %w", err)
	}
	v, _, err := hosts.VersionOf(exe)
	if err != nil {
		return "", fmt.Errorf("version: %w", err)
	}
	return v, nil
}
