package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
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
// same line are the same file.
func versionLine() (string, error) {
	rev, dirty := "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && len(s.Value) >= 12:
				rev = s.Value[:12]
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = "+dirty"
			}
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("version: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("version: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("version: %s: %w", exe, err)
	}
	return fmt.Sprintf("manetlab %s%s %s %s/%s sha256:%s", rev, dirty, runtime.Version(), runtime.GOOS, runtime.GOARCH, hex.EncodeToString(h.Sum(nil))[:16]), nil
}
