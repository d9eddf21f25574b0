package mutex

import (
	"fmt"

	"manetlab/protocol"
)

// clientState is where a node stands with the critical section.
type clientState int

const (
	idle    clientState = iota // neither wants nor holds it
	wanting                    // asked, waiting for permission
	holding                    // in the critical section
)

func (s clientState) String() string {
	return [...]string{"idle", "wanting", "holding"}[s]
}

// client is the bookkeeping every algorithm shares: the workload's
// requests, the notes and the queue of requests made while one is
// outstanding. An algorithm asks it what a command means and tells it when
// the node enters and leaves; it notes cs-request on every request as it
// arrives (the waiting time of a request runs from there), cs-enter and
// cs-exit.
type client struct {
	env   protocol.Env
	state clientState
	// queued counts requests made while another was outstanding or held;
	// each becomes the next request when the section is left.
	queued int
}

// action is what a command asks the algorithm to do now.
type action int

const (
	nothing    action = iota
	askNow            // start requesting the section
	releaseNow        // leave the section
)

// command interprets a workload command: a Request while idle starts a
// request; one while wanting or holding is queued; a Release while holding
// leaves; a Release at any other time is logged and ignored (the workload
// generator never sends one).
func (c *client) command(cmd protocol.Command) action {
	switch cmd.Name {
	case protocol.Request:
		c.env.Note(protocol.Note{Kind: protocol.NoteCSRequest})
		if c.state != idle {
			c.queued++
			return nothing
		}
		c.state = wanting
		return askNow
	case protocol.Release:
		if c.state != holding {
			c.env.Logf("release while %s: ignored", c.state)
			return nothing
		}
		return releaseNow
	}
	return nothing
}

// enter records that the node now holds the section. Entering without
// wanting is a bug of the algorithm; it panics so tests find it.
func (c *client) enter(detail string) {
	if c.state != wanting {
		panic(fmt.Sprintf("mutex: enter while %s", c.state))
	}
	c.state = holding
	c.env.Note(protocol.Note{Kind: protocol.NoteCSEnter, Text: detail})
}

// exit records that the node left the section and reports whether a queued
// request should be asked for at once (the state is then wanting).
func (c *client) exit() (askAgain bool) {
	if c.state != holding {
		panic(fmt.Sprintf("mutex: exit while %s", c.state))
	}
	c.env.Note(protocol.Note{Kind: protocol.NoteCSExit})
	c.state = idle
	if c.queued > 0 {
		c.queued--
		c.state = wanting
		return true
	}
	return false
}

// wants reports whether the node is waiting for the section; holds whether
// it is in it.
func (c *client) wants() bool { return c.state == wanting }
func (c *client) holds() bool { return c.state == holding }
