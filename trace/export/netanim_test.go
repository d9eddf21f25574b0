package export

import (
	"math"
	"testing"
)

func TestNodeSize(t *testing.T) {
	for _, c := range []struct {
		area                   [2]float64
		minX, minY, maxX, maxY float64
		want                   float64
	}{
		{[2]float64{1000, 1000}, 0, 0, 10, 10, 20}, // the area wins
		{[2]float64{300, 5000}, 0, 0, 10, 10, 100}, // its larger side
		{[2]float64{}, 100, 100, 600, 300, 10},     // no scenario: the nodes' extent
		{[2]float64{}, 5, 5, 5, 5, 1},              // one point: 1 m
		{[2]float64{10, 10}, 0, 0, 0, 0, 1},        // never below 1 m
		{[2]float64{math.Inf(1), 1}, 0, 0, 0, 0, 1},
	} {
		if got := nodeSize(c.area, c.minX, c.minY, c.maxX, c.maxY); got != c.want {
			t.Errorf("nodeSize(%v, %v %v %v %v) = %v, want %v", c.area, c.minX, c.minY, c.maxX, c.maxY, got, c.want)
		}
	}
}
