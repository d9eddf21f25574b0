package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestUnknownCommand: a word that names no command is an error (status
// 1, not the cross-host 3) naming the nearest command, at the top and
// under trace; `help NAME` shows NAME's help (issue 35, item 11: "No help
// topic for 'simulate'").
func TestUnknownCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate"}, `no command "simulate"; the nearest is "sim" (manetlab sim --help); manetlab --help lists the commands`},
		{[]string{"help", "simulate"}, `no command "simulate"; the nearest is "sim"`},
		{[]string{"trace", "chekc"}, `no command "chekc" in manetlab trace; the nearest is "check" (manetlab trace check --help)`},
		{[]string{"xyzzy"}, `no command "xyzzy"; manetlab --help lists the commands`},
	} {
		_, err := runCLIStatus(t, c.args...)
		if err == nil || err.Error() != c.want && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v\nwant %q", c.args, err, c.want)
		}
		var st exitStatus
		var ce cli.ExitCoder
		if errors.As(err, &st) || errors.As(err, &ce) {
			t.Errorf("%v: exits with a status of its own (%v)", c.args, err)
		}
	}
	out, err := runCLIStatus(t, "help", "sim")
	if err != nil || !strings.Contains(out, "manetlab sim - run a scenario") {
		t.Errorf("help sim: %v\n%s", err, out)
	}
	if n := nearestCommand(newApp().Commands, "sweeep"); n != "sweep" {
		t.Errorf("nearest to sweeep: %q", n)
	}
}
