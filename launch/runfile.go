package launch

import (
	"cmp"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// runEvent is a crash or recovery the launcher applied, for the run file.
type runEvent struct {
	t  time.Duration
	id protocol.NodeID
	ev string
}

// writeRunFile writes run.jsonl as the simulator does: the header with the
// resolved scenario, every node's position at 0, the crashes and
// recoveries applied, every node's position at end, and the end. The
// positions are the ground truth the summary computes components from, so
// they come from the scenario's mobility model, the same the player plays.
func writeRunFile(dir, run string, s *scenario.Scenario, events []runEvent, end time.Duration) error {
	y, err := s.YAML()
	if err != nil {
		return err
	}
	mob, err := s.MobilityModel()
	if err != nil {
		return err
	}
	w, err := trace.Create(trace.RunFile(dir), true)
	if err != nil {
		return err
	}
	write := func(e *trace.Event) {
		if err == nil {
			err = w.Write(e)
		}
	}
	write(&trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: run, Driver: "node",
		Protocol: s.Protocol.Name, Seed: s.Seed, Scenario: string(y)})
	members := s.Members()
	positions := func(t time.Duration) {
		for _, m := range members {
			p := mob.Position(m.Index, t)
			write(&trace.Event{T: int64(t), Node: m.ID, Ev: trace.EvPosition, Pos: &[3]float64{p.X, p.Y, p.Z}})
		}
	}
	positions(0)
	for _, e := range events {
		write(&trace.Event{T: int64(e.t), Node: e.id, Ev: e.ev})
	}
	positions(end)
	write(&trace.Event{T: int64(end), Ev: trace.EvEnd})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteRunFile writes run.jsonl into dir for run of scenario s whose nodes
// were started by hand (on several machines, say): the run lasted the
// scenario's duration and the fault schedule is recorded as scheduled, so
// whoever ran it must have applied it at those times (or run without
// faults).
func WriteRunFile(dir, run string, s *scenario.Scenario) error {
	var events []runEvent
	for _, f := range s.Faults {
		for _, id := range f.Crash {
			events = append(events, runEvent{f.At.D(), id, trace.EvCrash})
		}
		for _, id := range f.Recover {
			events = append(events, runEvent{f.At.D(), id, trace.EvRecover})
		}
	}
	slices.SortStableFunc(events, func(a, b runEvent) int { return cmp.Compare(a.t, b.t) })
	return writeRunFile(dir, run, s, events, s.Duration.D())
}
