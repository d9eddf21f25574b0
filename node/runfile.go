package node

import (
	"fmt"
	"os"
	"slices"
	"time"

	"manetlab/internal/safefs"
	"manetlab/scenario"
	"manetlab/trace"
)

// WriteRunFile writes the run file (run.jsonl) of a real run into dir, as
// the simulator writes its own: a header with driver "node", the run name
// and the resolved scenario, every node's position at 0 and at end from
// the scenario's mobility model (the ground truth the summary computes
// components from), the extra run-wide events (crash, recover; sorted by
// T, their Node set) and a final end event. end 0 means the scenario's
// whole duration; a run stopped early passes when it stopped. The launcher
// calls it before it starts the processes (a provisional file, so that a
// disk filled by the traces still leaves one to summarise) and at the
// end; report.Summarize then reads the directory. The file is written
// beside and renamed into place, so a failed write leaves the previous
// one whole.
func WriteRunFile(dir string, s *scenario.Scenario, run string, extra []trace.Event, end time.Duration) error {
	evs, err := RunFileEvents(s, run, extra, end)
	if err != nil {
		return err
	}
	final := trace.RunFile(dir)
	tmp := final + ".tmp"
	// Whatever is at tmp (a leftover, or a link planted there) goes:
	// removing a link removes the link, and the file is then created
	// anew without following one.
	os.Remove(tmp)
	w, err := trace.Create(tmp, true)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // after a failure; a no-op after the rename
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			w.Close()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("run file: %w", err)
	}
	if err := safefs.Rename(tmp, final); err != nil {
		return fmt.Errorf("run file: %w", err)
	}
	return nil
}

// RunFileEvents are the events WriteRunFile writes, in order: for a
// summary of the run when the file itself cannot be written (a full disk;
// trace.WithRunFile).
func RunFileEvents(s *scenario.Scenario, run string, extra []trace.Event, end time.Duration) ([]trace.Event, error) {
	y, err := s.YAML()
	if err != nil {
		return nil, err
	}
	mob, err := s.MobilityModel()
	if err != nil {
		return nil, err
	}
	if end <= 0 {
		end = s.Duration.D()
	}
	evs := []trace.Event{{Ev: trace.EvHeader, Schema: trace.Schema, Run: run, Driver: "node",
		Protocol: s.Protocol.Name, Seed: s.Seed, Scenario: string(y), ScenarioHash: scenario.HashYAML(y)}}
	positions := func(t time.Duration) {
		for _, m := range s.Members() {
			p := mob.Position(m.Index, t)
			evs = append(evs, trace.Event{T: int64(t), Node: m.ID, Ev: trace.EvPosition, Pos: &[3]float64{p.X, p.Y, p.Z}})
		}
	}
	positions(0)
	more := slices.Clone(extra)
	slices.SortStableFunc(more, func(a, b trace.Event) int { return int(min(max(a.T-b.T, -1), 1)) })
	evs = append(evs, more...)
	positions(end)
	evs = append(evs, trace.Event{T: int64(end), Ev: trace.EvEnd})
	return evs, nil
}
