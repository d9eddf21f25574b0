package mobility

import (
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/internal/geo"
)

func TestFromWaypointsArrivesOnTime(t *testing.T) {
	start := []geo.Vec{{X: 0, Y: 0}, {X: 5, Y: 5}, {X: 9, Y: 9}}
	s, err := FromWaypoints(start, [][]Waypoint{
		{{At: 10 * time.Second, Pos: geo.Vec{X: 100}}, {At: 15 * time.Second, Pos: geo.Vec{X: 100, Y: 50}}},
		{{At: 0, Pos: geo.Vec{X: 1, Y: 1}}, {At: 2 * time.Second, Pos: geo.Vec{X: 1, Y: 1}}, {At: 4 * time.Second, Pos: geo.Vec{X: 1, Y: 3}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantAt(t, s, 0, 0, geo.Vec{})
	wantAt(t, s, 0, 5, geo.Vec{X: 50})
	wantAt(t, s, 0, 10, geo.Vec{X: 100})
	wantAt(t, s, 0, 12.5, geo.Vec{X: 100, Y: 25})
	wantAt(t, s, 0, 15, geo.Vec{X: 100, Y: 50})
	wantAt(t, s, 0, 1000, geo.Vec{X: 100, Y: 50})
	// A first waypoint at 0 replaces the start; equal positions mean a wait.
	wantAt(t, s, 1, 0, geo.Vec{X: 1, Y: 1})
	wantAt(t, s, 1, 1.5, geo.Vec{X: 1, Y: 1})
	wantAt(t, s, 1, 3, geo.Vec{X: 1, Y: 2})
	wantAt(t, s, 1, 99, geo.Vec{X: 1, Y: 3})
	// A node without waypoints stays put.
	wantAt(t, s, 2, 7, geo.Vec{X: 9, Y: 9})
	if got := s.MaxSpeed(); got != 10 {
		t.Errorf("MaxSpeed = %g, want 10 (100 m in 10 s)", got)
	}
	want := []time.Duration{0, 2 * time.Second, 4 * time.Second, 10 * time.Second, 15 * time.Second}
	if got := s.Changes(); !slices.Equal(got, want) {
		t.Errorf("Changes = %v, want %v", got, want)
	}
}

func TestFromWaypointsRejectsBadTimes(t *testing.T) {
	start := []geo.Vec{{}}
	for name, wps := range map[string][]Waypoint{
		"decreasing": {{At: 5 * time.Second}, {At: 3 * time.Second}},
		"equal":      {{At: 5 * time.Second}, {At: 5 * time.Second}},
		"negative":   {{At: -time.Second}},
	} {
		if _, err := FromWaypoints(start, [][]Waypoint{wps}); err == nil || !strings.Contains(err.Error(), "increasing time") {
			t.Errorf("%s: err = %v, want an increasing-time error", name, err)
		}
	}
	if _, err := FromWaypoints(start, make([][]Waypoint, 2)); err == nil {
		t.Error("more waypoint lists than nodes: no error")
	}
}
