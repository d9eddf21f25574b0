package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// homeLink reads what home sends a host's launcher on its standard input
// (the ssh session run --hosts started it with): the start ("start
// UNIX_NS"), the order to stop ("stop"), and a beat every few seconds
// while the run goes ("beat"). Losing home is not an order: the
// launcher runs on to the scheduled end (home gathers its records after
// the run), unless it was asked to stop once home has been silent for
// lostAfter (run --hosts --stop-lost-hosts).
type homeLink struct {
	// later receives the start (nil: the start was given by --start).
	later chan time.Time
	// stop ends the run on this host.
	stop func()
	// lostAfter is how long home may stay silent after the start before
	// this host stops (0: never; it runs on to the end).
	lostAfter time.Duration
	progress  io.Writer
	// every is how often the silence is looked at (a second).
	every time.Duration
	// other, when set, takes home's other lines after the start (faults
	// by hand: "crash N", "recover N").
	other func(line string)
}

// read follows in until home orders the stop, home is lost (and the
// host was asked to stop then), or in ends.
func (h *homeLink) read(in io.Reader) {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, in)
	}()
	started := h.later == nil
	last := time.Now()
	var tick <-chan time.Time
	if h.lostAfter > 0 {
		t := time.NewTicker(max(h.every, time.Millisecond))
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				if !started {
					// Home went away before the start: nothing ran.
					close(h.later)
					h.stop()
					return
				}
				if h.lostAfter > 0 {
					fmt.Fprintf(h.progress, "launch: home's connection ended without an order to stop; stopping, as asked (--stop-lost-hosts)\n")
					h.stop()
					return
				}
				fmt.Fprintf(h.progress, "launch: home's connection ended without an order to stop; running on to the scheduled end (home gathers the records after the run)\n")
				return
			}
			last = time.Now()
			f := strings.Fields(l)
			switch {
			case len(f) == 1 && f[0] == "stop":
				if !started {
					close(h.later)
				}
				h.stop()
				return
			case len(f) == 2 && f[0] == "start" && !started:
				if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil && ns > 0 {
					h.later <- time.Unix(0, ns)
					started = true
				}
			case started && h.other != nil && len(f) > 0 && f[0] != "beat":
				h.other(l)
			}
		case <-tick:
			if started && time.Since(last) > h.lostAfter {
				fmt.Fprintf(h.progress, "launch: no word from home for %s; stopping, as asked (--stop-lost-hosts)\n", time.Since(last).Round(time.Second))
				h.stop()
				return
			}
		}
	}
}
