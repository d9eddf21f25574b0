package node

import "testing"

func TestSeqWindow(t *testing.T) {
	var w seqWindow
	steps := []struct {
		seq  uint64
		want bool
	}{
		{0, false}, {1, true}, {1, false}, {3, true}, {2, true}, {2, false},
		{3, false}, {2000, true}, {3, false}, {900, false}, {1000, true}, {1500, true}, {1500, false},
		{1 << 40, true}, {1<<40 - 1, true}, {1<<40 - windowBits, false},
	}
	for _, s := range steps {
		if got := w.accept(s.seq); got != s.want {
			t.Errorf("accept(%d) = %v, want %v", s.seq, got, s.want)
		}
	}
}

func TestParseIDs(t *testing.T) {
	got, err := ParseIDs("1-3,7, 9-10")
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{1, 2, 3, 7, 9, 10}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if uint32(got[i]) != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	for _, bad := range []string{"", "0", "3-1", "a", "1,1", "1-2-3", "5-"} {
		if _, err := ParseIDs(bad); err == nil {
			t.Errorf("ParseIDs(%q) accepted", bad)
		}
	}
}
