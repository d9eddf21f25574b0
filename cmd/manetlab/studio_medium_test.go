package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// The studio runs a scenario that names no radio.mac on the ideal medium
// (any message can be taken next) and keeps the medium a scenario, a
// schedule or --set names.
func TestStudioChoosesTheIdealMedium(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain.yaml", "name: plain\nradio: {range: 200}\n")
	named := write("named.yaml", "name: named\nradio: {mac: dcf}\n")
	sched := write("s.json", `{"steps": 0, "choices": [], "set": ["radio.mac=dcf"]}`)
	for _, c := range []struct {
		args      []string
		ideal     bool
		wantInSet bool
	}{
		{[]string{plain}, true, true},
		{[]string{named}, false, false},
		{[]string{"--set", "radio.mac=dcf", plain}, false, false},
		{[]string{"--schedule", sched, plain}, false, false},
	} {
		var ideal bool
		var sets []string
		cmd := studioCommand()
		cmd.Action = func(c *cli.Context) error {
			var err error
			ideal, err = studioMedium(c)
			sets = c.StringSlice("set")
			return err
		}
		app := &cli.App{Commands: []*cli.Command{cmd}}
		if err := app.Run(append([]string{"manetlab", "studio"}, c.args...)); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if ideal != c.ideal || slices.Contains(sets, "radio.mac=ideal") != c.wantInSet {
			t.Errorf("%v: ideal %v, sets %q; want ideal %v", c.args, ideal, sets, c.ideal)
		}
	}
}
