package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"manetlab/mobility"
)

// runMobility runs the mobility command in an app of its own, as main does
// (flags after positional arguments allowed), and returns what it printed.
func runMobility(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	app := &cli.App{Name: "manetlab", Commands: []*cli.Command{mobilityCommand()}, Writer: &out, ErrWriter: io.Discard}
	err := app.Run(reorderArgs(app, append([]string{"manetlab", "mobility"}, args...)))
	return out.String(), err
}

// sampleTrace: node 0 goes from (0,0) to (30,40) at 10 m/s from 1 s
// (arriving at 6 s); node 1 stays at (5,5,2).
const sampleTrace = `$node_(0) set X_ 0
$node_(0) set Y_ 0
$node_(1) set X_ 5
$node_(1) set Y_ 5
$node_(1) set Z_ 2
$ns_ at 1 "$node_(0) setdest 30 40 10"
`

func TestMobilitySample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.ns2")
	if err := os.WriteFile(path, []byte(sampleTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `t,node,x,y,z
0,0,0.000000,0.000000,0.000000
0,1,5.000000,5.000000,2.000000
2.5,0,9.000000,12.000000,0.000000
2.5,1,5.000000,5.000000,2.000000
5,0,24.000000,32.000000,0.000000
5,1,5.000000,5.000000,2.000000
7.5,0,30.000000,40.000000,0.000000
7.5,1,5.000000,5.000000,2.000000
`
	for _, args := range [][]string{
		{"sample", "--at", "0:7.5:2.5", path},
		{"sample", path, "--at=0:7.5:2.5"},
	} {
		got, err := runMobility(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if got != want {
			t.Errorf("%v:\n got %q\nwant %q", args, got, want)
		}
	}
	// Tenth-second steps print compactly and include END.
	got, err := runMobility(t, "sample", "--at", "0.1:0.3:0.1", path)
	if err != nil {
		t.Fatal(err)
	}
	var ts []string
	for _, l := range strings.Split(strings.TrimSpace(got), "\n")[1:] {
		if strings.Contains(l, ",0,") {
			ts = append(ts, strings.SplitN(l, ",", 2)[0])
		}
	}
	if strings.Join(ts, " ") != "0.1 0.2 0.3" {
		t.Errorf("instants %v, want 0.1 0.2 0.3", ts)
	}
}

func TestMobilitySampleRejectsBadInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.ns2")
	if err := os.WriteFile(path, []byte(sampleTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.ns2")
	if err := os.WriteFile(bad, []byte("$node_(0) set X_ 0\n$node_(0) set Y_ abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sample", "--at", "0:10:0", path}, "STEP must be above 0"},
		{[]string{"sample", "--at", "0:10:-1", path}, "STEP must be above 0"},
		{[]string{"sample", "--at", "10:5:1", path}, "END is before START"},
		{[]string{"sample", "--at", "0:10", path}, "want START:END:STEP"},
		{[]string{"sample", "--at", "0:x:1", path}, `"x" is not a number`},
		{[]string{"sample", path}, "at"},
		{[]string{"sample", "--at", "0:1:1"}, "want one trace FILE"},
		{[]string{"sample", "--at", "0:1:1", bad}, "bad.ns2:2:"},
	} {
		out, err := runMobility(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to contain %q", c.args, err, c.want)
		}
		if strings.Contains(out, "t,node") {
			t.Errorf("%v: printed CSV despite the error", c.args)
		}
	}
}

func TestMobilityGenRWP(t *testing.T) {
	args := []string{"gen", "rwp", "--nodes", "5", "--area", "300x200", "--speed", "2:10", "--pause", "3s", "--duration", "120", "--seed", "42"}
	a, err := runMobility(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runMobility(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("same seed, different traces")
	}
	c, err := runMobility(t, append(args[:len(args)-1:len(args)-1], "43")...)
	if err != nil {
		t.Fatal(err)
	}
	if a == c {
		t.Error("seeds 42 and 43 gave the same trace")
	}
	set, _, err := mobility.ParseNS2(strings.NewReader(a), "gen.ns2")
	if err != nil {
		t.Fatalf("generated trace does not parse: %v", err)
	}
	if set.Len() != 5 {
		t.Fatalf("%d nodes, want 5", set.Len())
	}
	if v := set.MaxSpeed(); v > 10+1e-9 || v < 2 {
		t.Errorf("MaxSpeed %g outside [2, 10]", v)
	}
	moved := false
	for i := range set.Len() {
		p0 := set.Position(i, 0)
		for _, at := range set.Changes() {
			p := set.Position(i, at)
			if p.X < 0 || p.X > 300 || p.Y < 0 || p.Y > 200 {
				t.Fatalf("node %d at %v: %+v outside 300x200", i, at, p)
			}
			moved = moved || p != p0
		}
	}
	if !moved {
		t.Error("no node moved")
	}

	out := filepath.Join(t.TempDir(), "rwp.ns2")
	if printed, err := runMobility(t, append(args, "-o", out)...); err != nil || printed != "" {
		t.Fatalf("-o: err %v, printed %q", err, printed)
	}
	if data, err := os.ReadFile(out); err != nil || string(data) != a {
		t.Errorf("-o file differs from standard output (err %v)", err)
	}
}

func TestMobilityGenRWPRejectsBadFlags(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--speed", "0:10"}, "Random waypoint considered harmful"},
		{[]string{"--speed", "5:1"}, "want 0 < MIN <= MAX"},
		{[]string{"--speed", "fast"}, "want MIN:MAX"},
		{[]string{"--area", "100"}, "want WIDTHxHEIGHT"},
		{[]string{"--area", "0x100"}, "both above 0"},
		{[]string{"--pause", "soon"}, "--pause"},
		{[]string{"--duration", "0"}, "--duration"},
		{[]string{"--nodes", "0"}, "--nodes 0"},
	} {
		_, err := runMobility(t, append([]string{"gen", "rwp"}, c.flags...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to contain %q", c.flags, err, c.want)
		}
		if c.want == "Random waypoint considered harmful" && !errors.Is(err, mobility.ErrZeroMinSpeed) {
			t.Errorf("%v: error does not wrap mobility.ErrZeroMinSpeed", c.flags)
		}
	}
}
