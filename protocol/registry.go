package protocol

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Spec describes a protocol to the drivers.
type Spec struct {
	// Name is how scenarios refer to it: "family/name", e.g.
	// "baseline/floodmax".
	Name string
	// Summary is one line for `manetlab protocols` and help texts.
	Summary string
	// New builds one node's Process. It reads cfg.Params through a
	// ParamReader and returns the reader's error.
	New func(cfg Config) (Process, error)
	// Messages lists one zero value of every message type, for the wire
	// codec: a message's type code on the wire is its index here plus one.
	// The list is append-only: the numbers are the protocol.
	Messages []Message
	// Goal is what the checker judges this protocol by; the zero value is
	// GoalBestValue, the wireless elections' goal.
	Goal Goal
	// Complexity, when set, names the message kinds of the announcement and
	// gives the theoretical bound that message counts are compared with
	// (ring elections).
	Complexity *Complexity
	// LogicalRing says the protocol arranges the members in the logical
	// ring of protocol.params.ring (package protocol/logicalring), so that
	// nodes.placement: ring lays them out in that order.
	LogicalRing bool
	// Candidates, when set, lists the members that can win an election of
	// this run (LeLann elects the highest initiator: a process that hears
	// a token before it initiates never competes); nil means every member.
	// The checker expects the best candidate of each component, and does
	// not judge a component without one.
	Candidates func(members []NodeID, params Params, seed uint64) ([]NodeID, error)
	// Settle, when set, is how long the protocol's own timers need after
	// the last change of a connected component (its membership or its
	// links) to settle leadership in it: the checker's default
	// stabilisation delay, to which it adds the neighbour-discovery
	// timeout (docs/analysis.md). It reads what it needs from params and
	// takes the defaults for what is missing or bad (New reports those).
	// Nil: the checker's default delay.
	Settle func(params Params) time.Duration
	// Topology, when set, checks the radio topology at the start of a run
	// (the links between members at time 0) before anything runs, so that
	// a protocol that needs a kind of network (an acyclic one for IEEE 1394
	// tree identify) fails with a clear error instead of stalling.
	Topology func(members []NodeID, links [][2]NodeID) error
	// Outside, when set, says why a run on this radio topology (the links
	// between members at time 0) lies outside the algorithm's assumptions,
	// or "" when it does not, so that the checker reports a failure there
	// as unknown rather than as a protocol bug (as Complexity.Assumes does
	// for crashes).
	Outside func(members []NodeID, links [][2]NodeID, params Params) string
	// Commands lists the workload commands the protocol implements beyond
	// Elect and SetValue, which every protocol may ignore. A scenario that
	// gives Request or Release (or a request generator) to a protocol that
	// does not list Request fails to load instead of being ignored.
	Commands []CommandName
	// Mutex, for a mutual exclusion algorithm, is its row of seed 002's
	// comparison table, which measured figures are set beside.
	Mutex *MutexCost
	// Budget bounds what each node sends by the causes its trace shows
	// (budget.go), for protocols whose count over a run no formula of n
	// bounds; nil: none declared.
	Budget *Budget
	// Resolve, when set, gives the Spec of a run with these parameters,
	// for a protocol whose goal, bounds, commands or ring are themselves
	// parameters (protocol/ext: a program in any language). Drivers and
	// checkers that know the run's parameters look the protocol up with
	// LookupFor. Resolve takes the defaults for what is missing or bad
	// (New reports those).
	Resolve func(params Params) Spec
	// Prepare, when set, is called by a driver before it boots count
	// processes of a run with params in this operating-system process,
	// so that a protocol whose processes need something slow from
	// outside (protocol/ext: an interpreter per node) can start it for
	// all of them at once. It must not change what the processes do.
	Prepare func(params Params, count int)
	// Safety, when set, is a safety predicate over the nodes' states
	// (ParsePredicate), which the protocol's processes note with
	// NoteStateOf: `explore` checks it after every step and `trace
	// check` over the trace.
	Safety string
}

// MutexCost is a mutual exclusion algorithm's theory: messages per entry
// and exit and synchronisation delay on a static lossless network under
// light load, as seed 002's comparison table gives them.
type MutexCost struct {
	// Messages is the formula of messages per entry and exit ("2(n-1)",
	// "3", "1 to ∞").
	Messages string
	// PerEntry gives the least and the most messages per entry for n
	// members (hi is +Inf when unbounded: a token ring with no requests
	// keeps circulating the token).
	PerEntry func(n int) (lo, hi float64)
	// Delay is the formula of the delay before entry, in message times
	// ("2", "0 to n-1").
	Delay string
	// Problems is the table's "problems" column ("coordinator crash").
	Problems string
	// HiIf is when PerEntry's most bounds the messages of every request
	// (granted, waiting at the end or abandoned): a run that meets it
	// and counts more than most × requests is judged invalid
	// (trace/judge). Nil: not judged.
	HiIf *Conditions
	// Unbounded lists kinds of Kinds that the most leaves out (the
	// centralized coordinator's liveness checks of a holder, one per
	// check period of a long hold).
	Unbounded []string
	// Kinds, when set, lists the message kinds that are the algorithm's
	// cost per entry; the others (an embedded election's, a new
	// coordinator's takeover) are counted apart from the messages per
	// entry. Empty: every kind that is not transport.
	Kinds []string
}

// Implements reports whether the protocol lists command c in Commands.
func (s Spec) Implements(c CommandName) bool {
	for _, x := range s.Commands {
		if x == c {
			return true
		}
	}
	return false
}

var registry = map[string]Spec{}

// Register makes a protocol available by name. Protocol packages call it
// from init; registering a name twice is a programming error and panics.
func Register(s Spec) {
	if s.Name == "" || s.New == nil {
		panic("protocol: Register needs a Name and a New")
	}
	if _, dup := registry[s.Name]; dup {
		panic("protocol: " + s.Name + " registered twice")
	}
	registry[s.Name] = s
}

// Lookup returns the protocol registered under name.
func Lookup(name string) (Spec, error) {
	s, ok := registry[name]
	if !ok {
		return Spec{}, fmt.Errorf("unknown protocol %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// LookupFor returns the protocol registered under name as it is for a
// run with params: Spec.Resolve's answer when it declares one, else the
// registered Spec.
func LookupFor(name string, params Params) (Spec, error) {
	s, err := Lookup(name)
	if err != nil || s.Resolve == nil {
		return s, err
	}
	return s.Resolve(params), nil
}

// Prepare calls the named protocol's Spec.Prepare, if any (drivers, before
// booting count processes).
func Prepare(name string, params Params, count int) {
	if s, err := Lookup(name); err == nil && s.Prepare != nil {
		s.Prepare(params, count)
	}
}

// Names lists the registered protocols in sorted order.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
