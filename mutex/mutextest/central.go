// Package mutextest registers a tiny mutual exclusion protocol for the
// tests of the trace analysis, reports, sweeps and HTML pages, so that
// they can simulate runs with critical sections without depending on the
// real algorithms of package mutex: a fixed coordinator (the lowest member
// ID) grants the section first come, first served. Three messages per
// entry of a client (request, grant, release), two message times of
// synchronisation delay, as seed 002's centralized algorithm.
//
// It imports only protocol; only tests import it (for its registration).
package mutextest

import (
	"manetlab/protocol"
)

// Name is the protocol's registered name.
const Name = "test/mutex-central"

func init() {
	protocol.Register(protocol.Spec{
		Name:     Name,
		Summary:  "test only: a fixed coordinator (the lowest ID) grants the critical section in request order",
		New:      newCentral,
		Messages: []protocol.Message{Request{}, Grant{}, Release{}},
		Goal:     protocol.GoalMutex,
		Commands: []protocol.CommandName{protocol.Request, protocol.Release},
		Mutex: &protocol.MutexCost{Messages: "3", Delay: "2", Problems: "coordinator crash",
			PerEntry: func(int) (float64, float64) { return 3, 3 }},
	})
}

// Request asks the coordinator for the section.
type Request struct{}

// Grant lets a client in.
type Grant struct{}

// Release gives the section back.
type Release struct{}

func (Request) Kind() string { return "request" }
func (Grant) Kind() string   { return "grant" }
func (Release) Kind() string { return "release" }

type central struct {
	env          protocol.Env
	id, coord    protocol.NodeID
	wants, holds bool
	// Coordinator state: who holds the section, and who waits.
	busy  bool
	queue []protocol.NodeID
}

func newCentral(cfg protocol.Config) (protocol.Process, error) {
	if err := cfg.Params.Reader().Err(); err != nil {
		return nil, err
	}
	c := &central{env: cfg.Env, id: cfg.ID, coord: cfg.ID}
	for _, m := range cfg.Members {
		c.coord = min(c.coord, m)
	}
	return c, nil
}

func (c *central) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Command:
		switch e.Name {
		case protocol.Request:
			c.env.Note(protocol.Note{Kind: protocol.NoteCSRequest})
			if c.wants || c.holds {
				return // one request at a time: enough for tests
			}
			c.wants = true
			c.to(c.coord, Request{})
		case protocol.Release:
			if !c.holds {
				return
			}
			c.holds = false
			c.env.Note(protocol.Note{Kind: protocol.NoteCSExit})
			c.to(c.coord, Release{})
		}
	case protocol.Receive:
		c.handle(e.From, e.Msg)
	}
}

// to sends m, or handles it at once when this node is the destination.
func (c *central) to(n protocol.NodeID, m protocol.Message) {
	if n == c.id {
		c.handle(c.id, m)
		return
	}
	c.env.Send(n, m)
}

func (c *central) handle(from protocol.NodeID, m protocol.Message) {
	switch m.(type) {
	case Request:
		if c.id != c.coord {
			return
		}
		if c.busy {
			c.queue = append(c.queue, from)
			return
		}
		c.busy = true
		c.to(from, Grant{})
	case Release:
		if c.id != c.coord {
			return
		}
		c.busy = false
		if len(c.queue) > 0 {
			next := c.queue[0]
			c.queue = c.queue[1:]
			c.busy = true
			c.to(next, Grant{})
		}
	case Grant:
		if !c.wants {
			return
		}
		c.wants, c.holds = false, true
		c.env.Note(protocol.Note{Kind: protocol.NoteCSEnter})
	}
}

// Scenario is the tests' usual run of this protocol: three nodes in range
// of each other on a line (node 1 coordinates), 5 s, with workload as the
// YAML lines of `workload:` ("  - {at: 1s, node: 2, command: request}\n"...).
func Scenario(workload string) string {
	return `name: mx
duration: 5s
nodes:
  list:
    - {id: 1, pos: [0, 0]}
    - {id: 2, pos: [100, 0]}
    - {id: 3, pos: [200, 0]}
radio: {range: 250}
mobility: {model: static, area: [300, 300]}
protocol: {name: ` + Name + `}
workload:
` + workload
}
