// Package mobility moves nodes: static placement, waypoints, random
// waypoint, and ns-2 mobility traces read as ns-3's Ns2MobilityHelper reads
// them. Every model is a set of piecewise-linear trajectories, so a position
// at any instant is exact and cheap.
//
// It belongs to the world model: it imports internal/geo and internal/units
// only. A new mobility model goes here.
package mobility

import (
	"time"

	"manetlab/internal/geo"
	"manetlab/internal/units"
)

// Config is the scenario's `mobility:` section.
type Config struct {
	// Model is "static" (default), "waypoints", "random-waypoint" or
	// "ns2".
	Model string `yaml:"model"`
	// Area is the width and height of the arena in metres (default
	// [1000, 1000]); initial random positions and random waypoint
	// destinations fall inside it.
	Area [2]float64 `yaml:"area"`
	// Speed is [min, max] in m/s for random waypoint; min must be above
	// zero ("Random waypoint considered harmful").
	Speed [2]float64 `yaml:"speed"`
	// Pause at each waypoint, random waypoint only (default 0).
	Pause units.Duration `yaml:"pause"`
	// Start is random waypoint's first state: "" or StartUniform (the
	// nodes start paused where nodes.placement put them, so the mean
	// speed decays from the drawn speeds' mean) or StartSteadyState
	// (Navidi and Camp's stationary distribution, as ns-3's
	// SteadyStateRandomWaypointMobilityModel: positions, the first leg's
	// speed and destination, or an initial pause, drawn so that the
	// network is in its steady state from time 0; the placement's
	// positions are replaced, heights kept).
	Start string `yaml:"start,omitempty"`
	// File is the ns-2 mobility trace, relative to the scenario file.
	File string `yaml:"file"`
	// Stop halts every node where it is at this time (default 0: motion
	// goes on to the end), so that a run can settle after a period of
	// mobility.
	Stop units.Duration `yaml:"stop"`
}

// Leg is one straight, constant-speed piece of a trajectory: from Start on,
// the node is at From + Vel*(t-Start) until the next leg begins.
type Leg struct {
	Start time.Duration
	From  geo.Vec
	Vel   geo.Vec // metres per second
}

// Trajectory is a node's motion: legs sorted by Start, the first at 0.
type Trajectory []Leg

// Waypoint is a place a node reaches at a time (waypoints model).
type Waypoint struct {
	At  time.Duration
	Pos geo.Vec
}

// Model gives the position of every node at any time. Nodes are numbered
// 0..N-1 in scenario order (for ns-2 traces: $node_(i)).
type Model interface {
	// Len is the number of nodes.
	Len() int
	// Position returns node i's position at time t.
	Position(i int, t time.Duration) geo.Vec
	// MaxSpeed bounds every node's speed in m/s (0 when nothing moves).
	MaxSpeed() float64
	// Changes lists the instants at which some leg starts, ascending:
	// when motion changes. The analysis uses the last of them.
	Changes() []time.Duration
}
