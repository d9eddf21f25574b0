package mobility

import (
	"math"
	"testing"
	"time"

	"manetlab/internal/geo"
)

// sec converts seconds to a Duration for readable test tables.
func sec(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// near reports whether a and b are within tol metres.
func near(a, b geo.Vec, tol float64) bool { return geo.Dist(a, b) <= tol }

// wantAt checks node i's position at t seconds.
func wantAt(t *testing.T, m Model, i int, at float64, want geo.Vec) {
	t.Helper()
	if got := m.Position(i, sec(at)); !near(got, want, 1e-9) {
		t.Errorf("node %d at %gs: got %+v, want %+v", i, at, got, want)
	}
}
