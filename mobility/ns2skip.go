package mobility

import (
	"fmt"
	"slices"
	"strings"

	"manetlab/internal/safefs"
)

// skipKind is why a line of an ns-2 trace is skipped, as ns-3's
// Ns2MobilityHelper skips it.
type skipKind int

const (
	skipNone     skipKind = iota
	skipNoNode            // Tcl that moves no node: set god_, $god_, puts, proc, $ns_ at T "stop"
	skipCommand           // a node command other than setdest and set X_|Y_|Z_: reset, random-motion
	skip3D                // setdest X Y Z SPEED
	skipNegative          // $ns_ at with a negative time
	skipVariable          // a Tcl variable where a time or node index belongs
	nSkipKinds
)

var skipWhat = [nSkipKinds]string{
	skipNoNode:   "Tcl that moves no node (set god_, $god_, puts, $ns_ at T \"stop\", ...)",
	skipCommand:  "node commands other than setdest and set X_/Y_/Z_",
	skip3D:       "3D setdest X Y Z SPEED (ns-3 reads only setdest X Y SPEED)",
	skipNegative: "negative times",
	skipVariable: "Tcl variables where a time or node index belongs",
}

// ns2Skips counts the skipped lines of each kind.
type ns2Skips [nSkipKinds]struct {
	n, first int
	words    []string
}

func (s *ns2Skips) add(k skipKind, line int, word string) {
	c := &s[k]
	if c.n == 0 {
		c.first = line
	}
	c.n++
	word = safefs.Cut(word, shortValue)
	if word != "" && !slices.Contains(c.words, word) && len(c.words) < 5 {
		c.words = append(c.words, word)
	}
}

// warnings gives one line per kind that occurred.
func (s *ns2Skips) warnings(name string) []string {
	var out []string
	for k := skipNoNode; k < nSkipKinds; k++ {
		c := s[k]
		if c.n == 0 {
			continue
		}
		lines := "lines"
		if c.n == 1 {
			lines = "line"
		}
		what := skipWhat[k]
		if len(c.words) > 0 {
			what += ": " + strings.Join(c.words, ", ")
		}
		out = append(out, fmt.Sprintf("%s:%d: skipped %d %s of %s, as ns-3 does", name, c.first, c.n, lines, what))
	}
	return out
}
