package mobility

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/internal/geo"
)

// legAt is where a node leaving from at t0 toward to at speed stands at t.
func legAt(from, to geo.Vec, t0, speed, t float64) geo.Vec {
	d := geo.Dist(from, to)
	f := math.Min(1, math.Max(0, (t-t0)*speed/d))
	return geo.Vec{X: from.X + f*(to.X-from.X), Y: from.Y + f*(to.Y-from.Y), Z: from.Z}
}

// TestReadNS2SceneFile reads a file in the style of ns-2's own
// tcl/mobility/scene/scen-3-test: its $god_ lines are skipped with one
// warning, its setdests move the nodes.
func TestReadNS2SceneFile(t *testing.T) {
	s, warns, err := ReadNS2(filepath.Join("testdata", "scen-3-test"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 {
		t.Fatalf("%d nodes, want 3", s.Len())
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "skipped 5 lines of Tcl that moves no node") || !strings.Contains(warns[0], "scen-3-test:18:") {
		t.Errorf("warnings %q, want one saying 5 lines without a node were skipped, from line 18", warns)
	}
	p0 := geo.Vec{X: 83.364418416244, Y: 239.463311915008}
	d0 := geo.Vec{X: 369.4, Y: 170.0}
	p1 := geo.Vec{X: 257.084045996253, Y: 345.360591457128}
	d1 := geo.Vec{X: 221.8, Y: 80.8}
	p2 := geo.Vec{X: 591.256602459456, Y: 199.4751273172}
	d2 := geo.Vec{X: 89.1, Y: 283.5}
	stop1 := legAt(p1, d1, 51, 14.9, 120) // arrived long before 120 s
	for _, c := range []struct {
		node int
		at   float64
		want geo.Vec
	}{
		{0, 0, p0}, {0, 50, p0}, {0, 70, legAt(p0, d0, 50, 3.37, 70)}, {0, 200, d0},
		{1, 51, p1}, {1, 60, legAt(p1, d1, 51, 14.9, 60)}, {1, 140, stop1},
		{1, 160, legAt(stop1, geo.Vec{X: 600, Y: 400}, 150, 12.5, 160)}, {1, 500, geo.Vec{X: 600, Y: 400}},
		{2, 20, p2}, {2, 40, legAt(p2, d2, 33, 19.2, 40)}, {2, 100, d2},
	} {
		if got := s.Position(c.node, sec(c.at)); !near(got, c.want, 1e-6) {
			t.Errorf("node %d at %gs: %+v, want %+v", c.node, c.at, got, c.want)
		}
	}
}

// tclScript holds what whole ns-2 Tcl scripts contain around the mobility
// commands; every line ns-3's Ns2MobilityHelper skips is skipped, and
// counted in one warning per kind.
const tclScript = `set god_ [God instance]
puts "Starting Simulation..."
$node_(0) set X_ 10.0;
$node_(0) set Y_ 20.0 ;# the initial position
$node_(0) random-motion 0
$node_(1) set X_ 0.0; # no semicolon trouble either
$ns_ at 1.0 "$node_(0) setdest 40.0 60.0 10.0";
$ns_ at 2 "$node_(1) setdest 10 10 10 5"
$ns_ at -1 "$node_(1) setdest 99 99 1"
$ns_ at 9.0 "$node_(0) reset";
$ns_ at 9.5 "$node_(1) stop"
$ns_ at 10.0 "stop"
$ns_ at 10.0001 "puts \"NS EXITING...\" ; $ns_ halt"
for {set i 0} {$i < $val(nn)} {incr i} {
    $ns_ at $val(stop) "$node_($i) reset";
}
proc stop {} {
    global ns_ tracefd
    $ns_ flush-trace
}
$ns_ run
`

func TestParseNS2SkipsWhatNS3Skips(t *testing.T) {
	s, warns, err := ParseNS2(strings.NewReader(tclScript), "script.tcl")
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 {
		t.Fatalf("%d nodes, want 2", s.Len())
	}
	want := []string{
		"script.tcl:1: skipped 11 lines of Tcl that moves no node",
		"script.tcl:5: skipped 3 lines of node commands other than setdest and set X_/Y_/Z_: random-motion, reset, stop",
		"script.tcl:8: skipped 1 line of 3D setdest",
		"script.tcl:9: skipped 1 line of negative times",
		"script.tcl:15: skipped 1 line of Tcl variables",
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings:\n%s\nwant %d lines", strings.Join(warns, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(warns[i], w) || !strings.HasSuffix(warns[i], "as ns-3 does") {
			t.Errorf("warning %d: %q, want it to start with %q", i, warns[i], w)
		}
	}
	// Node 0 leaves (10,20) at 1 s for (40,60), 50 m at 10 m/s; node 1
	// stays at the origin (its setdests were skipped).
	for _, c := range []struct {
		node int
		at   float64
		want geo.Vec
	}{
		{0, 0, geo.Vec{X: 10, Y: 20}}, {0, 3.5, geo.Vec{X: 25, Y: 40}}, {0, 60, geo.Vec{X: 40, Y: 60}},
		{1, 0, geo.Vec{}}, {1, 60, geo.Vec{}},
	} {
		if got := s.Position(c.node, sec(c.at)); !near(got, c.want, 1e-9) {
			t.Errorf("node %d at %gs: %+v, want %+v", c.node, c.at, got, c.want)
		}
	}
}
