package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// Moment is one line of the leader timeline: either the leaders followed
// at T (when they differ from the previous moment) or a fault.
type Moment struct {
	T float64 `json:"t"`
	// Leaders maps a leader ID to its followers at T ("none" for nodes
	// without a leader); the largest maxLeaders groups, the rest summed
	// under "others".
	Leaders LeaderCounts `json:"leaders,omitempty"`
	// Event is a fault: "node 8 crashed (it led 17 nodes)".
	Event string `json:"event,omitempty"`
}

// maxLeaders caps the groups a moment lists, so that a 10,000-node run
// where everyone first leads itself stays readable.
const maxLeaders = 8

// change is one leader note (or a restart, leader None) of one node.
type change struct {
	t      int64
	node   protocol.NodeID
	leader protocol.NodeID
}

// timeline turns the leader changes and the run's faults into moments:
// snapshots on a regular grid, printed only when the set of leaders
// changes, and every crash and recovery (and cut or heal of a link).
func timeline(changes []change, faults []trace.Event, end int64) []Moment {
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].t < changes[j].t })
	step := max(end/40, int64(time.Second))
	cur := map[protocol.NodeID]protocol.NodeID{}
	alive := map[protocol.NodeID]bool{}
	var out []Moment
	lastKey := ""
	ci, fi := 0, 0
	for t := int64(0); t <= end; t += step {
		for ; fi < len(faults) && faults[fi].T <= t; fi++ {
			f := faults[fi]
			// Apply the notes before the fault so "it led" is right.
			for ; ci < len(changes) && changes[ci].t < f.T; ci++ {
				cur[changes[ci].node] = changes[ci].leader
			}
			ev := fmt.Sprintf("node %d %sed", f.Node, strings.TrimSuffix(f.Ev, "e"))
			if f.Ev == trace.EvCut || f.Ev == trace.EvHeal {
				// Half of a link cut by hand (or healed): a fault of its
				// receiving node.
				text := "no longer hears node %d (link cut by hand)"
				if f.Ev == trace.EvHeal {
					text = "hears node %d again (link healed by hand)"
				}
				out = append(out, Moment{T: float64(f.T) / 1e9, Event: fmt.Sprintf("node %d "+text, f.Node, f.Peer)})
				continue
			}
			if f.Ev == trace.EvCrash {
				alive[f.Node] = false
				if led := followers(cur, alive, f.Node); led > 0 {
					ev += fmt.Sprintf(" (it led %s)", nodes(led))
				}
				delete(cur, f.Node)
			} else {
				alive[f.Node] = true
			}
			out = append(out, Moment{T: float64(f.T) / 1e9, Event: ev})
		}
		for ; ci < len(changes) && changes[ci].t <= t; ci++ {
			cur[changes[ci].node] = changes[ci].leader
		}
		groups := group(cur, alive)
		if key := groupKey(groups); key != lastKey {
			lastKey = key
			out = append(out, Moment{T: float64(t) / 1e9, Leaders: groups})
		}
	}
	return out
}

func followers(cur map[protocol.NodeID]protocol.NodeID, alive map[protocol.NodeID]bool, leader protocol.NodeID) int {
	n := 0
	for node, l := range cur {
		if a, known := alive[node]; l == leader && node != leader && (a || !known) {
			n++
		}
	}
	return n
}

// group counts followers per leader among live nodes, keeping the largest
// groups.
func group(cur map[protocol.NodeID]protocol.NodeID, alive map[protocol.NodeID]bool) map[string]int {
	counts := map[string]int{}
	for node, l := range cur {
		if a, known := alive[node]; known && !a {
			continue
		}
		key := "none"
		if l != protocol.None {
			key = strconv.FormatUint(uint64(l), 10)
		}
		counts[key]++
	}
	if len(counts) <= maxLeaders {
		return counts
	}
	keys := sortedGroups(counts)
	out := map[string]int{}
	for i, k := range keys {
		if i < maxLeaders-1 {
			out[k] = counts[k]
		} else {
			out["others"] += counts[k]
		}
	}
	return out
}

// sortedGroups orders leader keys by followers, most first, then by key.
func sortedGroups(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return cmpKeys(keys[i], keys[j]) < 0
	})
	return keys
}

// groupKey identifies the set of leaders (not their follower counts), so
// that the timeline prints partitions, merges and takeovers, not every
// node that joins.
func groupKey(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "none" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func writeTimeline(w io.Writer, moments []Moment) {
	if len(moments) == 0 {
		return
	}
	fmt.Fprintln(w, "leaders over time (leader (followers)):")
	for _, m := range moments {
		if m.Event != "" {
			fmt.Fprintf(w, "  %7.1fs  %s\n", m.T, m.Event)
			continue
		}
		parts := []string{}
		for _, k := range sortedGroups(m.Leaders) {
			parts = append(parts, fmt.Sprintf("%s (%d)", k, m.Leaders[k]))
		}
		fmt.Fprintf(w, "  %7.1fs  %s\n", m.T, strings.Join(parts, ", "))
	}
}
