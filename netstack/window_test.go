package netstack

import "testing"

func TestSeqWindow(t *testing.T) {
	var w Window
	steps := []struct {
		seq  uint64
		want bool
	}{
		{0, false}, {1, true}, {1, false}, {3, true}, {2, true}, {2, false},
		{3, false}, {2000, true}, {3, false}, {900, false}, {1000, true}, {1500, true}, {1500, false},
		{1 << 40, true}, {1<<40 - 1, true}, {1<<40 - windowBits, false},
	}
	for _, s := range steps {
		if got := w.Accept(s.seq); got != s.want {
			t.Errorf("accept(%d) = %v, want %v", s.seq, got, s.want)
		}
	}
}
