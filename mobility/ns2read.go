package mobility

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"manetlab/internal/geo"
	"manetlab/internal/safefs"
)

// maxNS2Node bounds node indices so that a typo such as $node_(1000000000)
// is reported instead of allocating a billion trajectories.
const maxNS2Node = 1 << 20

// maxNS2Seconds bounds times, far below time.Duration's ~292 years.
const maxNS2Seconds = 1e9

// ns2Event is one timed line of a trace.
type ns2Event struct {
	line  int
	node  int
	at    time.Duration
	kind  byte    // 'd' setdest, 'X', 'Y' or 'Z' teleport on that axis
	dest  geo.Vec // setdest destination (Z unused)
	speed float64 // setdest speed
	value float64 // teleport coordinate
}

// MaxNS2Bytes bounds an ns-2 mobility file: the reader keeps every
// timed line (about seven times the file's size in memory), so a file
// of 300 MB took 2 GB and was still being read (issue 40).
const MaxNS2Bytes = 64 << 20

// shortValue bounds what an error message quotes of a bad value.
const shortValue = 60

// ReadNS2 reads the ns-2 mobility trace at path, a regular file of at
// most MaxNS2Bytes (a FIFO, a device or a directory is refused at once);
// see ParseNS2.
func ReadNS2(path string) (*Set, []string, error) {
	f, err := safefs.OpenInput(path, "ns-2 trace", MaxNS2Bytes)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ParseNS2(safefs.Limit(f, path, "ns-2 trace", MaxNS2Bytes), path)
}

// ParseNS2 reads an ns-2 mobility trace as ns-3's Ns2MobilityHelper does.
// Untimed `$node_(i) set X_ v` lines (any axis order, anywhere in the
// file; missing axes are 0) give initial positions. Timed lines
// `$ns_ at T "$node_(i) setdest X Y SPEED"` move the node from where it is
// at T toward (X, Y), keeping its height, arriving at T + dist/SPEED and
// stopping there; a later setdest interrupts the move, and SPEED 0 stops
// the node where it is. `$ns_ at T "$node_(i) set X_ v"` teleports the node
// on that axis at T and stops it. Timed lines apply in time order, same-time
// lines in file order. Comments (#), blank lines, CRLF and a trailing `;`
// are ignored. Lines that ns-3 skips are skipped too, and each kind is
// counted in one warning (docs/mobility.md): Tcl lines that move no node
// (`set god_ [God instance]`, `$god_ set-dist`, `puts`, `$ns_ at T "stop"`),
// other node commands (`reset`, `random-motion`), 3D `setdest X Y Z SPEED`,
// negative times and lines using Tcl variables (`$ns_ at $t ...`). A line
// that names a node and setdest or an axis but does not read is an error.
// The node count is the highest index + 1; name labels errors and
// warnings as name:line.
func ParseNS2(r io.Reader, name string) (*Set, []string, error) {
	var (
		init   []geo.Vec
		events []ns2Event
		nodes  int
		skips  ns2Skips
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for ln := 1; sc.Scan(); ln++ {
		text := sc.Text()
		if k := strings.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		text = strings.TrimRight(text, " \t\r;")
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, ln, fmt.Sprintf(format, args...))
		}
		switch {
		case strings.HasPrefix(f[0], "$node_("):
			if kind, word := untimedSkip(f); kind != skipNone {
				skips.add(kind, ln, word)
				continue
			}
			node, axis, v, err := parseNS2Set(f)
			if err != nil {
				return nil, nil, fail("%v", err)
			}
			nodes = max(nodes, node+1)
			for len(init) <= node {
				init = append(init, geo.Vec{})
			}
			setAxis(&init[node], axis, v)
		case f[0] == "$ns_" && strings.Contains(text, "("):
			ev, kind, word, err := parseNS2At(text)
			if err != nil {
				return nil, nil, fail("%v", err)
			}
			if kind != skipNone {
				skips.add(kind, ln, word)
				continue
			}
			ev.line = ln
			nodes = max(nodes, ev.node+1)
			events = append(events, ev)
		default:
			skips.add(skipNoNode, ln, "")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	for len(init) < nodes {
		init = append(init, geo.Vec{})
	}
	slices.SortStableFunc(events, func(a, b ns2Event) int { return cmp.Compare(a.at, b.at) })
	perNode := make([][]ns2Event, nodes)
	for _, ev := range events {
		perNode[ev.node] = append(perNode[ev.node], ev)
	}
	trajs := make([]Trajectory, nodes)
	for i := range trajs {
		tr, err := playNS2(init[i], perNode[i])
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%w", name, err)
		}
		trajs[i] = tr
	}
	return NewSet(trajs), skips.warnings(name), nil
}

// playNS2 turns one node's events, sorted by time, into its trajectory.
func playNS2(p geo.Vec, evs []ns2Event) (Trajectory, error) {
	tr := Trajectory{{From: p}}
	moving := false
	var arrive time.Duration
	var dest geo.Vec
	for _, ev := range evs {
		if moving && arrive <= ev.at {
			// Arrived before this event: the stop leg takes the exact
			// destination rather than an extrapolated one.
			tr = appendLeg(tr, Leg{Start: arrive, From: dest})
			moving = false
		}
		pos := tr[len(tr)-1].at(ev.at)
		moving = false
		if ev.kind != 'd' {
			setAxis(&pos, ev.kind, ev.value)
			tr = appendLeg(tr, Leg{Start: ev.at, From: pos})
			continue
		}
		dest = geo.Vec{X: ev.dest.X, Y: ev.dest.Y, Z: pos.Z}
		d := geo.Dist(pos, dest)
		secs := d / ev.speed // +Inf when speed is 0
		if ev.speed == 0 || d == 0 {
			tr = appendLeg(tr, Leg{Start: ev.at, From: pos})
			continue
		}
		if ev.at.Seconds()+secs > maxNS2Seconds {
			return nil, fmt.Errorf("%d: arrival at %gs is beyond %gs", ev.line, ev.at.Seconds()+secs, float64(maxNS2Seconds))
		}
		arrive = ev.at + time.Duration(math.Round(secs*float64(time.Second)))
		if arrive == ev.at {
			// Less than half a nanosecond away: arrive at once.
			tr = appendLeg(tr, Leg{Start: ev.at, From: dest})
			continue
		}
		tr = appendLeg(tr, legTo(ev.at, pos, dest, arrive))
		moving = true
	}
	if moving {
		tr = append(tr, Leg{Start: arrive, From: dest})
	}
	return tr, nil
}

// parseNS2Set reads the fields of `$node_(i) set X_ v`.
func parseNS2Set(f []string) (node int, axis byte, v float64, err error) {
	if node, err = parseNS2Node(f[0]); err != nil {
		return 0, 0, 0, err
	}
	if len(f) != 4 || f[1] != "set" {
		return 0, 0, 0, fmt.Errorf("want `$node_(i) set X_|Y_|Z_ value`, got %s", safefs.Short(strings.Join(f, " "), shortValue))
	}
	switch f[2] {
	case "X_", "Y_", "Z_":
		axis = f[2][0]
	default:
		return 0, 0, 0, fmt.Errorf("%s is not an axis (want X_, Y_ or Z_)", safefs.Short(f[2], shortValue))
	}
	if v, err = parseNS2Number(f[3], "coordinate"); err != nil {
		return 0, 0, 0, err
	}
	return node, axis, v, nil
}

// parseNS2At reads `$ns_ at T "<command>"` naming a node. A kind other
// than skipNone says why ns-3 would skip it (word: the command skipped).
func parseNS2At(text string) (ev ns2Event, kind skipKind, word string, err error) {
	q := strings.IndexByte(text, '"')
	if q < 0 {
		return ev, skipNone, "", fmt.Errorf("want `$ns_ at T \"$node_(i) setdest X Y SPEED\"`: the command must be quoted")
	}
	head := strings.Fields(text[:q])
	cmdText := strings.TrimSpace(text[q+1:])
	if !strings.HasSuffix(cmdText, `"`) || strings.Count(cmdText, `"`) != 1 {
		return ev, skipNone, "", fmt.Errorf("unbalanced quotes (want `$ns_ at T \"$node_(i) setdest X Y SPEED\"`)")
	}
	if len(head) != 3 || head[1] != "at" {
		return ev, skipNone, "", fmt.Errorf("want `$ns_ at T \"...\"`, got %s", safefs.Short(strings.TrimSpace(text[:q]), shortValue))
	}
	f := strings.Fields(strings.TrimSuffix(cmdText, `"`))
	if strings.HasPrefix(head[2], "$") || (len(f) > 0 && strings.HasPrefix(f[0], "$node_($")) {
		return ev, skipVariable, "", nil
	}
	secs, err := parseNS2Number(head[2], "time")
	if err != nil {
		return ev, skipNone, "", err
	}
	if secs < 0 {
		return ev, skipNegative, "", nil
	}
	if secs > maxNS2Seconds {
		return ev, skipNone, "", fmt.Errorf("time %g is out of range (want 0 to %g seconds)", secs, float64(maxNS2Seconds))
	}
	ev.at = time.Duration(math.Round(secs * float64(time.Second)))
	if len(f) == 0 || !strings.Contains(f[0], "(") {
		return ev, skipNoNode, "", nil
	}
	if _, err := parseNS2Node(f[0]); err != nil {
		return ev, skipNone, "", err
	}
	switch {
	case len(f) < 2:
		return ev, skipCommand, "(none)", nil
	case f[1] == "set" && (len(f) < 3 || !isAxis(f[2])):
		return ev, skipCommand, "set " + strings.Join(f[2:min(3, len(f))], ""), nil
	case f[1] == "setdest" && len(f) == 6:
		return ev, skip3D, "", nil
	case f[1] != "set" && f[1] != "setdest":
		return ev, skipCommand, f[1], nil
	}
	if f[1] == "set" {
		var axis byte
		ev.node, axis, ev.value, err = parseNS2Set(f)
		ev.kind = axis
		return ev, skipNone, "", err
	}
	if ev.node, err = parseNS2Node(f[0]); err != nil {
		return ev, skipNone, "", err
	}
	if len(f) != 5 {
		return ev, skipNone, "", fmt.Errorf("want \"$node_(i) setdest X Y SPEED\" or \"$node_(i) set X_ v\", got %s", safefs.Short(strings.Join(f, " "), shortValue))
	}
	ev.kind = 'd'
	if ev.dest.X, err = parseNS2Number(f[2], "x"); err != nil {
		return ev, skipNone, "", err
	}
	if ev.dest.Y, err = parseNS2Number(f[3], "y"); err != nil {
		return ev, skipNone, "", err
	}
	if ev.speed, err = parseNS2Number(f[4], "speed"); err != nil {
		return ev, skipNone, "", err
	}
	if ev.speed < 0 {
		return ev, skipNone, "", fmt.Errorf("speed %g is negative (want 0 or above; 0 stops the node)", ev.speed)
	}
	return ev, skipNone, "", nil
}

// untimedSkip says whether ns-3 skips an untimed line starting with
// $node_(: commands other than `set X_|Y_|Z_ v` (random-motion, set
// energy_) and nodes named by a Tcl variable ($node_($i)).
func untimedSkip(f []string) (skipKind, string) {
	switch {
	case strings.HasPrefix(f[0], "$node_($"):
		return skipVariable, ""
	case len(f) < 2:
		return skipCommand, "(none)"
	case f[1] != "set":
		return skipCommand, f[1]
	case len(f) >= 3 && !isAxis(f[2]):
		return skipCommand, "set " + f[2]
	}
	return skipNone, ""
}

func isAxis(s string) bool { return s == "X_" || s == "Y_" || s == "Z_" }

// parseNS2Node reads `$node_(i)`.
func parseNS2Node(s string) (int, error) {
	inner, ok := strings.CutPrefix(s, "$node_(")
	if ok {
		inner, ok = strings.CutSuffix(inner, ")")
	}
	if !ok {
		return 0, fmt.Errorf("%s is not a node (want $node_(i))", safefs.Short(s, shortValue))
	}
	n, err := strconv.Atoi(inner)
	if err != nil || n < 0 || n >= maxNS2Node {
		return 0, fmt.Errorf("%s: node index must be an integer from 0 to %d", safefs.Short(s, shortValue), maxNS2Node-1)
	}
	return n, nil
}

// parseNS2Number reads a finite number; what names it in the error.
func parseNS2Number(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %s is not a finite number", what, safefs.Short(s, shortValue))
	}
	return v, nil
}

func setAxis(v *geo.Vec, axis byte, x float64) {
	switch axis {
	case 'X':
		v.X = x
	case 'Y':
		v.Y = x
	case 'Z':
		v.Z = x
	}
}
