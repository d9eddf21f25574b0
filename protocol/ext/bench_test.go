package ext

import (
	"os/exec"
	"testing"
	"time"
)

// BenchmarkRoundTrip is the per-event cost of the pipe: one event line
// to a Python program that answers [] and its reply read back
// (docs/performance.md, "Programs in any language").
func BenchmarkRoundTrip(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 is not installed")
	}
	c, err := startChild([]string{"python3", "-c", "import sys\nfor l in sys.stdin:\n    print('[]', flush=True)\n"}, 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	line := []byte(`{"event":"recv","now":1.5,"from":3,"kind":"token","body":{"epoch":1,"id":3},"reliable":true}` + "\n")
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.call(line); err != nil {
			b.Fatal(err)
		}
	}
}
