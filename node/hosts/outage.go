package hosts

import (
	"fmt"
	"io"
	"time"
)

// silentAfter is how long home may hear nothing from a host's launcher,
// which prints a progress line every 5 s while the run goes, before it
// says the host is unreachable. The run goes on: the host's launcher
// runs its nodes and applies its faults whatever the connection does,
// and ssh gives the connection up only after Options.HostTimeout.
const silentAfter = 12 * time.Second

// outage is a silence of a host, from its last line before to its first
// line after.
type outage struct{ from, to time.Time }

// heard notes a line from the host's launcher; the first after a
// silence noticed by watch ends an outage, and says so.
func (x *session) heard() {
	now := time.Now()
	x.last.Store(now.UnixNano())
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.silentSince.IsZero() {
		return
	}
	o := outage{x.silentSince, now}
	x.outages = append(x.outages, o)
	x.silentSince = time.Time{}
	fmt.Fprintf(x.progress, "run: host %s: heard from again at %s, after %s without a word\n",
		x.c.host.Target, now.Format("15:04:05"), o.to.Sub(o.from).Round(100*time.Millisecond))
}

// watch notices, from the run's start until the session ends, a host
// silent for silentAfter, and says so.
func (x *session) watch(start time.Time, progress io.Writer, timeout time.Duration) {
	x.mu.Lock()
	x.progress = progress
	x.mu.Unlock()
	x.last.Store(start.UnixNano())
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-x.done:
			return
		case <-tick.C:
		}
		last := time.Unix(0, x.last.Load())
		if time.Since(last) < silentAfter {
			continue
		}
		x.mu.Lock()
		if x.silentSince.IsZero() {
			x.silentSince = last
			fmt.Fprintf(x.progress, "run: host %s: no word from it since %s: unreachable; its launcher runs on by itself, and home waits for it up to --host-timeout %s\n",
				x.c.host.Target, last.Format("15:04:05"), timeout)
		}
		x.mu.Unlock()
	}
}

// outageNotes says when each host was unreachable, in the run's time.
func outageNotes(ss []*session, start time.Time) []string {
	var notes []string
	for _, x := range ss {
		x.mu.Lock()
		os := append([]outage(nil), x.outages...)
		if !x.silentSince.IsZero() {
			os = append(os, outage{from: x.silentSince})
		}
		lostAt := x.connLost
		x.mu.Unlock()
		for _, o := range os {
			if o.to.IsZero() && !lostAt.IsZero() && x.res != nil {
				notes = append(notes, fmt.Sprintf("host %s was unreachable: no word from it from %s of the run, its connection given up at %s (--host-timeout); it ran on by itself, and its result, traces and fault record were gathered after the run",
					x.c.host.Target, o.from.Sub(start).Round(100*time.Millisecond), lostAt.Sub(start).Round(100*time.Millisecond)))
				continue
			}
			if o.to.IsZero() {
				notes = append(notes, fmt.Sprintf("host %s was unreachable: no word from it from %s of the run to its end",
					x.c.host.Target, o.from.Sub(start).Round(100*time.Millisecond)))
				continue
			}
			notes = append(notes, fmt.Sprintf("host %s was unreachable: no word from it between %s and %s of the run (%s); it ran on by itself, and its traces and fault record were gathered after",
				x.c.host.Target, o.from.Sub(start).Round(100*time.Millisecond), o.to.Sub(start).Round(100*time.Millisecond), o.to.Sub(o.from).Round(100*time.Millisecond)))
		}
	}
	return notes
}
