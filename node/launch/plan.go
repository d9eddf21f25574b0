package launch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"manetlab/protocol"
	"manetlab/scenario"
)

// group is the set of nodes one OS process hosts.
type group struct {
	ids  []protocol.NodeID
	host int // index into Options.Wrap (0 without wrappers)
}

// name labels a process in messages and log file names: "node 7",
// "nodes 1-50", "player".
func (g group) name() string {
	if g.ids == nil {
		return "player"
	}
	if len(g.ids) == 1 {
		return "node " + strconv.FormatUint(uint64(g.ids[0]), 10)
	}
	return "nodes " + FormatIDs(g.ids)
}

// plan splits the scenario's nodes into processes of at most k
// consecutive nodes, in scenario order. A node named in the fault schedule always gets a process
// of its own, so that crashing it (SIGKILL of its process) crashes nothing
// else. With hosts > 1 the processes are spread over the hosts in
// contiguous blocks, as evenly as possible.
func plan(s *scenario.Scenario, k, hosts int) []group {
	if k < 1 {
		k = 1
	}
	faulted := faultedIDs(s)
	var out []group
	var cur []protocol.NodeID
	flush := func() {
		if len(cur) > 0 {
			out = append(out, group{ids: cur})
			cur = nil
		}
	}
	for _, m := range s.Members() {
		if faulted[m.ID] {
			flush()
			out = append(out, group{ids: []protocol.NodeID{m.ID}})
			continue
		}
		cur = append(cur, m.ID)
		if len(cur) == k {
			flush()
		}
	}
	flush()
	if hosts > 1 {
		for i := range out {
			out[i].host = i * hosts / len(out)
		}
	}
	return out
}

// faultedIDs are the nodes the fault schedule crashes or recovers.
func faultedIDs(s *scenario.Scenario) map[protocol.NodeID]bool {
	m := map[protocol.NodeID]bool{}
	for _, f := range s.Faults {
		for _, id := range f.Crash {
			m[id] = true
		}
		for _, id := range f.Recover {
			m[id] = true
		}
	}
	return m
}

// FormatIDs writes node IDs as the --ids flag of `manetlab node` takes
// them: ascending, runs of consecutive IDs as ranges ("1-50,60,70-80").
func FormatIDs(ids []protocol.NodeID) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	s = slices.Compact(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", s[i])
		if j > i {
			fmt.Fprintf(&b, "-%d", s[j])
		}
		i = j + 1
	}
	return b.String()
}
