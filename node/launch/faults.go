package launch

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
)

// FaultsFileName is the record of the faults a launcher applied, in its
// run directory (Options.FaultsFile): one FaultRecord per line, appended
// as each crash or recovery is applied. `run --hosts` gathers the hosts'
// records into its own run directory under the same name.
const FaultsFileName = "faults.jsonl"

// FaultRecord is one fault a launcher really applied: node Node crashed
// (its process killed) or recovered (its process started again) at T,
// nanoseconds since the run's start by the clock of the machine it ran
// on (in dilated time, the model's time: the host's clock divided by the
// dilation), on the machine named Host.
type FaultRecord struct {
	Node protocol.NodeID `json:"node"`
	Ev   string          `json:"ev"`
	T    int64           `json:"t"`
	Host string          `json:"host"`
}

// record appends a fault applied to the faults file, when there is one.
// A record that cannot be written is warned of: the fault was applied.
func (l *launcher) record(id protocol.NodeID, ev string, t time.Duration) {
	if l.faults == nil {
		return
	}
	b, err := json.Marshal(FaultRecord{Node: id, Ev: ev, T: int64(t), Host: l.opt.Host})
	if err == nil {
		_, err = l.faults.Write(append(b, '\n'))
	}
	if err != nil {
		l.warn("cannot record the %s of node %d at %s in %s: %v", ev, id, t.Round(time.Millisecond), l.opt.FaultsFile, err)
	}
}

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
