package workload

import (
	"math"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"manetlab/internal/units"
	"manetlab/protocol"
)

func TestRateYAML(t *testing.T) {
	for in, want := range map[string]Rate{"0.5": {PerSecond: 0.5}, "saturate": {Saturate: true}, "2": {PerSecond: 2}, "-1": {PerSecond: -1}} {
		var r Rate
		if err := yaml.Unmarshal([]byte(in), &r); err != nil || r != want {
			t.Errorf("%q: got %+v, %v; want %+v", in, r, err, want)
		}
		out, err := yaml.Marshal(r)
		if err != nil || strings.TrimSpace(string(out)) != in {
			t.Errorf("%+v marshals to %q, %v; want %q", r, out, err, in)
		}
	}
	for _, bad := range []string{"fast", "[1]", "{a: 1}"} {
		var r Rate
		err := yaml.Unmarshal([]byte(bad), &r)
		if err == nil || !strings.Contains(err.Error(), `"saturate"`) {
			t.Errorf("%q: got %+v, %v; want an error naming saturate", bad, r, err)
		}
	}
}

// TestValidate: every bad field is reported with its path and what is
// allowed.
func TestValidate(t *testing.T) {
	members := []protocol.NodeID{1, 2, 3}
	run := 60 * time.Second
	cases := []struct {
		edit func(c *Config)
		want []string
	}{
		{func(c *Config) { c.Rate = PerSecond(-1) }, []string{"workload.rate: -1 is negative", `"saturate"`}},
		{func(c *Config) { c.Rate = PerSecond(math.NaN()) }, []string{"workload.rate: NaN is not a finite number"}},
		{func(c *Config) { c.Rate = PerSecond(math.Inf(1)) }, []string{"workload.rate: +Inf is not a finite number"}},
		{func(c *Config) { c.Hold = 0 }, []string{"workload.hold: 0s is not above zero"}},
		{func(c *Config) { c.Hold = units.Duration(-time.Second) }, []string{"workload.hold: -1s is not above zero"}},
		{func(c *Config) { c.Hold = units.Duration(2 * time.Minute) }, []string{"workload.hold: 2m0s is longer than the run (1m0s)"}},
		{func(c *Config) { c.HoldDist = "normal" }, []string{`workload.hold_dist: "normal" is unknown (allowed: fixed, exponential)`}},
		{func(c *Config) { c.Nodes = []protocol.NodeID{2, 9} }, []string{"workload.nodes[1]: 9 is not a node"}},
		{func(c *Config) { c.Start = units.Duration(-time.Second) }, []string{"workload.start: -1s is outside the run"}},
		{func(c *Config) { c.Start = units.Duration(61 * time.Second) }, []string{"workload.start: 1m1s is outside the run"}},
		{func(c *Config) { c.Stop = units.Duration(61 * time.Second) }, []string{"workload.stop: 1m1s is outside the run"}},
		{func(c *Config) { c.Start, c.Stop = units.Duration(5*time.Second), units.Duration(4*time.Second) }, []string{"workload.stop: 4s is before start 5s"}},
	}
	for _, tc := range cases {
		c := Default()
		c.Rate = PerSecond(1)
		tc.edit(&c)
		err := c.Validate(members, run)
		if err == nil {
			t.Errorf("%+v: no error, want %q", c, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not contain %q", err, w)
			}
		}
	}
	good := Default()
	good.Rate = Saturated()
	good.Nodes = []protocol.NodeID{3}
	good.Stop = units.Duration(run)
	if err := good.Validate(members, run); err != nil {
		t.Errorf("good config: %v", err)
	}
	off := Config{Hold: -1, HoldDist: "?"}
	if err := off.Validate(members, run); err != nil {
		t.Errorf("no generator: %v", err)
	}
}
