package sim

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// ticker rearms a timer every second, for ever: a run of it never ends
// quiescent.
type ticker struct{ env protocol.Env }

func init() {
	protocol.Register(protocol.Spec{
		Name:    "test/ticker",
		Summary: "a timer every second, for ever (sim tests)",
		New: func(cfg protocol.Config) (protocol.Process, error) {
			return &ticker{env: cfg.Env}, cfg.Params.Reader().Err()
		},
	})
}

func (p *ticker) Step(ev protocol.Event) {
	switch ev.(type) {
	case protocol.Start, protocol.Timeout:
		p.env.SetTimer(time.Second, "tick", 0)
	}
}

// quietOf returns the run file's quiet record, nil without one.
func quietOf(t *testing.T, dir string) *trace.Event {
	t.Helper()
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range run.RunEvents {
		if e.Ev == trace.EvQuiet {
			if i != len(run.RunEvents)-2 || run.RunEvents[i+1].Ev != trace.EvEnd {
				t.Errorf("the quiet record is not just before the end: %+v", run.RunEvents[i:])
			}
			return &run.RunEvents[i]
		}
	}
	return nil
}

// TestQuietRecord: a run whose protocol has nothing left to do records
// quiescence from its last step, at the end (the boots run: no later
// than the end, no earlier than the last recovery at 6 s, the
// neighbour changes the hellos report after it being steps too); a
// protocol that keeps a timer armed never does.
func TestQuietRecord(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(parse(t, bootsYAML), Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	q := quietOf(t, dir)
	if q == nil || q.Value == nil || *q.Value < 6 || *q.Value >= 10 || q.T != int64(10*time.Second) {
		t.Errorf("boots: quiet record %+v, want a value from 6 to 10 s at the end (10 s)", q)
	}
	dir = t.TempDir()
	if _, err := Run(parse(t, strings.Replace(bootsYAML, "test/boots", "test/ticker", 1)), Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	if q := quietOf(t, dir); q != nil {
		t.Errorf("ticker: quiet record %+v, want none (a timer is always armed)", q)
	}
}
