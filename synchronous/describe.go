package synchronous

import (
	"fmt"

	"manetlab/protocol"
)

// Describe implements protocol.Describer.
func (a *bfs) Describe() string {
	switch {
	case a.root == a.ctx.ID:
		return "root"
	case a.halted:
		return fmt.Sprintf("done: in root %d's tree, or no invitation came", a.root)
	}
	return fmt.Sprintf("waiting for an invitation from root %d's tree", a.root)
}

// Describe implements protocol.Describer.
func (a *slowFast) Describe() string {
	switch {
	case a.leader:
		return "leader"
	case !a.decided:
		return "undecided"
	}
	s := "relay"
	if a.active {
		s = "active"
	}
	if a.smallest != protocol.None {
		s += fmt.Sprintf(", smallest seen %d", a.smallest)
	}
	if a.pending != nil {
		s += fmt.Sprintf(", holding a message until round %d", a.due)
	}
	return s
}

// Describe implements protocol.Describer.
func (a *timeSlice) Describe() string {
	if a.leader {
		return "leader"
	}
	return fmt.Sprintf("its phase begins in round %d", a.start)
}
