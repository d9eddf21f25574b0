package launch

import (
	"strings"
	"testing"
	"time"
)

// TestDeadlinesSayOverloaded: checks that came on time say nothing; one
// that came more than MissedBy late makes the machine overloaded, with
// how many, the worst and the load.
func TestDeadlinesSayOverloaded(t *testing.T) {
	var d Deadlines
	for range 10 {
		d.note(3 * time.Millisecond)
	}
	if w := d.Overloaded(); w != "" || d.Checks != 10 {
		t.Errorf("on time: %q, %+v", w, d)
	}
	d.note(1800 * time.Millisecond)
	d.note(400 * time.Millisecond)
	w := d.Overloaded()
	if !strings.HasPrefix(w, "this machine was overloaded: the launcher missed 2 of its 12 checks (every 250ms) by more than 100ms, the worst by 1.8s") {
		t.Errorf("late: %q", w)
	}
}
