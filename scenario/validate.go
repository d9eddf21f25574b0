package scenario

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"manetlab/mobility"
	"manetlab/netstack"
	"manetlab/protocol"
)

// MaxNodes bounds nodes.count: beyond it a typo (an extra zero or two)
// would exhaust memory before anything useful is reported.
const MaxNodes = 1_000_000

// Allowed words of the scenario's own enumerations.
var (
	ValuesWords    = []string{"random", "id"}
	PlacementWords = []string{"uniform", "grid", "ring"}
	CommandWords   = []string{"elect", "request", "release", "set-value"}
	LayoutWords    = []string{LayoutAuto, LayoutPerNode, LayoutCombined}
	LevelWords     = []string{LevelFull, LevelSummary}
	CompressWords  = []string{CompressNone, CompressZstd}
	RoutingWords   = []string{RoutingFlood, RoutingAODV}
)

// Validate checks a filled scenario; errors start with the field path. It
// does not check that the protocol exists: the driver does, with
// protocol.Lookup, because scenario must not import the protocols.
func (s *Scenario) Validate() error {
	if s.Duration <= 0 {
		return fmt.Errorf("duration: %v is not above zero", s.Duration)
	}
	if err := s.validateNodes(); err != nil {
		return err
	}
	if err := s.Radio.Validate(); err != nil {
		return err
	}
	if err := s.Mobility.Validate(); err != nil {
		return err
	}
	if err := s.validateMotion(); err != nil {
		return err
	}
	if err := s.validateLimits(); err != nil {
		return err
	}
	if err := oneOf("routing.protocol", s.Routing.Protocol, RoutingWords); err != nil {
		return err
	}
	if s.Routing.RelayJitter < 0 {
		return fmt.Errorf("routing.relay_jitter: must be 0 (%s) or positive (got %s)", netstack.DefaultRelayJitter, s.Routing.RelayJitter)
	}
	if err := s.Routing.AODV.Validate(); err != nil {
		return fmt.Errorf("routing.aodv.%w", err)
	}
	if s.Trace.Layout != "" {
		if err := oneOf("trace.layout", s.Trace.Layout, LayoutWords); err != nil {
			return err
		}
	}
	if s.Trace.Level != "" {
		if err := oneOf("trace.level", s.Trace.Level, LevelWords); err != nil {
			return err
		}
	}
	if s.Trace.Compress != "" {
		if err := oneOf("trace.compress", s.Trace.Compress, CompressWords); err != nil {
			return err
		}
	}
	if strings.TrimSpace(s.Protocol.Name) == "" {
		return fmt.Errorf("protocol.name: empty (name a registered protocol, e.g. %s)", DefaultProtocol)
	}
	exists := map[protocol.NodeID]bool{}
	for _, id := range s.MemberIDs() {
		exists[id] = true
	}
	if err := s.validateFaults(exists); err != nil {
		return err
	}
	return s.validateWorkload(exists)
}

func (s *Scenario) validateNodes() error {
	n := &s.Nodes
	if len(n.List) == 0 && (n.Count < 1 || n.Count > MaxNodes) {
		return fmt.Errorf("nodes.count: %d is out of range (allowed: 1 to %d)", n.Count, MaxNodes)
	}
	if len(n.List) > MaxNodes {
		return fmt.Errorf("nodes.list: %d nodes (allowed: at most %d)", len(n.List), MaxNodes)
	}
	if err := oneOf("nodes.values", n.Values, ValuesWords); err != nil {
		return err
	}
	if err := oneOf("nodes.placement", n.Placement, PlacementWords); err != nil {
		return err
	}
	first := map[protocol.NodeID]int{}
	for i, nd := range n.List {
		p := fmt.Sprintf("nodes.list[%d]", i)
		if nd.ID == protocol.None {
			return fmt.Errorf("%s.id: 0 is not a node ID (IDs start at 1)", p)
		}
		if j, dup := first[nd.ID]; dup {
			return fmt.Errorf("%s.id: %d is given twice (also nodes.list[%d])", p, nd.ID, j)
		}
		first[nd.ID] = i
		if nd.Value != nil && !finite(*nd.Value) {
			return fmt.Errorf("%s.value: %v is not a finite number", p, *nd.Value)
		}
		if nd.Pos != nil {
			if err := checkPos(p+".pos", nd.Pos); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateMotion checks what ties nodes to the mobility model: waypoints
// only with model waypoints, and an ns-2 trace that covers every node.
func (s *Scenario) validateMotion() error {
	model := s.Mobility.Model
	for i, nd := range s.Nodes.List {
		p := fmt.Sprintf("nodes.list[%d]", i)
		if len(nd.Waypoints) > 0 && model != "waypoints" {
			return fmt.Errorf("%s.waypoints: given but mobility.model is %q (waypoints need mobility.model: waypoints)", p, model)
		}
		if nd.Pos != nil && model == "ns2" {
			return fmt.Errorf("%s.pos: given but mobility.model is ns2 (positions come from the trace %s)", p, s.Mobility.File)
		}
		for j, w := range nd.Waypoints {
			wp := fmt.Sprintf("%s.waypoints[%d]", p, j)
			if w.At < 0 || w.At > s.Duration {
				return fmt.Errorf("%s.at: %v is outside the run (allowed: 0 to %v)", wp, w.At, s.Duration)
			}
			if j > 0 && w.At < nd.Waypoints[j-1].At {
				return fmt.Errorf("%s.at: %v is before the previous waypoint's %v (waypoints go in time order)", wp, w.At, nd.Waypoints[j-1].At)
			}
			if err := checkPos(wp+".pos", w.Pos); err != nil {
				return err
			}
		}
	}
	if model != "ns2" {
		return nil
	}
	if s.Mobility.File == "" {
		return fmt.Errorf("mobility.file: required when mobility.model is ns2")
	}
	set, _, err := mobility.ReadNS2(s.Mobility.File)
	if err != nil {
		return fmt.Errorf("mobility.file: %w", err)
	}
	if set.Len() < s.Nodes.size() {
		return fmt.Errorf("mobility.file: %s moves %d nodes, the scenario has %d", s.Mobility.File, set.Len(), s.Nodes.size())
	}
	return nil
}

func (s *Scenario) validateFaults(exists map[protocol.NodeID]bool) error {
	for i, f := range s.Faults {
		p := fmt.Sprintf("faults[%d]", i)
		if f.At < 0 || f.At > s.Duration {
			return fmt.Errorf("%s.at: %v is outside the run (allowed: 0 to %v)", p, f.At, s.Duration)
		}
		if len(f.Crash) == 0 && len(f.Recover) == 0 {
			return fmt.Errorf("%s: neither crash nor recover names a node", p)
		}
		if err := nodesExist(p+".crash", f.Crash, exists); err != nil {
			return err
		}
		if err := nodesExist(p+".recover", f.Recover, exists); err != nil {
			return err
		}
	}
	return nil
}

func (s *Scenario) validateWorkload(exists map[protocol.NodeID]bool) error {
	for i, c := range s.Workload.Commands {
		p := fmt.Sprintf("workload.commands[%d]", i)
		if c.At < 0 || c.At > s.Duration {
			return fmt.Errorf("%s.at: %v is outside the run (allowed: 0 to %v)", p, c.At, s.Duration)
		}
		if !exists[c.Node] {
			return fmt.Errorf("%s.node: %d is not a node of the scenario", p, c.Node)
		}
		if err := oneOf(p+".command", c.Command, CommandWords); err != nil {
			return err
		}
		if !finite(c.Value) {
			return fmt.Errorf("%s.value: %v is not a finite number", p, c.Value)
		}
	}
	if err := s.Workload.Validate(s.MemberIDs(), s.Duration.D()); err != nil {
		return err
	}
	// Only a registered protocol can be asked what it implements; an
	// unknown name is the driver's to report.
	if spec, err := protocol.LookupFor(s.Protocol.Name, s.Protocol.Params); err == nil {
		return s.CheckCommands(spec)
	}
	return nil
}

// CheckCommands reports a workload that asks for the critical section
// (request or release commands, or a request generator) of a protocol that
// does not implement protocol.Request, which would otherwise ignore it.
// Validate calls it when the protocol is registered; the drivers call it
// for scenarios built in code.
func (s *Scenario) CheckCommands(spec protocol.Spec) error {
	if !s.Workload.Asks() || spec.Implements(protocol.Request) {
		return nil
	}
	what := "request or release commands"
	if s.Workload.Generating() {
		what = "a request generator (workload.rate)"
	}
	return fmt.Errorf("workload: protocol %s does not implement request (the workload gives it %s); mutual exclusion protocols: %s",
		spec.Name, what, orNone(MutexProtocols()))
}

// MutexProtocols lists the registered protocols that implement
// protocol.Request, in sorted order.
func MutexProtocols() []string {
	var out []string
	for _, name := range protocol.Names() {
		if spec, err := protocol.Lookup(name); err == nil && spec.Implements(protocol.Request) {
			out = append(out, name)
		}
	}
	return out
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none registered"
	}
	return strings.Join(names, ", ")
}

func nodesExist(path string, ids []protocol.NodeID, exists map[protocol.NodeID]bool) error {
	for j, id := range ids {
		if !exists[id] {
			return fmt.Errorf("%s[%d]: %d is not a node of the scenario", path, j, id)
		}
	}
	return nil
}

func oneOf(path, v string, allowed []string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%s: %q is unknown (allowed: %s)", path, v, strings.Join(allowed, ", "))
}

func checkPos(path string, pos []float64) error {
	if len(pos) != 2 && len(pos) != 3 {
		return fmt.Errorf("%s: %d numbers (want [x, y] or [x, y, z] in metres)", path, len(pos))
	}
	for _, v := range pos {
		if !finite(v) {
			return fmt.Errorf("%s: %v is not a finite number", path, v)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
