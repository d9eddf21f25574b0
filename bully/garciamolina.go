package bully

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

func init() {
	protocol.Register(protocol.Spec{
		Name: GarciaMolina,
		Summary: "Garcia-Molina's bully election (seed 003): states Down, Election, Reorganization, Normal; AreYouThere to higher IDs, " +
			"Halt to lower, NewCoordinator and Ready; Check and Timeout; the state vector in stable storage",
		New:      NewGarciaMolina,
		Messages: reliable.Messages[Msg](),
		Goal:     protocol.GoalHighestID,
		Budget:   GarciaMolinaBudget,
		Complexity: &protocol.Complexity{
			Announce: []string{KindNewCoordinator, KindReady},
			Control:  []string{KindAreYouNormal, KindNotNormal, KindProbe},
			Bound:    boundFunc(GarciaMolina),
		},
	})
}

// Status is a node's state, S(i).s in seed 003.
type Status uint8

// The states of seed 003.
const (
	// Down: the node is not (yet) part of a group: it booted and no
	// election took it in yet, or it recovered from a crash (its state
	// vector in stable storage says it was running: it knows it was down).
	Down Status = iota
	// Election: halted by a coordinator candidate (S.h), or halting the
	// lower IDs as one.
	Election
	// Reorganization: the coordinator (S.c) is known; the task (the
	// epoch) is not yet distributed.
	Reorganization
	// Normal: in a group, under S.c, with task S.d.
	Normal
)

var statusNames = [...]string{Down: "Down", Election: "Election", Reorganization: "Reorganization", Normal: "Normal"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", s)
}

// StateKey is where a node keeps its state vector in stable storage, as
// text: "s=Normal c=7 h=7 d=3 counter=3 up=1,2,4".
const StateKey = "bully.garcia-molina"

// phase is where this node's own Election procedure is; the procedure's
// calls are messages and its waits are the channel's acknowledgements
// (Garcia-Molina's answers, Assumption 8) and timers.
type phase uint8

const (
	phNone     phase = iota
	phAsk            // AreYouThere sent to the higher IDs, waiting for an answer
	phHalt           // Halt sent to the lower IDs, collecting the answers
	phNewCoord       // NewCoordinator sent to Up, waiting for every answer
	phReady          // Ready sent to Up, waiting for every answer
)

// garciaMolina is the bully election of seed 003 (Garcia-Molina, 1982) as
// a state machine over a reliable FIFO channel. Election: AreYouThere to
// every higher ID; if one answers (the channel acknowledges) within
// timeout, the node gives up; otherwise it halts the lower IDs (state
// Election, S.h = itself), takes those that answered within timeout as Up,
// numbers the epoch above every number seen, becomes Reorganization with
// S.c = itself, sends NewCoordinator to Up and, once every one answered,
// Ready (the task: the epoch), and once every one answered again, goes
// Normal. A node answering no NewCoordinator or Ready makes it start the
// election again. A halted node (Election, S.h) takes NewCoordinator only
// from S.h (Reorganization) and Ready only from S.c (Normal).
//
// Check: the coordinator in Normal sends AreYouNormal to every other
// member every check period; a node that is not Normal in its epoch
// answers not-normal, and the coordinator starts an election. Timeout: a
// member that has heard nothing from its coordinator for leader-timeout
// probes it (AreYouThere as a probe, kind probe) if it is a detector;
// an unreachable coordinator, or one that answers not-normal, makes it
// start an election; a halted or Down node left waiting that long starts
// one too.
//
// Departures from the seed (see doc.go): the AreYouThere of an election
// makes a receiver that is neither electing nor halted by a higher node,
// nor gave up on a higher one's behalf, hold its own election, as the
// textbook bully does, so that one detection suffices; a Halt from a
// lower ID is refused and answered with the receiver's own election.
type garciaMolina struct {
	*node
	s   Status
	c   protocol.NodeID   // S.c
	h   protocol.NodeID   // S.h
	num uint64            // the epoch's number: S.d, the task Ready distributes
	up  []protocol.NodeID // S.Up at a coordinator, ascending

	phase    phase
	silent   map[protocol.NodeID]bool // declared unreachable during this phase
	deferred bool                     // gave up: a higher node answered and should take over
	answer   protocol.TimerID
	timeout  protocol.TimerID
}

// NewGarciaMolina builds a process of Garcia-Molina's bully election.
func NewGarciaMolina(cfg protocol.Config) (protocol.Process, error) {
	n, err := newNode(GarciaMolina, cfg)
	if _, ok := protocol.Warned(err); !ok {
		return nil, err
	}
	p := &garciaMolina{node: n}
	n.rules = p
	return p, err // nil, or a protocol.Warning beside a working process
}

// save writes the state vector to stable storage: on every state change.
func (p *garciaMolina) save() {
	ups := make([]string, len(p.up))
	for i, id := range p.up {
		ups[i] = strconv.FormatUint(uint64(id), 10)
	}
	v := fmt.Sprintf("s=%s c=%d h=%d d=%d counter=%d up=%s", p.s, p.c, p.h, p.num, p.maxNum, strings.Join(ups, ","))
	p.put(StateKey, []byte(v))
}

// load reads the state vector; ok is false when there is none (the first
// boot). A vector it cannot read is noted and treated as a recovery.
func (p *garciaMolina) load() (prev string, ok bool) {
	b, ok := p.store.Get(StateKey)
	if !ok {
		return "", false
	}
	for _, f := range strings.Fields(string(b)) {
		k, v, _ := strings.Cut(f, "=")
		if k == "counter" {
			if c, err := strconv.ParseUint(v, 10, 64); err == nil {
				p.maxNum = c
			} else {
				p.info("state vector %q: bad counter; counting from 0", b)
			}
		}
	}
	return string(b), true
}

func (p *garciaMolina) boot() {
	prev, recovered := p.load()
	p.s = Down
	p.save()
	if recovered {
		// Assumption 4: the state vector survived, so the node knows it
		// was down; Recovery starts an election.
		p.info("recovered: the state vector in stable storage reads %q; it was down; Recovery: an election", prev)
		p.Election()
		return
	}
	if p.set.initiator(p.id) {
		p.env.SetTimer(p.set.start, timerStart, 0)
	}
	// A node that no election takes in starts one itself.
	p.armTimeout(p.set.start + p.set.leader)
}

// armTimeout (re)starts the Timeout procedure's timer.
func (p *garciaMolina) armTimeout(d time.Duration) {
	p.cancel(&p.timeout)
	p.timeout = p.env.SetTimer(d, timerTimeout, 0)
}

func (p *garciaMolina) elect() { p.Election() }

// Election is the procedure of seed 003, from its first call:
// AreYouThere to every higher ID.
func (p *garciaMolina) Election() {
	if p.phase != phNone {
		return
	}
	p.deferred = false
	p.phase = phAsk
	p.silent = nil
	if len(p.higher) == 0 {
		p.halt()
		return
	}
	p.sendAll(p.higher, Msg{Type: TypeAreYouThere, Num: p.maxNum})
	p.answer = p.env.SetTimer(p.set.timeout, timerAnswer, 0)
}

// answered reports whether peer acknowledged everything sent to it and
// was not declared unreachable in this phase.
func (p *garciaMolina) answered(peer protocol.NodeID) bool { return p.acked(peer) && !p.silent[peer] }

// halt: no higher ID answered. The node stops (state Election, S.h =
// itself), numbers the new epoch and halts the lower IDs, highest first.
func (p *garciaMolina) halt() {
	p.cancel(&p.answer)
	p.cancel(&p.timeout)
	p.phase = phHalt
	p.silent = nil
	p.maxNum++
	p.num = p.maxNum
	p.s, p.h, p.up = Election, p.id, nil
	p.save()
	p.noteStart(Epoch{Num: p.num, Leader: p.id})
	for i := len(p.lower) - 1; i >= 0; i-- {
		p.ch.Send(p.lower[i], Msg{Type: TypeHalt, Num: p.num})
	}
	if len(p.lower) == 0 {
		p.reorganize()
		return
	}
	p.answer = p.env.SetTimer(p.set.timeout, timerAnswer, 0)
}

// reorganize: the lower IDs that answered the Halt are Up; the node is
// the coordinator and tells them (NewCoordinator).
func (p *garciaMolina) reorganize() {
	p.cancel(&p.answer)
	p.up = nil
	for _, id := range p.lower {
		if p.answered(id) {
			p.up = append(p.up, id)
		}
	}
	p.silent = nil
	p.s, p.c = Reorganization, p.id
	p.save()
	p.follow(Epoch{Num: p.num, Leader: p.id})
	p.phase = phNewCoord
	p.sendAll(p.up, Msg{Type: TypeNewCoordinator, Num: p.num})
	if len(p.up) == 0 {
		p.normal()
	}
}

// ready: every node of Up answered NewCoordinator; it gets the task.
func (p *garciaMolina) ready() {
	p.phase = phReady
	p.sendAll(p.up, Msg{Type: TypeReady, Num: p.num})
	if len(p.up) == 0 {
		p.normal()
	}
}

func (p *garciaMolina) normal() {
	p.phase = phNone
	p.s = Normal
	p.save()
	p.noteEnd()
}

func (p *garciaMolina) progress() {
	switch p.phase {
	case phAsk:
		for _, h := range p.higher {
			if p.answered(h) {
				// A higher node is there: it takes over (seed 003:
				// "exit"). If none does, the Timeout brings this node back.
				p.cancel(&p.answer)
				p.phase = phNone
				p.deferred = true
				p.armTimeout(p.set.leader)
				return
			}
		}
	case phHalt:
		for _, l := range p.lower {
			if !p.answered(l) {
				return
			}
		}
		p.reorganize()
	case phNewCoord:
		for _, u := range p.up {
			if !p.acked(u) {
				return
			}
		}
		p.ready()
	case phReady:
		for _, u := range p.up {
			if !p.acked(u) {
				return
			}
		}
		p.normal()
	}
}

// heard handles a message from the coordinator: it lives. The Timeout
// starts over; an election this node started because the channel gave up
// on the coordinator (the report came late: its messages were stuck
// behind a partition) is called off, and the coordinator followed again.
func (p *garciaMolina) heard() {
	p.armTimeout(p.set.leader)
	if p.phase == phAsk {
		p.cancel(&p.answer)
		p.phase = phNone
	}
	p.deferred = false
	if p.leader == protocol.None {
		p.follow(Epoch{Num: p.num, Leader: p.c})
	}
}

// haltedByHigher reports whether a higher node's election holds this node.
func (p *garciaMolina) haltedByHigher() bool {
	return p.s == Election && p.h > p.id || p.s == Reorganization && p.c > p.id
}

func (p *garciaMolina) receive(from protocol.NodeID, m Msg) {
	if from == p.c && p.c != p.id && (p.s == Normal || p.s == Reorganization) {
		p.heard()
	}
	switch m.Type {
	case TypeAreYouThere:
		// The acknowledgement is the answer. The election of a lower node
		// starts this node's own (a departure: see doc.go).
		if from < p.id && p.phase == phNone && !p.deferred && !p.haltedByHigher() {
			p.Election()
		}
	case TypeHalt:
		if from < p.id {
			// A lower node would halt a live higher one: bully it.
			if p.phase == phNone {
				p.Election()
			}
			return
		}
		p.cancel(&p.answer)
		p.phase, p.deferred = phNone, false
		p.s, p.h = Election, from
		p.save()
		p.noteStart(Epoch{Num: m.Num, Leader: from})
		p.armTimeout(p.set.leader)
	case TypeNewCoordinator:
		if p.s == Election && p.h == from {
			p.s, p.c, p.num = Reorganization, from, m.Num
			p.save()
			p.follow(Epoch{Num: m.Num, Leader: from})
			p.armTimeout(p.set.leader)
		}
	case TypeReady:
		if p.s == Reorganization && p.c == from && p.num == m.Num {
			p.s = Normal
			p.save()
			p.noteEnd()
			p.armTimeout(p.set.leader)
		}
	case TypeAreYouNormal:
		// "No" echoes the epoch asked about, so that an answer to an
		// older Check (it waited in the channel) is not taken for one
		// about the current epoch.
		if !(p.s == Normal && p.c == from && p.num == m.Num) {
			p.ch.Send(from, Msg{Type: TypeNotNormal, Num: m.Num})
		}
	case TypeProbe:
		if !((p.s == Normal || p.s == Reorganization) && p.c == p.id && p.num == m.Num) {
			p.ch.Send(from, Msg{Type: TypeNotNormal, Num: m.Num})
		}
	case TypeNotNormal:
		switch {
		case p.phase != phNone || m.Num != p.num:
		case p.s == Normal && p.c == p.id:
			p.Election() // Check: a node is not Normal in this group
		case (p.s == Normal || p.s == Reorganization) && p.c == from:
			p.lose("it is no longer the coordinator")
			p.Election()
		}
	}
}

func (p *garciaMolina) unreachable(f reliable.Failure[Msg]) {
	peer := f.Peer
	if p.silent == nil {
		p.silent = map[protocol.NodeID]bool{}
	}
	p.silent[peer] = true
	switch {
	case (p.phase == phNewCoord || p.phase == phReady) && slices.Contains(p.up, peer):
		// A node of Up failed since it answered the Halt: the whole
		// election again (seed 003).
		p.info("node %d did not answer %s: the election again", peer, map[phase]string{phNewCoord: "NewCoordinator", phReady: "Ready"}[p.phase])
		p.phase = phNone
		p.Election()
	case p.phase != phNone:
	case (p.s == Normal || p.s == Reorganization) && peer == p.c && p.c != p.id:
		p.suspect("it did not answer")
		p.Election()
	case p.s == Election && peer == p.h && p.h != p.id:
		p.Election()
	}
}

func (p *garciaMolina) timer(e protocol.Timeout) {
	switch e.Name {
	case timerStart:
		if p.s == Down && p.phase == phNone && !p.deferred {
			p.Election()
		}
	case timerAnswer:
		if e.ID != p.answer {
			return
		}
		p.answer = 0
		switch p.phase {
		case phAsk:
			p.halt() // no higher ID answered in time
		case phHalt:
			p.reorganize()
		}
	case timerTimeout:
		if e.ID != p.timeout {
			return
		}
		p.timeout = 0
		p.Timeout()
	case timerCheck:
		p.Check()
	}
}

// Timeout is the procedure of seed 003: a member that has not heard from
// its coordinator for leader-timeout asks it whether it is there (a
// detector, with checks on); a node left halted, Down, or waiting for a
// higher node that answered, starts an election.
func (p *garciaMolina) Timeout() {
	switch {
	case p.phase != phNone:
	case p.deferred || p.s == Down || p.s == Election && p.h != p.id:
		p.Election()
	case (p.s == Normal || p.s == Reorganization) && p.c != p.id:
		if p.set.check > 0 && p.set.detector(p.id) && p.acked(p.c) {
			p.ch.Send(p.c, Msg{Type: TypeProbe, Num: p.num})
		}
		p.armTimeout(p.set.leader)
	}
}

// Check is the procedure of seed 003: the coordinator in Normal asks every
// other member whether it is Normal in its group; one AreYouNormal per
// peer is in flight at a time (the channel retransmits it).
func (p *garciaMolina) Check() {
	if p.s != Normal || p.c != p.id || p.phase != phNone {
		return
	}
	for _, id := range p.members {
		if id != p.id && p.acked(id) {
			p.ch.Send(id, Msg{Type: TypeAreYouNormal, Num: p.num})
		}
	}
}
