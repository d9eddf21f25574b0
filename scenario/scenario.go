// Package scenario reads scenario files (YAML): nodes, radio, mobility,
// protocol, faults, workload, duration and seed. Every field has a default;
// any field can be overridden from the command line with --set path=value;
// a bad file gets an error naming the file, the field and what is allowed.
//
// It belongs to the world model: it imports protocol (to check names and
// parameters), radio, mobility, workload, netstack (for the routing
// parameters' type) and internal/geo, internal/units;
// the drivers and the aggregator import it.
package scenario

import (
	"manetlab/internal/units"
	"manetlab/mobility"
	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/workload"
)

// Scenario is a whole experiment.
type Scenario struct {
	// Name labels the run (default: the file name without extension).
	Name string `yaml:"name"`
	// Seed drives every random choice of the run (default 1).
	Seed uint64 `yaml:"seed"`
	// Duration of the run (default 60s).
	Duration units.Duration  `yaml:"duration"`
	Nodes    Nodes           `yaml:"nodes"`
	Radio    radio.Config    `yaml:"radio"`
	Routing  Routing         `yaml:"routing"`
	Mobility mobility.Config `yaml:"mobility"`
	Protocol Protocol        `yaml:"protocol"`
	Faults   []Fault         `yaml:"faults"`
	// Workload is explicit commands and the request generator; a file
	// may give it as a plain list of commands (read as workload.commands).
	Workload workload.Config `yaml:"workload"`
	Trace    TraceOptions    `yaml:"trace"`

	// Path is the file the scenario was read from ("" when built in code);
	// relative paths inside it (mobility.file) are resolved against it.
	Path string `yaml:"-"`
	// Warnings are what Load and Parse accepted but a user should hear
	// of: faults and workload commands beyond the run (dropped), lines of
	// the ns-2 trace skipped as ns-3 skips them. The CLI prints them.
	Warnings []string `yaml:"-"`
	// Sets are the --set overrides applied, so that a driver's error about
	// a field they wrote can name them (Source).
	Sets []string `yaml:"-"`
}

// Routing is the `routing:` section: how a protocol's Env.Deliver
// travels (docs/routing.md).
type Routing struct {
	// Protocol is RoutingFlood (every message floods the network, with
	// duplicate suppression and a hop limit) or RoutingAODV (routes found
	// on demand, RFC 3561); default DefaultRouting. Env.Flood floods
	// either way.
	Protocol string `yaml:"protocol"`
	// AODV are AODV's parameters, RFC 3561's names in lower case and its
	// defaults.
	AODV netstack.AODVConfig `yaml:"aodv"`
	// RelayJitter bounds the random wait before a node relays a flood
	// frame (and, under AODV at jitter 0, a route request): 0, the
	// default, is netstack.DefaultRelayJitter (1 ms). RFC 5148's MAXJITTER
	// is HELLO_INTERVAL/4 (250ms at radio.hello.period 1s).
	RelayJitter units.Duration `yaml:"relay_jitter,omitempty"`
}

// Apply sets c's routing from r.
func (r *Routing) Apply(c *netstack.Config) {
	c.Routing, c.AODV = r.Protocol, r.AODV
	if r.RelayJitter > 0 {
		c.RelayJitter = r.RelayJitter.D()
	}
}

// Routing protocols (routing.protocol).
const (
	RoutingFlood = netstack.RoutingFlood
	RoutingAODV  = netstack.RoutingAODV
)

// Nodes is the `nodes:` section: either a count or an explicit list.
type Nodes struct {
	// Count of nodes, IDs 1..Count (default 20). Ignored when List is set.
	Count int `yaml:"count"`
	// Values: "random" (default: uniform in [0,100) from the seed) or "id"
	// (value = ID, so the highest ID wins).
	Values string `yaml:"values"`
	// Placement of nodes without a position: "uniform" (default: random in
	// mobility.area), "grid" (a square grid filling the area) or "ring" (a
	// circle centred in the area, in the order of the protocol's logical
	// ring, sized so that under the unit-disk model each node hears
	// exactly its two ring neighbours: a physical ring).
	Placement string `yaml:"placement"`
	// List gives nodes one by one; it overrides Count.
	List []Node `yaml:"list"`
}

// Node is one entry of nodes.list.
type Node struct {
	// ID must be unique and above zero (default: position in the list + 1).
	ID protocol.NodeID `yaml:"id"`
	// Value overrides the generated value.
	Value *float64 `yaml:"value"`
	// Pos is the initial position [x, y] or [x, y, z] in metres.
	Pos []float64 `yaml:"pos"`
	// Waypoints for mobility.model: waypoints.
	Waypoints []WaypointSpec `yaml:"waypoints"`
}

// WaypointSpec is a place a node reaches at a time.
type WaypointSpec struct {
	At  units.Duration `yaml:"at"`
	Pos []float64      `yaml:"pos"`
}

// Protocol is the `protocol:` section.
type Protocol struct {
	// Name of a registered protocol (default "baseline/floodmax").
	Name string `yaml:"name"`
	// Params are handed to the protocol, which rejects unknown keys.
	Params protocol.Params `yaml:"params"`
}

// Fault is one entry of `faults:`: at time At, crash or recover nodes.
type Fault struct {
	At      units.Duration    `yaml:"at"`
	Crash   []protocol.NodeID `yaml:"crash"`
	Recover []protocol.NodeID `yaml:"recover"`
}

// Command is one entry of `workload.commands` (or of a `workload:` list):
// at time At, give Node a command ("elect", "request", "release",
// "set-value" with Value).
type Command = workload.Command

// TraceOptions is the `trace:` section.
type TraceOptions struct {
	// Hello records neighbour-discovery frames too (default false: they
	// dominate the trace and say little).
	Hello bool `yaml:"hello"`
	// Layout is how the simulator lays out the node traces:
	// LayoutPerNode (a node-<id>.jsonl per node), LayoutCombined (every
	// node in one nodes.jsonl, in the order the simulator produced the
	// events) or "" / LayoutAuto (combined from CombinedFrom nodes up).
	// Real nodes always write one file each (docs/trace.md).
	Layout string `yaml:"layout,omitempty"`
	// Level is how much the simulator writes: LevelFull or "" (every
	// event), or LevelSummary (only what the run's summary and `trace
	// check` read: receives and the drops no check weighs are left out;
	// docs/trace.md).
	Level string `yaml:"level,omitempty"`
	// Compress is how the simulator compresses its trace files:
	// CompressNone or "" (plain JSON lines), or CompressZstd (zstd
	// frames, which every reader of traces decompresses; docs/trace.md).
	Compress string `yaml:"compress,omitempty"`
}

// Trace levels (trace.level) and compressions (trace.compress).
const (
	LevelFull    = "full"
	LevelSummary = "summary"
	CompressNone = "none"
	CompressZstd = "zstd"
)

// Summary reports whether the simulator writes the summary level.
func (t TraceOptions) Summary() bool { return t.Level == LevelSummary }

// Zstd reports whether the simulator compresses its traces with zstd.
func (t TraceOptions) Zstd() bool { return t.Compress == CompressZstd }

// Trace layouts (trace.layout).
const (
	LayoutAuto     = "auto"
	LayoutPerNode  = "per-node"
	LayoutCombined = "combined"
)

// CombinedFrom is the node count from which trace.layout auto combines
// the node traces into one file: below it a file per node is easier to
// read by hand; above it creating thousands of files dominates the run.
const CombinedFrom = 1000

// Combined reports whether a simulated run of n nodes writes the combined
// layout.
func (t TraceOptions) Combined(n int) bool {
	switch t.Layout {
	case LayoutCombined:
		return true
	case LayoutPerNode:
		return false
	}
	return n >= CombinedFrom
}
