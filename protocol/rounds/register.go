package rounds

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/logicalring"
	"manetlab/protocol/reliable"
)

// The synchronizers, as protocol.params.synchronizer names them.
const (
	Simple = "simple"
	Alpha  = "alpha"
	Beta   = "beta"
	ABD    = "abd"
	None   = "none"
)

// Synchronizers lists the names protocol.params.synchronizer accepts.
var Synchronizers = []string{Simple, Alpha, Beta, ABD, None}

// DefaultSynchronizer is used when the scenario names none: the seed's
// simple synchronizer (one envelope per neighbour per round).
const DefaultSynchronizer = Simple

// Default settle periods: how long a node waits after Start before round
// 1. On the radio graph it learns its neighbours meanwhile (three hello
// periods, so that every neighbour was heard at least twice); on the ring
// it only lets every process of a real run come up. (radio's default hello
// period is 1 s; this package does not import radio.)
const (
	DefaultSettleRadio = 3 * time.Second
	DefaultSettleRing  = time.Second
)

// HelloWait is how long a node of the radio graph waits, once settled,
// for the sync-hello of neighbours that heard it when it did not hear
// them (discovery is not symmetric under loss): five retransmission
// timeouts of the default reliable channel.
const HelloWait = 5 * reliable.DefaultTimeout

// timer names.
const (
	timerSettle = "sync-settle"
	timerPulse  = "sync-pulse"
	timerHello  = "sync-hello"
	timerRel    = "sync-rel" // the reliable channel's
)

// settings are the framework's parameters, read by Register's New and by
// Info.Settings.
type settings struct {
	sync   string
	wake   map[protocol.NodeID]int
	d      time.Duration // abd
	settle time.Duration
	rel    reliable.Config
	ring   *logicalring.Ring // GraphRing only
}

// parseSettings reads the framework's keys from r: synchronizer, wake, d,
// settle, rto, retries and, on the ring, ring and channels.
func parseSettings(r *protocol.ParamReader, g Graph, members []protocol.NodeID, seed uint64) (*settings, error) {
	s := &settings{rel: reliable.ParamsConfig(r)}
	s.rel.Timer = timerRel
	v, ok := r.Any("synchronizer")
	s.sync = DefaultSynchronizer
	if ok {
		name, isStr := v.(string)
		if !isStr || !known(name) {
			return nil, fmt.Errorf("protocol.params.synchronizer: %v is not a synchronizer (known: %s)", v, strings.Join(Synchronizers, ", "))
		}
		s.sync = name
	}
	wake, err := parseWake(r, members)
	if err != nil {
		return nil, err
	}
	s.wake = wake
	s.d = r.Duration("d", 0)
	if v, given := r.Any("d"); given && s.sync == ABD && s.d <= 0 {
		r.Reject("d", v, `a positive duration such as "50ms"`)
	} else if s.sync == ABD && s.d <= 0 {
		return nil, fmt.Errorf("protocol.params.d: the abd synchronizer needs d, the bound on a message's delay (a positive duration such as \"50ms\"); pulses are 2d apart")
	}
	def := DefaultSettleRadio
	if g == GraphRing {
		def = DefaultSettleRing
		ring, err := logicalring.FromParams(r, members, seed, true)
		if err != nil {
			return nil, err
		}
		s.ring = ring
	}
	s.settle = r.Duration("settle", def)
	return s, nil
}

func known(name string) bool {
	for _, n := range Synchronizers {
		if n == name {
			return true
		}
	}
	return false
}

// parseWake reads protocol.params.wake, a map from node to its spontaneous
// wake round (at least 1); absent, every member wakes at round 1.
func parseWake(r *protocol.ParamReader, members []protocol.NodeID) (map[protocol.NodeID]int, error) {
	v, ok := r.Any("wake")
	wake := map[protocol.NodeID]int{}
	if !ok {
		for _, m := range members {
			wake[m] = 1
		}
		return wake, nil
	}
	bad := func(what string) error {
		return fmt.Errorf("protocol.params.wake: %s (want a map from node to its wake round, e.g. {1: 1, 5: 1, 3: 2}; members: %s)", what, protocol.DescribeIDs(members))
	}
	entries := map[string]any{}
	switch m := v.(type) {
	case map[string]any:
		entries = m
	case map[any]any:
		for k, x := range m {
			entries[fmt.Sprint(k)] = x
		}
	case map[int]any:
		for k, x := range m {
			entries[strconv.Itoa(k)] = x
		}
	case map[protocol.NodeID]int:
		for k, x := range m {
			entries[strconv.FormatUint(uint64(k), 10)] = x
		}
	default:
		return nil, bad(fmt.Sprintf("%v is not a map", v))
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n, err := strconv.ParseUint(k, 10, 32)
		id := protocol.NodeID(n)
		if err != nil || !isMember(members, id) {
			return nil, bad(fmt.Sprintf("%s is not a member", k))
		}
		round, ok := protocol.NodeIDOf(entries[k])
		if !ok || round < 1 {
			return nil, bad(fmt.Sprintf("node %s wakes at round %v, not a round (rounds begin at 1)", k, entries[k]))
		}
		wake[id] = int(round)
	}
	return wake, nil
}

func isMember(members []protocol.NodeID, id protocol.NodeID) bool {
	i := sort.Search(len(members), func(i int) bool { return members[i] >= id })
	return i < len(members) && members[i] == id
}

// Info is what analysis needs of a registered round protocol.
type Info struct {
	Name  string
	Graph Graph
	// Theory is the Family's (nil when it gives none).
	Theory func(members []protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) (Theory, error)
	// TheoryGraph is the Family's (nil when it gives none).
	TheoryGraph func(neighbors map[protocol.NodeID][]protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) (Theory, error)
}

// Params are a run's framework parameters, as Info.Parse reads them.
type Params struct {
	Synchronizer string
	Wake         map[protocol.NodeID]int
	D            time.Duration
	// Ring is the logical ring's order (GraphRing), nil otherwise.
	Ring []protocol.NodeID
}

// Parse reads the framework's parameters of a run.
func (i Info) Parse(members []protocol.NodeID, params protocol.Params, seed uint64) (Params, error) {
	s, err := parseSettings(params.Reader(), i.Graph, members, seed)
	if err != nil {
		return Params{}, err
	}
	p := Params{Synchronizer: s.sync, Wake: s.wake, D: s.d}
	if s.ring != nil {
		p.Ring = s.ring.Order()
	}
	return p, nil
}

var families = map[string]Info{}

// Lookup returns the round protocol registered under name.
func Lookup(name string) (Info, bool) {
	i, ok := families[name]
	return i, ok
}

// Register registers f as a protocol.Spec named f.Name: each node runs
// f's algorithm over the synchronizer of protocol.params.synchronizer.
// New reads the framework's parameters (synchronizer, wake, d, settle,
// rto, retries; ring and channels on the ring), calls f.New with the
// reader, and then rejects unknown keys.
func Register[T protocol.Message](f Family[T]) {
	if f.New == nil || f.Name == "" {
		panic("rounds: Register needs a Name and a New")
	}
	if f.Graph != GraphRing && f.Graph != GraphRadio {
		panic(fmt.Sprintf("rounds: %s: graph %q is neither ring nor radio", f.Name, f.Graph))
	}
	fam := f
	var candidates func([]protocol.NodeID, protocol.Params, uint64) ([]protocol.NodeID, error)
	if f.Candidates != nil {
		info := Info{Name: f.Name, Graph: f.Graph}
		candidates = func(members []protocol.NodeID, params protocol.Params, seed uint64) ([]protocol.NodeID, error) {
			p, err := info.Parse(members, params, seed)
			if err != nil {
				return nil, err
			}
			order := members
			if p.Ring != nil {
				order = p.Ring
			}
			return fam.Candidates(order, p.Wake, params), nil
		}
	}
	protocol.Register(protocol.Spec{
		Name:        f.Name,
		Summary:     f.Summary,
		New:         func(cfg protocol.Config) (protocol.Process, error) { return newProc(&fam, cfg) },
		Messages:    reliable.Messages[Wire[T]](),
		Goal:        f.Goal,
		LogicalRing: f.Graph == GraphRing,
		Candidates:  candidates,
	})
	families[f.Name] = Info{Name: f.Name, Graph: f.Graph, Theory: f.Theory, TheoryGraph: f.TheoryGraph}
}
