package mobility

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/internal/geo"
)

// tricky is a trace with every oddity ParseNS2 must handle; the expected
// positions in TestParseNS2Tricky are worked out by hand in the comments.
const tricky = `# a comment line
$ns_ at 5 "$node_(0) setdest 50 40 8"   # out of order: applied after t=0
$ns_ at 0 "$node_(0) setdest 100 0 10"
$node_(0) set X_ 0
$node_(0) set Y_ 0

   $node_(1)   set X_   0	
$ns_ at 0.0 "$node_(1) setdest 0 100 5"
$ns_ at 4.0 "$node_(1) setdest 999 999 0"
$ns_ at 1 "$node_(2) setdest 30 40 5"
$god_ set-dist 0 1 2
$ns_ at 3.0 "$god_ set-dist 0 1 16777215"
$node_(3) set Y_ 10
$node_(3) set X_ 10
$ns_ at 2 "$node_(3) setdest 10 50 4"
$ns_ at 4 "$node_(3) set X_ 100"
$ns_ at 0 "$node_(4) setdest 10 0 1"
$ns_ at 0 "$node_(4) setdest 0 10 2"
$node_(2) set Z_ 7
$node_(2) set Y_ 0
$node_(2) set X_ 0
$node_(5) set X_ 1.5
`

func TestParseNS2Tricky(t *testing.T) {
	for name, text := range map[string]string{"LF": tricky, "CRLF": strings.ReplaceAll(tricky, "\n", "\r\n")} {
		s, _, err := ParseNS2(strings.NewReader(text), "tricky.ns2")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Len() != 6 {
			t.Fatalf("%s: %d nodes, want 6", name, s.Len())
		}
		for _, c := range []struct {
			node int
			at   float64
			want geo.Vec
		}{
			// Node 0 heads for (100,0) at 10 m/s; at 5 s, at (50,0), it is
			// sent to (50,40) at 8 m/s: 40 m, arriving at 10 s.
			{0, 0, geo.Vec{}}, {0, 2, geo.Vec{X: 20}}, {0, 5, geo.Vec{X: 50}},
			{0, 7.5, geo.Vec{X: 50, Y: 20}}, {0, 10, geo.Vec{X: 50, Y: 40}}, {0, 60, geo.Vec{X: 50, Y: 40}},
			// Node 1 heads north at 5 m/s; speed 0 at 4 s stops it at (0,20).
			{1, 2, geo.Vec{Y: 10}}, {1, 4, geo.Vec{Y: 20}}, {1, 100, geo.Vec{Y: 20}},
			// Node 2 starts at (0,0,7), given Z, Y, X after its timed line;
			// 50 m at 5 m/s from 1 s keeps Z and arrives at 11 s.
			{2, 0.5, geo.Vec{Z: 7}}, {2, 6, geo.Vec{X: 15, Y: 20, Z: 7}}, {2, 11, geo.Vec{X: 30, Y: 40, Z: 7}}, {2, 50, geo.Vec{X: 30, Y: 40, Z: 7}},
			// Node 3 leaves (10,10) north at 4 m/s from 2 s; at 4 s, at
			// (10,18), it teleports to x=100 and stops.
			{3, 1, geo.Vec{X: 10, Y: 10}}, {3, 3, geo.Vec{X: 10, Y: 14}}, {3, 4, geo.Vec{X: 100, Y: 18}}, {3, 20, geo.Vec{X: 100, Y: 18}},
			// Node 4: of two setdests at the same instant the later wins.
			{4, 2.5, geo.Vec{Y: 5}}, {4, 5, geo.Vec{Y: 10}}, {4, 30, geo.Vec{Y: 10}},
			// Node 5 only has an initial X.
			{5, 0, geo.Vec{X: 1.5}}, {5, 9, geo.Vec{X: 1.5}},
		} {
			if got := s.Position(c.node, sec(c.at)); !near(got, c.want, 1e-9) {
				t.Errorf("%s: node %d at %gs: got %+v, want %+v", name, c.node, c.at, got, c.want)
			}
		}
		if got := s.MaxSpeed(); got < 10-1e-9 || got > 10+1e-9 {
			t.Errorf("%s: MaxSpeed = %g, want 10", name, got)
		}
		want := []time.Duration{0, sec(1), sec(2), sec(4), sec(5), sec(10), sec(11)}
		if got := s.Changes(); !slices.Equal(got, want) {
			t.Errorf("%s: Changes = %v, want %v", name, got, want)
		}
	}
}

func TestParseNS2Errors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`$node_(x) set X_ 1`, "node index"},
		{`$node_(-1) set X_ 1`, "node index"},
		{`$node_(0) set X_ abc`, `coordinate "abc"`},
		{`$node_(0) set X_`, "want `$node_(i) set"},
		{`$node_(0) set X_ NaN`, "not a finite number"},
		{`$ns_ at soon "$node_(0) setdest 1 1 1"`, `time "soon"`},
		{`$ns_ at 1 "$node_(0) setdest 1 1"`, "setdest X Y SPEED"},
		{`$ns_ at 1 "$node_(0) setdest 1 1 -2"`, "speed -2 is negative"},
		{`$ns_ at 1 "$node_(0) setdest 1 y 2"`, `y "y"`},
		{`$ns_ at 1 $node_(0) setdest 1 1 1`, "must be quoted"},
		{`$ns_ at 1 "$node_(0) setdest 1 1 1`, "unbalanced quotes"},
		{`$ns_ 1 "$node_(0) setdest 1 1 1"`, "want `$ns_ at T"},
		{`$ns_ at 1 "$nod_(0) setdest 1 1 1"`, "is not a node"},
		{`$ns_ at 999999999 "$node_(0) setdest 1e9 0 1"`, "beyond"},
		{`$ns_ at 1e10 "$node_(0) setdest 1 1 1"`, "out of range"},
		{`$ns_ at 1 "$node_(0) set X_ abc"`, `coordinate "abc"`},
	} {
		text := "# header\n$node_(0) set X_ 0\n" + c.line + "\n$node_(0) set Y_ 0\n"
		_, _, err := ParseNS2(strings.NewReader(text), "bad.ns2")
		if err == nil {
			t.Errorf("%s: no error", c.line)
			continue
		}
		if !strings.HasPrefix(err.Error(), "bad.ns2:3: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want bad.ns2:3: ... %s", c.line, err, c.want)
		}
	}
}

func TestReadNS2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one.ns2")
	if err := os.WriteFile(path, []byte("$node_(2) set X_ 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := ReadNS2(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 || s.Position(2, time.Hour) != (geo.Vec{X: 4}) || s.Position(0, 0) != (geo.Vec{}) {
		t.Errorf("ReadNS2: Len %d, node 2 at %+v", s.Len(), s.Position(2, time.Hour))
	}
	if _, _, err := ReadNS2(filepath.Join(t.TempDir(), "missing.ns2")); err == nil || !strings.Contains(err.Error(), "missing.ns2") {
		t.Errorf("missing file: err = %v", err)
	}
}

// roundTrip writes s, reads it back and checks positions at many instants.
func roundTrip(t *testing.T, s *Set, end time.Duration) *Set {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteNS2(&buf, s); err != nil {
		t.Fatal(err)
	}
	back, _, err := ParseNS2(bytes.NewReader(buf.Bytes()), "written.ns2")
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	if back.Len() != s.Len() {
		t.Fatalf("read back %d nodes, wrote %d", back.Len(), s.Len())
	}
	for i := range s.Len() {
		for at := time.Duration(0); at <= end; at += 97 * time.Millisecond {
			if a, b := s.Position(i, at), back.Position(i, at); !near(a, b, 1e-6) {
				t.Fatalf("node %d at %v: wrote %+v, read back %+v", i, at, a, b)
			}
		}
	}
	return back
}

func TestNS2RoundTripRandomWaypoint(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		start := make([]geo.Vec, 8)
		for i := range start {
			start[i] = geo.Vec{X: rng.Float64() * 500, Y: rng.Float64() * 400}
		}
		c := Config{Area: [2]float64{500, 400}, Speed: [2]float64{0.5, 25}}
		if seed%2 == 1 {
			c.Pause = 3e9
		}
		s, err := RandomWaypoint(start, c, 5*time.Minute, rng)
		if err != nil {
			t.Fatal(err)
		}
		back := roundTrip(t, s, 6*time.Minute)
		// Continuous legs come back bit for bit: same starts, same points.
		for i := range s.Len() {
			a, b := s.Trajectory(i), back.Trajectory(i)
			if len(a) != len(b) {
				t.Fatalf("seed %d node %d: %d legs, read back %d", seed, i, len(a), len(b))
			}
			for k := range a {
				if a[k].Start != b[k].Start || a[k].From != b[k].From || !near(a[k].Vel, b[k].Vel, 1e-9) {
					t.Fatalf("seed %d node %d leg %d: wrote %+v, read back %+v", seed, i, k, a[k], b[k])
				}
			}
		}
	}
}

func TestNS2RoundTripJumpsAndHeights(t *testing.T) {
	s := NewSet([]Trajectory{
		// Moves, then jumps to a new place at 10 s and moves on from there.
		{{From: geo.Vec{X: 1, Y: 2, Z: 3}, Vel: geo.Vec{X: 1}}, {Start: sec(10), From: geo.Vec{X: -50, Y: 2, Z: 4}, Vel: geo.Vec{Y: 0.1}}, {Start: sec(20.5), From: geo.Vec{X: -50, Y: 3.05, Z: 4}}},
		{{From: geo.Vec{X: 7}}, {Start: sec(3), From: geo.Vec{X: 8}}},
		nil,
	})
	back := roundTrip(t, s, 30*time.Second)
	wantAt(t, back, 0, 5, geo.Vec{X: 6, Y: 2, Z: 3})
	wantAt(t, back, 0, 10, geo.Vec{X: -50, Y: 2, Z: 4})
	wantAt(t, back, 1, 3, geo.Vec{X: 8})

	for name, bad := range map[string]Trajectory{
		"never stops":   {{Vel: geo.Vec{X: 1}}},
		"moves along Z": {{Vel: geo.Vec{Z: 1}}, {Start: sec(1), From: geo.Vec{Z: 1}}},
	} {
		if err := WriteNS2(&bytes.Buffer{}, NewSet([]Trajectory{bad})); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
