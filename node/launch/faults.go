package launch

import (
	"fmt"
	"slices"

	"manetlab/protocol"
	"manetlab/scenario"
)

// ownFaults is the scenario's fault schedule restricted to this
// launcher's nodes (Options.IDs; all of them when nil): a fault naming
// none of them is left out, so another launcher's faults are neither
// waited for nor counted as unapplied here.
func (l *launcher) ownFaults() []scenario.Fault {
	if l.opt.IDs == nil {
		return slices.Clone(l.s.Faults)
	}
	var out []scenario.Fault
	for _, f := range l.s.Faults {
		own := f
		own.Crash, own.Recover = nil, nil
		for _, id := range f.Crash {
			if l.byID[id] != nil {
				own.Crash = append(own.Crash, id)
			}
		}
		for _, id := range f.Recover {
			if l.byID[id] != nil {
				own.Recover = append(own.Recover, id)
			}
		}
		if len(own.Crash)+len(own.Recover) > 0 {
			out = append(out, own)
		}
	}
	return out
}

// planIDs is plan restricted to ids, when not nil: each must be a
// member of the scenario.
func planIDs(s *scenario.Scenario, ids []protocol.NodeID, k, hosts int) ([]group, error) {
	all := plan(s, k, hosts)
	if ids == nil {
		return all, nil
	}
	want := map[protocol.NodeID]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for _, id := range s.MemberIDs() {
		delete(want, id)
	}
	if len(want) > 0 {
		var extra []protocol.NodeID
		for id := range want {
			extra = append(extra, id)
		}
		return nil, fmt.Errorf("nodes %s are not members of the scenario", FormatIDs(extra))
	}
	mine := map[protocol.NodeID]bool{}
	for _, id := range ids {
		mine[id] = true
	}
	var out []group
	for _, g := range all {
		var kept []protocol.NodeID
		for _, id := range g.ids {
			if mine[id] {
				kept = append(kept, id)
			}
		}
		if len(kept) > 0 {
			out = append(out, group{ids: kept, host: g.host})
		}
	}
	return out, nil
}
