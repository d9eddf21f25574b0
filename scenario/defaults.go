package scenario

import (
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"manetlab/internal/units"
	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/workload"
)

// Scenario-level defaults; radio and mobility keep their own.
const (
	DefaultSeed      = 1
	DefaultDuration  = 60 * time.Second
	DefaultCount     = 20
	DefaultValues    = "random"
	DefaultPlacement = "uniform"
	DefaultProtocol  = "baseline/floodmax"
	// DefaultRouting is how Deliver travels unless routing.protocol says.
	DefaultRouting = RoutingAODV
)

// prefilled is a Scenario holding the scenario-level defaults, decoded
// over so that a value given as zero (duration: 0) is seen and rejected
// rather than silently replaced. Radio and mobility defaults come after
// decoding because they depend on what was given (loss.p implies
// bernoulli).
func prefilled() *Scenario {
	return &Scenario{
		Seed:     DefaultSeed,
		Duration: units.Duration(DefaultDuration),
		Nodes:    Nodes{Count: DefaultCount, Values: DefaultValues, Placement: DefaultPlacement},
		Protocol: Protocol{Name: DefaultProtocol},
		Routing:  Routing{Protocol: DefaultRouting, AODV: netstack.DefaultAODV()},
		Workload: workload.Default(),
	}
}

// Default returns a scenario with every field at its default.
func Default() *Scenario {
	s := prefilled()
	s.fill("default")
	return s
}

// fill completes a decoded scenario: name, list IDs, radio and mobility
// defaults, the ns-2 path, and empty collections normalised so that a
// written and re-read scenario compares equal.
func (s *Scenario) fill(name string) {
	if s.Name == "" {
		s.Name = name
	}
	if len(s.Nodes.List) > 0 {
		s.Nodes.Count = len(s.Nodes.List)
	}
	for i := range s.Nodes.List {
		if s.Nodes.List[i].ID == 0 {
			s.Nodes.List[i].ID = protocol.NodeID(i + 1)
		}
	}
	s.Radio.Defaults()
	s.Mobility.Defaults()
	s.Workload.Defaults()
	if f := s.Mobility.File; f != "" && s.Path != "" && !filepath.IsAbs(f) {
		f = filepath.Join(filepath.Dir(s.Path), f)
		if abs, err := filepath.Abs(f); err == nil {
			f = abs
		}
		s.Mobility.File = f
	}
	s.normalize()
}

// normalize turns empty lists into nil and a nil params map into an empty
// one, the forms YAML decoding produces from `[]` and `{}`.
func (s *Scenario) normalize() {
	if s.Protocol.Params == nil {
		s.Protocol.Params = protocol.Params{}
	}
	s.Nodes.List = nilIfEmpty(s.Nodes.List)
	for i := range s.Nodes.List {
		n := &s.Nodes.List[i]
		n.Pos = nilIfEmpty(n.Pos)
		n.Waypoints = nilIfEmpty(n.Waypoints)
		for j := range n.Waypoints {
			n.Waypoints[j].Pos = nilIfEmpty(n.Waypoints[j].Pos)
		}
	}
	s.Faults = nilIfEmpty(s.Faults)
	for i := range s.Faults {
		s.Faults[i].Crash = nilIfEmpty(s.Faults[i].Crash)
		s.Faults[i].Recover = nilIfEmpty(s.Faults[i].Recover)
	}
	s.Workload.Nodes = nilIfEmpty(s.Workload.Nodes)
	s.Workload.Commands = nilIfEmpty(s.Workload.Commands)
}

func nilIfEmpty[T any](xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

// aodvPreset starts s's routing.aodv from the preset doc names
// (routing.aodv.preset), so that the fields the scenario gives are
// decoded over the preset's values.
func aodvPreset(doc *yaml.Node, s *Scenario) *fieldError {
	n := resolve(doc)
	for _, key := range []string{"routing", "aodv", "preset"} {
		n = lookup(n, key)
		if n == nil {
			return nil
		}
	}
	c, err := netstack.AODVPreset(n.Value)
	if err != nil {
		return &fieldError{n.Line, "routing.aodv.preset", strings.TrimPrefix(err.Error(), "preset: ")}
	}
	s.Routing.AODV = c
	return nil
}
