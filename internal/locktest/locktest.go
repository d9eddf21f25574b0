// Package locktest registers "locktest/central", a minimal mutual
// exclusion protocol for the drivers' and the workload generator's tests:
// the lowest member is a fixed lock server that grants the section in
// request order (ask, grant, done: 3 messages per entry of another node,
// none for its own). It has no fault tolerance at all; the real
// algorithms live in package mutex.
//
// It imports protocol only; only tests import it (for its registration).
package locktest

import "manetlab/protocol"

// Name is the protocol's registered name.
const Name = "locktest/central"

func init() {
	protocol.Register(protocol.Spec{
		Name:     Name,
		Summary:  "test only: a fixed lock server (the lowest member) grants the section in request order",
		New:      New,
		Messages: []protocol.Message{Ask{}, Grant{}, Done{}},
		Goal:     protocol.GoalMutex,
		Commands: []protocol.CommandName{protocol.Request, protocol.Release},
	})
}

// Ask asks the server for the section; Grant gives it; Done returns it.
type (
	Ask   struct{}
	Grant struct{}
	Done  struct{}
)

func (Ask) Kind() string   { return "ask" }
func (Grant) Kind() string { return "grant" }
func (Done) Kind() string  { return "done" }

// Node is one member: a client, and the server on the lowest member.
type Node struct {
	env    protocol.Env
	id     protocol.NodeID
	server protocol.NodeID
	// client
	state  string // "idle", "wanting", "holding"
	queued int    // requests made while one was outstanding
	// server
	holder protocol.NodeID
	queue  []protocol.NodeID
}

// New builds a node; it takes no parameters.
func New(cfg protocol.Config) (protocol.Process, error) {
	if err := cfg.Params.Reader().Err(); err != nil {
		return nil, err
	}
	return &Node{env: cfg.Env, id: cfg.ID, server: cfg.Members[0], state: "idle"}, nil
}

// Step handles one event.
func (n *Node) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Command:
		n.command(e.Name)
	case protocol.Receive:
		switch e.Msg.(type) {
		case Ask:
			n.ask(e.From)
		case Grant:
			n.granted()
		case Done:
			n.done(e.From)
		}
	}
}

func (n *Node) command(c protocol.CommandName) {
	switch c {
	case protocol.Request:
		n.env.Note(protocol.Note{Kind: protocol.NoteCSRequest})
		if n.state != "idle" {
			n.queued++
			return
		}
		n.want()
	case protocol.Release:
		if n.state != "holding" {
			n.env.Logf("release while %s: ignored", n.state)
			return
		}
		n.env.Note(protocol.Note{Kind: protocol.NoteCSExit})
		n.state = "idle"
		n.to(Done{})
		if n.queued > 0 {
			n.queued--
			n.want()
		}
	}
}

func (n *Node) want() {
	n.state = "wanting"
	n.to(Ask{})
}

// to sends m to the server, or handles it at once on the server.
func (n *Node) to(m protocol.Message) {
	if n.id != n.server {
		n.env.Deliver(n.server, m)
		return
	}
	switch m.(type) {
	case Ask:
		n.ask(n.id)
	case Done:
		n.done(n.id)
	}
}

func (n *Node) granted() {
	if n.state != "wanting" {
		n.env.Logf("grant while %s: ignored", n.state)
		return
	}
	n.state = "holding"
	n.env.Note(protocol.Note{Kind: protocol.NoteCSEnter})
}

func (n *Node) ask(from protocol.NodeID) {
	if n.id != n.server {
		return
	}
	if n.holder != protocol.None {
		n.queue = append(n.queue, from)
		return
	}
	n.grant(from)
}

func (n *Node) done(from protocol.NodeID) {
	if n.id != n.server || from != n.holder {
		return
	}
	n.holder = protocol.None
	if len(n.queue) > 0 {
		next := n.queue[0]
		n.queue = n.queue[1:]
		n.grant(next)
	}
}

func (n *Node) grant(to protocol.NodeID) {
	n.holder = to
	if to == n.id {
		n.granted()
		return
	}
	n.env.Deliver(to, Grant{})
}
