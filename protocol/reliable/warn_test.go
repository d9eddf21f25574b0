package reliable

import (
	"strings"
	"testing"
	"time"
)

// TestHopWarning: the default rto (200 ms) never warns at the DCF medium's
// hop time (1.95 ms at 1 Mbps) nor at the ideal medium's 2 ms; an rto
// below four hop times warns with the figures; an unknown hop time never.
func TestHopWarning(t *testing.T) {
	dcf := 1950 * time.Microsecond
	for _, hop := range []time.Duration{dcf, 2 * time.Millisecond, 20 * time.Millisecond} {
		if w := HopWarning("x", Config{}, hop); w != nil {
			t.Errorf("defaults at hop %v: %s", hop, w.Text)
		}
	}
	w := HopWarning("ring/lelann", Config{Timeout: 5 * time.Millisecond}, dcf)
	if w == nil || !strings.Contains(w.Text, "protocol.params.rto 5ms") || !strings.Contains(w.Text, "hop time of 1.95ms") || !strings.Contains(w.Text, "(7.8ms)") {
		t.Fatalf("rto 5ms at %v: %v", dcf, w)
	}
	if w := HopWarning("x", Config{Timeout: time.Millisecond}, 0); w != nil {
		t.Errorf("unknown hop time: %s", w.Text)
	}
}
