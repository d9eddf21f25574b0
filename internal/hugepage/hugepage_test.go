package hugepage

import (
	"runtime"
	"testing"
)

// TestAdviseKeepsContents: advice on a large array leaves what it holds
// and what may be done with it as they were; a small array is left alone.
func TestAdviseKeepsContents(t *testing.T) {
	if Advise(make([]int64, 1000)) {
		t.Error("a 8 KB array was advised: it covers no whole huge page")
	}
	if Advise([]int64(nil)) {
		t.Error("a nil slice was advised")
	}
	s := make([]int64, 3*Size/8+123) // more than two huge pages, not aligned
	for i := range s {
		s[i] = int64(i) * 7
	}
	ok := Advise(s)
	if runtime.GOOS == "linux" {
		t.Logf("advised: %v (false where the kernel has no transparent huge pages)", ok)
	} else if ok {
		t.Errorf("advised on %s", runtime.GOOS)
	}
	for i := range s {
		if s[i] != int64(i)*7 {
			t.Fatalf("s[%d] = %d after the advice, want %d", i, s[i], i*7)
		}
		s[i]++
	}
	s = append(s, 1)
	if s[len(s)-2] != int64(len(s)-2)*7+1 || s[len(s)-1] != 1 {
		t.Fatal("the array could not be written and grown after the advice")
	}
}
