// Package workload is the scenario's `workload:` section: explicit commands
// given to a node at a time, and a request generator for mutual exclusion
// algorithms (requests per node as a Poisson process or saturation, each
// section held for a fixed or exponential time, all seeded).
//
// The generator is a deterministic wrapper around a node's Process that
// both drivers use the same way:
//
//	g := workload.New(cfg, id, seed)
//	proc, err := spec.New(protocol.Config{..., Env: g.Env(env)})
//	proc = g.Wrap(proc)
//
// It belongs to the world model: it imports protocol and internal/units
// only (and yaml.v3 for the rate's two spellings).
package workload

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"manetlab/internal/units"
	"manetlab/protocol"
)

// Hold distributions accepted in workload.hold_dist.
const (
	HoldFixed       = "fixed"
	HoldExponential = "exponential"
)

// HoldWords lists the hold distributions.
var HoldWords = []string{HoldFixed, HoldExponential}

// Defaults of the generator's fields.
const (
	DefaultHold  = 100 * time.Millisecond
	DefaultStart = time.Second
)

// Config is the scenario's `workload:` section. In a file it is either a
// list of commands (the form before the generator existed, read as
// Commands) or a mapping of these fields. The generator runs only when
// Rate is set.
type Config struct {
	// Rate is requests per second per node (a Poisson process), or
	// "saturate": the node always wants the section. Nil: no generator.
	Rate *Rate `yaml:"rate,omitempty"`
	// Hold is the time a node stays in the section before the generator
	// releases it (default 100ms); the mean when HoldDist is exponential.
	Hold units.Duration `yaml:"hold"`
	// HoldDist is "fixed" (default) or "exponential".
	HoldDist string `yaml:"hold_dist"`
	// Nodes that run a generator (default: every member).
	Nodes []protocol.NodeID `yaml:"nodes"`
	// Start is the first instant a request may be made (default 1s).
	Start units.Duration `yaml:"start"`
	// Stop is the last instant a new request may be made; 0 (default)
	// means the run's end. Releases go on after it.
	Stop units.Duration `yaml:"stop"`
	// Commands are given to a node at a time, alongside the generator.
	Commands []Command `yaml:"commands"`
}

// Command is one explicit command: at time At, give Node a command
// ("elect", "request", "release", "set-value" with Value).
type Command struct {
	At      units.Duration  `yaml:"at"`
	Node    protocol.NodeID `yaml:"node"`
	Command string          `yaml:"command"`
	Value   float64         `yaml:"value"`
}

// Default is a Config with the generator's defaults and no generator.
func Default() Config {
	return Config{Hold: units.Duration(DefaultHold), HoldDist: HoldFixed, Start: units.Duration(DefaultStart)}
}

// Defaults fills an empty HoldDist.
func (c *Config) Defaults() {
	if c.HoldDist == "" {
		c.HoldDist = HoldFixed
	}
}

// Generating reports whether the generator is configured at all.
func (c *Config) Generating() bool { return c.Rate != nil }

// Generates reports whether node id runs a generator.
func (c *Config) Generates(id protocol.NodeID) bool {
	return c.Rate != nil && (len(c.Nodes) == 0 || slices.Contains(c.Nodes, id))
}

// Asks reports whether the workload asks for the critical section: a
// generator, or an explicit request or release command. Such a workload
// needs a protocol that implements protocol.Request.
func (c *Config) Asks() bool {
	if c.Generating() {
		return true
	}
	for _, cmd := range c.Commands {
		if cmd.Command == string(protocol.Request) || cmd.Command == string(protocol.Release) {
			return true
		}
	}
	return false
}

// Validate checks the generator's fields (explicit commands are the
// scenario's to check) against the run's members and duration. Errors
// start with the field path from "workload."; nothing is checked without a
// generator.
func (c *Config) Validate(members []protocol.NodeID, duration time.Duration) error {
	if c.Rate == nil {
		return nil
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("workload.%s: "+format, append([]any{field}, args...)...))
	}
	if r := c.Rate; !r.Saturate {
		switch v := r.PerSecond; {
		case math.IsNaN(v) || math.IsInf(v, 0):
			bad("rate", "%v is not a finite number; %s", v, rateWant)
		case v < 0:
			bad("rate", "%v is negative; %s", v, rateWant)
		}
	}
	if c.Hold <= 0 {
		bad("hold", "%v is not above zero (want the time a node holds the section, e.g. 100ms)", c.Hold)
	} else if c.Hold.D() > duration {
		bad("hold", "%v is longer than the run (%v)", c.Hold, duration)
	}
	if !slices.Contains(HoldWords, c.HoldDist) {
		bad("hold_dist", "%q is unknown (allowed: %s, %s)", c.HoldDist, HoldFixed, HoldExponential)
	}
	for i, id := range c.Nodes {
		if !slices.Contains(members, id) {
			bad(fmt.Sprintf("nodes[%d]", i), "%d is not a node of the scenario", id)
		}
	}
	if c.Start < 0 || c.Start.D() > duration {
		bad("start", "%v is outside the run (allowed: 0 to %v)", c.Start, duration)
	}
	switch {
	case c.Stop < 0 || c.Stop.D() > duration:
		bad("stop", "%v is outside the run (allowed: 0 for the run's end, or up to %v)", c.Stop, duration)
	case c.Stop != 0 && c.Stop < c.Start:
		bad("stop", "%v is before start %v", c.Stop, c.Start)
	}
	return errors.Join(errs...)
}

const rateWant = `want requests per second per node (>= 0) or "saturate"`

// Saturate is the rate's word for a node that always wants the section.
const Saturate = "saturate"

// Rate is requests per second per node, or saturation. In YAML it is a
// number or the word "saturate".
type Rate struct {
	PerSecond float64
	// Saturate: a new request the moment the node leaves the section.
	Saturate bool
}

// PerSecond returns a Rate of v requests per second.
func PerSecond(v float64) *Rate { return &Rate{PerSecond: v} }

// Saturated returns the saturating Rate.
func Saturated() *Rate { return &Rate{Saturate: true} }

// String is "saturate" or the number.
func (r Rate) String() string {
	if r.Saturate {
		return Saturate
	}
	return strconv.FormatFloat(r.PerSecond, 'g', -1, 64)
}

// UnmarshalYAML reads a number or "saturate". Negative and non-finite
// numbers are read; Validate rejects them with the field's name.
func (r *Rate) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: not a rate; %s", n.Line, rateWant)
	}
	if n.Value == Saturate {
		*r = Rate{Saturate: true}
		return nil
	}
	var v float64
	if err := n.Decode(&v); err != nil {
		return fmt.Errorf("line %d: %q is not a rate; %s", n.Line, n.Value, rateWant)
	}
	*r = Rate{PerSecond: v}
	return nil
}

// MarshalYAML writes "saturate" or the number.
func (r Rate) MarshalYAML() (any, error) {
	if r.Saturate {
		return Saturate, nil
	}
	return r.PerSecond, nil
}
