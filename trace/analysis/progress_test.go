package analysis

import (
	"strings"
	"testing"
	"time"
)

// TestProgressCountLooksEveryStride: a count of lines looks at the clock
// once per lineStride lines, so a line is printed at most that often
// however short ProgressEvery is; other phases look at every step.
func TestProgressCountLooksEveryStride(t *testing.T) {
	var b strings.Builder
	Progress, ProgressEvery = &b, 0
	defer func() { Progress, ProgressEvery = nil, 2*time.Second }()
	p := newCount("reading", linesUnit)
	for line := int64(1); line <= 3*lineStride; line++ {
		time.Sleep(0) // the clock moves on
		p.set(line)
	}
	if n := strings.Count(b.String(), "\n"); n < 2 || n > 3 {
		t.Errorf("%d progress lines for 3 strides of lines, want 2 or 3:\n%s", n, b.String())
	}
	b.Reset()
	q := newProgress("ground truth", 10, runTimeUnit)
	for k := int64(1); k <= 5; k++ {
		time.Sleep(time.Microsecond)
		q.set(k)
	}
	if n := strings.Count(b.String(), "\n"); n != 5 {
		t.Errorf("%d progress lines for 5 steps of the ground truth, want 5:\n%s", n, b.String())
	}
}
