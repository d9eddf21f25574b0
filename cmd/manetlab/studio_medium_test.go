package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// TestStudioPortInUse: a --port that another listener holds is refused
// with the way out, --port 0 (issue 35, item 11).
func TestStudioPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	_, err = runCLI(t, "studio", "../../configs/ring-chang-roberts.yaml", "--port", strconv.Itoa(port), "--out", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("port %d on 127.0.0.1 is in use", port)) || !strings.Contains(err.Error(), "give --port 0") {
		t.Fatalf("a port in use: %v", err)
	}
}
