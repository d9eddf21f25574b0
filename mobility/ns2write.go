package mobility

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"manetlab/internal/geo"
)

// WriteNS2 writes s as an ns-2 mobility trace that ParseNS2 reads back to
// the same trajectories: initial positions, then one setdest per moving leg
// (destination = the next leg's start, speed = distance / leg duration) and
// a teleport (`set X_`) wherever a leg does not start where the previous
// one ended. Numbers are written in the shortest form that reads back to
// the same float64, and times exactly to the nanosecond. ns-2 cannot
// express motion along Z or a node that never stops; those are errors.
func WriteNS2(w io.Writer, s *Set) error {
	type timed struct {
		at   time.Duration
		text string
	}
	var lines []timed
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# ns-2 mobility trace written by manetlab: %d nodes\n", s.Len())
	for i := range s.Len() {
		tr := s.Trajectory(i)
		var p geo.Vec // a node without legs stays at the origin
		if len(tr) > 0 {
			p = tr[0].From
		}
		for _, axis := range []byte{'X', 'Y', 'Z'} {
			fmt.Fprintf(bw, "$node_(%d) set %c_ %s\n", i, axis, num(axisOf(p, axis)))
		}
		for k, l := range tr {
			if l.From != p {
				// A jump: the reader stops the node and moves it axis by
				// axis, so only the axes that changed are written.
				for _, axis := range []byte{'X', 'Y', 'Z'} {
					if axisOf(l.From, axis) != axisOf(p, axis) {
						lines = append(lines, timed{l.Start, fmt.Sprintf("$ns_ at %s \"$node_(%d) set %c_ %s\"", secs(l.Start), i, axis, num(axisOf(l.From, axis)))})
					}
				}
			}
			p = l.From
			if l.Vel == (geo.Vec{}) {
				continue
			}
			if k == len(tr)-1 {
				return fmt.Errorf("ns-2 trace: node %d never stops after %v (a setdest always ends)", i, l.Start)
			}
			if l.Vel.Z != 0 {
				return fmt.Errorf("ns-2 trace: node %d moves along Z at %v (setdest moves in X and Y only)", i, l.Start)
			}
			next := tr[k+1]
			dest := l.at(next.Start)
			if geo.Dist(dest, next.From) <= 1e-6*(1+next.From.Len()) {
				// Continuous motion: aim at the next leg's start exactly,
				// so the reader's stop leg starts there bit for bit.
				dest = next.From
			}
			dest.Z = p.Z
			speed := geo.Dist(p, dest) / (next.Start - l.Start).Seconds()
			lines = append(lines, timed{l.Start, fmt.Sprintf("$ns_ at %s \"$node_(%d) setdest %s %s %s\"", secs(l.Start), i, num(dest.X), num(dest.Y), num(speed))})
			p = dest
		}
	}
	slices.SortStableFunc(lines, func(a, b timed) int { return cmp.Compare(a.at, b.at) })
	for _, l := range lines {
		fmt.Fprintln(bw, l.text)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("ns-2 trace: %w", err)
	}
	return nil
}

// num formats v in the shortest decimal form that parses back to v.
func num(v float64) string {
	if v == 0 {
		v = 0 // -0 would print as "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// secs formats d in seconds, exactly to the nanosecond.
func secs(d time.Duration) string {
	return fmt.Sprintf("%d.%09d", d/time.Second, d%time.Second)
}

func axisOf(v geo.Vec, axis byte) float64 {
	switch axis {
	case 'X':
		return v.X
	case 'Y':
		return v.Y
	}
	return v.Z
}
