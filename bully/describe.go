package bully

import (
	"fmt"
	"strings"

	"manetlab/protocol"
)

// idList is "4, 7".
func idList(ids []protocol.NodeID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// unacked lists the peers of ids the channel still waits on.
func (n *node) unacked(ids []protocol.NodeID) []protocol.NodeID {
	var out []protocol.NodeID
	for _, id := range ids {
		if n.ch.Unacked(id) > 0 {
			out = append(out, id)
		}
	}
	return out
}

// following is ", leader L (epoch E)" or ", no leader".
func (n *node) following() string {
	if n.leader == protocol.None {
		return ", no leader"
	}
	return fmt.Sprintf(", leader %d (epoch %s)", n.leader, n.epoch)
}

// Describe implements protocol.Describer: seed 000's states.
func (p *textbook) Describe() string {
	switch p.state {
	case tbElecting:
		s := fmt.Sprintf("candidate (wait_reply), election sent to %s", idList(p.higher))
		if w := p.unacked(p.higher); len(w) > 0 {
			s += ", waiting for an OK from " + idList(w)
		}
		return s
	case tbWaiting:
		return "waiting for the coordinator (wait_leader), a higher node answered OK"
	}
	if p.leader == p.id {
		return fmt.Sprintf("coordinator (epoch %s)", p.epoch)
	}
	if !p.joined {
		return "idle, no election yet"
	}
	return "idle" + p.following()
}

var phaseNames = [...]string{phNone: "", phAsk: "AreYouThere sent to the higher IDs", phHalt: "Halt sent to the lower IDs",
	phNewCoord: "NewCoordinator sent", phReady: "Ready sent"}

// Describe implements protocol.Describer: seed 003's state vector.
func (p *garciaMolina) Describe() string {
	s := p.s.String()
	if p.c != protocol.None {
		s += fmt.Sprintf(", coordinator %d", p.c)
	}
	if p.s == Election && p.h != protocol.None {
		s += fmt.Sprintf(", halted by %d", p.h)
	}
	if p.num != 0 {
		s += fmt.Sprintf(", task %d", p.num)
	}
	if int(p.phase) < len(phaseNames) && p.phase != phNone {
		s += ", " + phaseNames[p.phase]
		var peers []protocol.NodeID
		switch p.phase {
		case phAsk:
			peers = p.higher
		case phHalt:
			peers = p.lower
		default:
			peers = p.up
		}
		if w := p.unacked(peers); len(w) > 0 {
			s += ", waiting for acks from " + idList(w)
		}
	}
	return s
}
