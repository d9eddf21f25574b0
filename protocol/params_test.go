package protocol

import (
	"strings"
	"testing"
	"time"
)

func TestParamReaderReadsDefaultsAndValues(t *testing.T) {
	p := Params{"period": "1500ms", "lease": 4, "k": 3, "ratio": 0.5, "mode": "fast", "on": true}
	r := p.Reader()
	if d := r.Duration("period", time.Second); d != 1500*time.Millisecond {
		t.Errorf("period %v", d)
	}
	if d := r.Duration("lease", time.Second); d != 4*time.Second {
		t.Errorf("lease %v (a number is seconds)", d)
	}
	if d := r.Duration("absent", 7*time.Second); d != 7*time.Second {
		t.Errorf("absent %v", d)
	}
	if k := r.Int("k", 1); k != 3 {
		t.Errorf("k %d", k)
	}
	if f := r.Float("ratio", 0); f != 0.5 {
		t.Errorf("ratio %g", f)
	}
	if s := r.String("mode", "slow", "slow", "fast"); s != "fast" {
		t.Errorf("mode %q", s)
	}
	if !r.Bool("on", false) {
		t.Error("on")
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestParamReaderReportsBadValuesAndTypos(t *testing.T) {
	cases := []struct {
		p    Params
		read func(r *ParamReader)
		want string
	}{
		{Params{"period": "soon"}, func(r *ParamReader) { r.Duration("period", 0) }, `protocol.params.period: soon is not a non-negative duration`},
		{Params{"period": "-1s"}, func(r *ParamReader) { r.Duration("period", 0) }, `protocol.params.period: -1s is not a non-negative duration`},
		{Params{"k": 1.5}, func(r *ParamReader) { r.Int("k", 0) }, "protocol.params.k: 1.5 is not an integer"},
		{Params{"mode": "odd"}, func(r *ParamReader) { r.String("mode", "a", "a", "b") }, "protocol.params.mode: odd is not one of a, b"},
		{Params{"on": "yes"}, func(r *ParamReader) { r.Bool("on", false) }, "protocol.params.on: yes is not true or false"},
		{Params{"perod": "1s"}, func(r *ParamReader) { r.Duration("period", 0) }, "protocol.params.perod: unknown parameter (known: period)"},
	}
	for _, c := range cases {
		r := c.p.Reader()
		c.read(r)
		if err := r.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.p, err, c.want)
		}
	}
}

func TestRegistryLookup(t *testing.T) {
	Register(Spec{Name: "test/registry", New: func(Config) (Process, error) { return nil, nil }})
	if _, err := Lookup("test/registry"); err != nil {
		t.Fatal(err)
	}
	_, err := Lookup("test/nope")
	if err == nil || !strings.Contains(err.Error(), "test/registry") {
		t.Fatalf("unknown name: %v (want the known names listed)", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering a name twice did not panic")
		}
	}()
	Register(Spec{Name: "test/registry", New: func(Config) (Process, error) { return nil, nil }})
}

func TestBetterBreaksTiesByID(t *testing.T) {
	if !Better(1, 5, 9, 4) || Better(9, 4, 1, 5) {
		t.Error("value must decide")
	}
	if !Better(9, 5, 1, 5) || Better(1, 5, 9, 5) {
		t.Error("equal values: the higher ID wins")
	}
}

// TestGoalBetter: each goal's best node, values ignored by the ID goals.
func TestGoalBetter(t *testing.T) {
	if !GoalHighestID.Better(9, 0, 1, 5) || GoalHighestID.Better(1, 5, 9, 0) {
		t.Error("highest-id: the higher ID")
	}
	if !GoalLowestID.Better(1, 0, 9, 5) || GoalLowestID.Better(9, 5, 1, 0) {
		t.Error("lowest-id: the lower ID")
	}
	if !GoalBestValue.Better(1, 5, 9, 4) {
		t.Error("best value: the value")
	}
}
