// Package sim runs every node of a scenario in one process, in virtual
// time: an event queue, the radio model applied to every transmission,
// neighbour discovery by hello frames, the fault schedule and the workload.
// Everything random is drawn from streams derived from the scenario's seed
// and events with equal times run in the order they were queued, so the
// same scenario and seed write byte-identical traces.
//
// It is one of the two drivers: it imports protocol, radio, mobility,
// scenario, workload and trace, and knows no protocol by name.
package sim

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"manetlab/internal/hugepage"
	"manetlab/mobility"
	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// Options control a run beyond what the scenario says.
type Options struct {
	// Out is the directory the traces go to; it is created.
	Out string
	// RunID labels the traces (default: "sim-<name>-<seed>").
	RunID string
	// Progress receives a progress line every few seconds of wall time on
	// long runs; nil for none.
	Progress io.Writer
	// Debug receives the protocols' Logf lines; nil discards them.
	Debug io.Writer
	// HopLimit bounds multi-hop floods (default netstack.DefaultHopLimit).
	HopLimit int
	// Retries is how many times a unicast frame is retransmitted before
	// the link gives up (default netstack.DefaultRetries, 802.11's short
	// retry limit).
	Retries int
	// Record, when not nil, keeps the run in memory as it is written
	// (Result.Recording): the node files' events of the types it accepts
	// and the whole run file, so that the run can be summarised without
	// reading its traces back (report.SummarizeFrom with report.Keep).
	Record func(ev string) bool
	// movable: a Controller's run, whose nodes may be moved by hand
	// (control.go, dragged).
	movable bool
	// Discard writes no trace files (Out is then unused): the events go
	// only to a Controller's observer. An explorer replays a run
	// thousands of times (package explore).
	Discard bool
}

// Result describes a finished run.
type Result struct {
	Dir     string
	RunID   string
	Events  uint64        // queue items processed
	Frames  uint64        // radio transmissions: hellos, acknowledgements and retransmissions included
	Hellos  uint64        // neighbour-discovery transmissions
	Virtual time.Duration // simulated time
	Wall    time.Duration // real time taken
	// Warnings are what the protocol said of legal but doubtful
	// parameters (protocol.Warning), with the figures; the run went on.
	Warnings []string
	Messages map[string]uint64
	// Recording is the run as Options.Record kept it; nil without.
	Recording *trace.Recording
}

// EventsPerSecond is the simulator's throughput in queue items per second
// of wall time.
func (r *Result) EventsPerSecond() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Events) / r.Wall.Seconds()
}

// indexIDs lists the members' IDs by member index.
func indexIDs(members []scenario.Member) []protocol.NodeID {
	ids := make([]protocol.NodeID, len(members))
	for _, m := range members {
		ids[m.Index] = m.ID
	}
	return ids
}

// Run simulates the scenario and writes its traces to opt.Out.
func Run(s *scenario.Scenario, opt Options) (*Result, error) {
	w, err := newWorld(s, opt)
	if err != nil {
		return nil, err
	}
	return w.run()
}

// node is the simulator's state for one node. The fields used on every
// frame come first, and the first timers, the network stack and the Env
// live in the node itself: a large run's time goes mostly to fetching
// memory, and a receiver's state is then a few adjacent cache lines.
type node struct {
	alive    bool
	gen      uint32 // bumped at every boot and crash: stale queue items are skipped
	inc      uint32 // incarnation: 1 in the first life
	id       protocol.NodeID
	index    int
	proc     protocol.Process
	radioRng *rand.Rand // the radio's decisions at this receiver
	link     link       // the stack's driver: its Now is read at every frame
	stack    netstack.Stack
	env      *env           // &envBuf while alive
	timers   []pendingTimer // pending protocol timers, in the order set
	envBuf   env

	value    float64
	timerBuf [2]pendingTimer
	// store is the node's stable storage: it outlives crashes, and every
	// process the node boots gets it.
	store protocol.MemStore
	// touch counts the events that may have changed the node
	// (NodeView.Touch), out of the lines read at every frame.
	touch uint64
	// rngs hold radioRng, the stack's and the process's sources, in place.
	rngs [3]netstack.Sourced
	// pad makes a node a whole number of 64-byte cache lines, so that
	// every node's head, link and stack head, read at every frame, take as
	// few lines as they can (TestNodeCacheLines).
	_ [16]byte
}

type pendingTimer struct {
	id   uint64
	name string
	arg  int64
}

// timer removes the pending timer id from n and returns it; ok is false
// when it is not pending (fired or cancelled).
func (n *node) timer(id uint64) (t pendingTimer, ok bool) {
	for i := len(n.timers) - 1; i >= 0; i-- {
		if n.timers[i].id == id {
			t = n.timers[i]
			n.timers = append(n.timers[:i], n.timers[i+1:]...)
			return t, true
		}
	}
	return t, false
}

// world is one simulation run.
type world struct {
	// touches: count the events that may change each node (node.touch),
	// for a Controller's caller that asked (CountTouches).
	touches bool
	s       *scenario.Scenario
	opt     Options
	spec    protocol.Spec
	members []protocol.NodeID
	// warnings are what the up-front process said of its parameters.
	warnings []string
	nodes    []*node // &all[i]
	all      []node
	warm     uint64 // the pre-loads of a frame's receivers (warmNodes, airStart, airEnd), kept so that they stay
	byID     map[protocol.NodeID]int
	mob      mobility.Model
	medium   *radio.Medium
	q        queue
	now      time.Duration
	end      time.Duration
	net      *netstack.Config
	prop     radio.Propagation
	loss     radio.Loss
	maxRange float64
	out      *sink
	res      Result
	rx       []radio.Reception // scratch for Reach
	frames   []*netstack.Frame // frames done with, for re-use
	enc      *msgpack.Encoder  // msgSize's, writing to size
	size     byteCount
	timerID  uint64
	delay    time.Duration
	// The DCF medium's frames on the air (air.go).
	airID   uint64
	airs    []onAir // by slot; a frame's end item names its slot
	airFree []int   // free slots of airs
	air     *netstack.Radio
	// cut are the links a Controller cut by hand (control.go); nil
	// without.
	cut map[[2]int32]bool
	// stepped is when a protocol last took a step; beyond the item run
	// took past the end (quiet.go).
	stepped time.Duration
	beyond  *item
}

func newWorld(s *scenario.Scenario, opt Options) (*world, error) {
	spec, err := protocol.LookupFor(s.Protocol.Name, s.Protocol.Params)
	if err != nil {
		return nil, fmt.Errorf("%s: protocol.name: %w", s.Source("protocol.name: "), err)
	}
	if err := s.CheckCommands(spec); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	if err := s.CheckTopology(); err != nil {
		return nil, err
	}
	mob, err := s.MobilityModel()
	if err != nil {
		return nil, err
	}
	if opt.movable {
		mob = &dragged{Model: mob}
	}
	medium, err := radio.NewMedium(s.Radio, mob, s.Seed^0x5eed0f4ad10)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	if opt.RunID == "" {
		opt.RunID = fmt.Sprintf("sim-%s-%d", s.Name, s.Seed)
	}
	w := &world{
		s: s, opt: opt, spec: spec, mob: mob, medium: medium,
		members: s.MemberIDs(),
		byID:    map[protocol.NodeID]int{},
		end:     s.Duration.D(),
		delay:   medium.Delay(),
		prop:    medium.Propagation(),
		loss:    medium.Loss(),
	}
	w.maxRange = w.prop.MaxRange()
	w.net = netstack.NewConfig(indexIDs(s.Members()), s.Radio.Hello.Period.D(), s.Radio.Hello.Timeout.D(), medium.Delay(), s.Trace.Hello)
	s.Routing.Apply(w.net)
	if s.Radio.MAC == radio.MACDCF {
		w.net.MAC = netstack.NewDCF(s.Radio.DCF)
		w.air = netstack.NewRadio(s.Radio, w.prop, w.loss)
	}
	if opt.HopLimit != 0 {
		w.net.HopLimit = opt.HopLimit
	}
	if opt.Retries != 0 {
		w.net.Retries = opt.Retries
	}
	members := s.Members()
	w.all = make([]node, len(members)) // adjacent in memory
	hugepage.Advise(w.all)
	for i, m := range members {
		n := &w.all[i]
		*n = node{index: m.Index, id: m.ID, value: m.Value}
		w.nodes = append(w.nodes, n)
		w.byID[m.ID] = m.Index
	}
	if mob.Len() < len(w.nodes) {
		return nil, fmt.Errorf("%s: mobility gives %d nodes, the scenario has %d", s.Path, mob.Len(), len(w.nodes))
	}
	// Build one process up front so that bad protocol parameters fail the
	// run before any trace is written. Its store is a scratch one, so that
	// nothing it puts reaches node 0's.
	_, err = spec.New(protocol.Config{ID: w.nodes[0].id, Value: w.nodes[0].value, Members: w.members, Params: s.Protocol.Params, Seed: s.Seed,
		HopDelay: w.net.HopDelay(s.Radio.Delay.D()), RouteDelay: w.net.RouteDelay(), Env: &env{w: w, n: w.nodes[0]}, Store: &protocol.MemStore{}})
	if warn, ok := protocol.Warned(err); !ok {
		return nil, fmt.Errorf("%s: %w", s.Source(err.Error()), err)
	} else if warn != nil {
		w.warnings = append(w.warnings, fmt.Sprintf("%s: %s", s.Path, warn.Text))
	}
	combined := s.Trace.Combined(len(w.nodes))
	var paths []string // the node files; none in the combined layout
	if !combined {
		paths = make([]string, len(w.nodes))
		for _, n := range w.nodes {
			paths[n.index] = trace.NodeFile(opt.Out, n.id)
		}
	}
	var out *sink
	if opt.Discard {
		// (err may still hold the protocol's warning, kept above.)
		out, err = &sink{discard: true, paths: make([]string, len(paths)+1)}, nil
	} else {
		out, err = newSink(opt.Out, paths, combined, s.Trace.Zstd(), opt.Record)
	}
	if err != nil {
		return nil, err
	}
	out.summary = s.Trace.Summary() && !analysis.ReadsReceives(spec)
	w.out = out
	return w, nil
}
