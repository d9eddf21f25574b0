package node

import "testing"

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
