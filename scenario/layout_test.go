package scenario

import "testing"

func TestTraceLayoutCombined(t *testing.T) {
	cases := []struct {
		layout string
		n      int
		want   bool
	}{
		{"", CombinedFrom - 1, false},
		{"", CombinedFrom, true},
		{LayoutAuto, 5, false},
		{LayoutAuto, 100000, true},
		{LayoutPerNode, 100000, false},
		{LayoutCombined, 3, true},
	}
	for _, c := range cases {
		if got := (TraceOptions{Layout: c.layout}).Combined(c.n); got != c.want {
			t.Errorf("layout %q, %d nodes: combined = %v, want %v", c.layout, c.n, got, c.want)
		}
	}
}
