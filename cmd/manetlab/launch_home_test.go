package main

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHomeLink checks how a host's launcher reads home's standard input:
// "stop" stops it; the end of its input after the start (home lost) does
// not, unless it was asked to stop when home is lost; a silence longer
// than that stops it too; the end before the start stops it and closes
// the start channel.
func TestHomeLink(t *testing.T) {
	run := func(in io.Reader, lostAfter time.Duration, withStart bool) (stopped bool, said string, start time.Time) {
		var n atomic.Int32
		var b strings.Builder
		var later chan time.Time
		if withStart {
			later = make(chan time.Time, 1)
		}
		h := &homeLink{later: later, stop: func() { n.Add(1) }, lostAfter: lostAfter, progress: &b, every: 5 * time.Millisecond}
		h.read(in)
		if later != nil {
			select {
			case s, ok := <-later:
				if ok {
					start = s
				}
			default:
			}
		}
		return n.Load() > 0, b.String(), start
	}
	if stopped, _, start := run(strings.NewReader("start 1000\nbeat\nstop\n"), 0, true); !stopped || start.UnixNano() != 1000 {
		t.Errorf("start then stop: stopped %v, start %v; want stopped, start at 1000 ns", stopped, start.UnixNano())
	}
	if stopped, said, _ := run(strings.NewReader("start 1000\nbeat\n"), 0, true); stopped || !strings.Contains(said, "running on to the scheduled end") {
		t.Errorf("home lost: stopped %v (%q); want running on, said so", stopped, said)
	}
	if stopped, said, _ := run(strings.NewReader("start 1000\n"), time.Minute, true); !stopped || !strings.Contains(said, "stopping, as asked") {
		t.Errorf("home lost with --stop-if-home-lost: stopped %v (%q); want stopped", stopped, said)
	}
	if stopped, _, start := run(strings.NewReader(""), 0, true); !stopped || !start.IsZero() {
		t.Errorf("no start: stopped %v, start %v; want stopped, no start", stopped, start)
	}
	// Silence: a reader that never ends.
	pr, pw := io.Pipe()
	defer pw.Close()
	go io.WriteString(pw, "start 1000\n")
	if stopped, said, _ := run(pr, 50*time.Millisecond, true); !stopped || !strings.Contains(said, "no word from home for") {
		t.Errorf("home silent beyond --stop-if-home-lost: stopped %v (%q); want stopped", stopped, said)
	}
}
