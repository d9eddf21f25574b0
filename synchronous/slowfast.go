package synchronous

import (
	"fmt"
	"math"
	"slices"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// SlowFastName is the slow-fast algorithm's protocol name.
const SlowFastName = "sync/slow-fast"

// SlowFast is the variable-speeds algorithm of seed 001 on the logical
// ring, uniform (n unknown), with nodes waking at different rounds. A node
// that wakes spontaneously with nothing to read is active: it sends its ID
// fast (one edge per round) to its successor. A node woken by a message,
// or that finds one waiting at its wake round, is a relay and never
// competes (the seed's pseudocode: IN_BUFFER empty decides). Every node
// forwards only an ID smaller than every ID it has seen (its own counts
// for an active node), keeping one message pending at most: a smaller ID
// replaces the pending one. A relay forwards a fast message in the round it
// reads it; a message read by an active node turns slow, and a slow
// message read in round R is sent in round R+2^ID-1, one edge every 2^ID
// rounds. An active node reading its own ID is elected; it then sends the
// announcement "elected" once round the ring (fast), which every node
// notes, forwards and halts on, so that the run ends (the seed's
// algorithm never terminates the others: n announcement messages are the
// price, counted under their own kind). The smallest active ID wins
// (protocol.GoalLowestID among SlowFastActive).
var SlowFast = rounds.Family[Msg]{
	Name:    SlowFastName,
	Summary: "slow-fast (seed 001): active nodes send their ID fast, slowed to one edge every 2^ID rounds at an active node; the smallest active ID wins in O(n) messages",
	Graph:   rounds.GraphRing,
	Goal:    protocol.GoalLowestID,
	New: func(ctx rounds.Context, p *protocol.ParamReader) (rounds.Algorithm[Msg], error) {
		return &slowFast{ctx: ctx}, nil
	},
	Theory: func(members []protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) (rounds.Theory, error) {
		return SlowFastTheory(members, wake)
	},
	Candidates: func(order []protocol.NodeID, wake map[protocol.NodeID]int, _ protocol.Params) []protocol.NodeID {
		return SlowFastActive(order, wake) // relays never compete
	},
}

// never is the round of a pending message that is never sent: one slowed
// by an ID so large that 2^ID rounds do not fit in an int.
const never = math.MaxInt

// slowDelay is the rounds a slow message of id waits at a node after the
// round it is read: 2^id-1.
func slowDelay(id protocol.NodeID) int {
	if id >= 62 {
		return never
	}
	return 1<<id - 1
}

type slowFast struct {
	ctx      rounds.Context
	spont    bool
	decided  bool // the first round has decided active or relay
	active   bool
	smallest protocol.NodeID // the smallest ID seen, None before any
	pending  *Msg            // the message waiting to be sent
	due      int             // the round pending is sent in
	leader   bool
	halted   bool
}

func (s *slowFast) Start(r int, spontaneous bool) {
	s.spont = spontaneous
	note(s.ctx, protocol.Note{Kind: protocol.NoteElectionStart, Epoch: epoch})
}

func (s *slowFast) Halted() bool { return s.halted }

func (s *slowFast) Round(r int, in []rounds.In[Msg]) []rounds.Out[Msg] {
	if !s.decided {
		s.decided = true
		if s.spont && len(in) == 0 {
			s.active, s.smallest = true, s.ctx.ID
			if alone(s.ctx) { // a ring of one: its ID is back at once
				s.elected()
				s.halt()
				return nil
			}
			return s.send(Msg{Type: TypeFast, ID: s.ctx.ID})
		}
	}
	for _, m := range in {
		id := m.Msg.ID
		if id == protocol.None {
			continue
		}
		switch m.Msg.Type {
		case TypeElected:
			if s.leader {
				if id == s.ctx.ID { // the announcement is back
					s.halt()
					return nil
				}
				continue
			}
			follow(s.ctx, id)
			s.halt()
			return s.send(m.Msg)
		case TypeFast, TypeSlow:
			if s.leader {
				continue
			}
			if id == s.ctx.ID {
				if !s.active {
					continue // a relay never sent its ID: forged
				}
				s.elected()
				s.pending = nil
				return s.send(Msg{Type: TypeElected, ID: s.ctx.ID})
			}
			if s.smallest != protocol.None && id >= s.smallest {
				continue // a larger competing ID is swallowed
			}
			s.smallest = id
			fwd := m.Msg
			if s.active || fwd.Type == TypeSlow {
				fwd.Type = TypeSlow
				s.due = r + slowDelay(id)
				if s.due < r {
					s.due = never
				}
			} else {
				s.due = r
			}
			s.pending = &fwd
		}
	}
	if s.pending != nil && r == s.due {
		msg := *s.pending
		s.pending = nil
		return s.send(msg)
	}
	return nil
}

func (s *slowFast) send(m Msg) []rounds.Out[Msg] {
	return []rounds.Out[Msg]{{To: s.ctx.Right, Msg: m}}
}

func (s *slowFast) elected() {
	s.leader = true
	follow(s.ctx, s.ctx.ID)
}

func (s *slowFast) halt() {
	s.halted = true
	note(s.ctx, protocol.Note{Kind: protocol.NoteElectionEnd, Epoch: epoch})
}

// SlowFastActive lists the members that become active, in ring order, given
// the ring order (successor order) and the wake rounds (nil or empty:
// every member wakes at round 1): a member waking at round w is active
// when no message is read by it by round w. Before any member reads a
// message, the first message it reads is the fast message of its nearest
// active predecessor j that woke before w, read at wake[j]+dist(j, i) (the
// members in between are relays, which forward their first message at
// once); so membership is decided wake round by wake round. The winner of
// slow-fast is the smallest of these: its Spec.Candidates.
func SlowFastActive(order []protocol.NodeID, wake map[protocol.NodeID]int) []protocol.NodeID {
	n := len(order)
	w := make([]int, n)
	for i, id := range order {
		w[i] = 1
		if len(wake) > 0 {
			w[i] = wake[id] // 0: never spontaneously
		}
	}
	active := make([]bool, n)
	var rounds []int
	seen := map[int]bool{}
	for _, x := range w {
		if x >= 1 && !seen[x] {
			seen[x] = true
			rounds = append(rounds, x)
		}
	}
	slices.Sort(rounds)
	for _, r := range rounds {
		var now []int
		for i := range n {
			if w[i] != r {
				continue
			}
			first := never // the round i first reads a message
			for d := 1; d < n; d++ {
				j := (i - d + n) % n
				if active[j] && w[j] < r {
					first = w[j] + d
					break
				}
			}
			if n == 1 || first > r {
				now = append(now, i)
			}
		}
		for _, i := range now {
			active[i] = true
		}
	}
	var out []protocol.NodeID
	for i, a := range active {
		if a {
			out = append(out, order[i])
		}
	}
	return out
}

// SlowFastTheory is slow-fast's complexity on the ring order (successor
// order) with the wake rounds (nil or empty: all at round 1).
//
// Rounds, exact: the leader L (the smallest active ID, SlowFastActive)
// sends its ID at its wake round w; it moves fast to the next active node
// at distance d (d = n when L is the only one), then slow for the n-d
// remaining edges, 2^L rounds each, so L reads it back in round
// w+d+(n-d)·2^L and sends the announcement, whose last hop is sent n-1
// rounds later: T = w+d+(n-d)·2^L+n-1 (0 for a ring of one). Seed 001:
// O(n·2^m).
//
// Messages, a bound: seed 001 counts at most n fast messages and at most
// n+2n+n slow ones (while the leader's message is fast, slow, or the
// leader sleeps), 5n in all, plus the n announcements here: 6n; exactly
// 2n when one node is active.
func SlowFastTheory(order []protocol.NodeID, wake map[protocol.NodeID]int) (rounds.Theory, error) {
	n := len(order)
	act := SlowFastActive(order, wake)
	if len(act) == 0 {
		return rounds.Theory{}, fmt.Errorf("protocol.params.wake: no member wakes spontaneously, so %s elects no one", SlowFastName)
	}
	pos := make(map[protocol.NodeID]int, n)
	for i, id := range order {
		pos[id] = i
	}
	leader := act[0]
	for _, id := range act {
		leader = min(leader, id)
	}
	w := 1
	if len(wake) > 0 {
		w = wake[leader]
	}
	d := n
	for _, id := range act {
		if id == leader {
			continue
		}
		d = min(d, (pos[id]-pos[leader]+n)%n)
	}
	var rb protocol.Bound
	rb.Name = "slow-fast: the leader L's ID fast to the next active node at distance d, slow (2^L rounds an edge) the rest, then the announcement"
	rb.Formula = "w+d+(n-d)·2^L+n-1"
	value := float64(w+d+n-1) + float64(n-d)*math.Exp2(float64(leader))
	if n == 1 {
		value = 0
	}
	rb.Value = value
	if value < 1<<52 {
		rb.Exact = intp(int(value))
	}
	mb := protocol.Bound{Name: "slow-fast: at most 5n election messages (seed 001) and n announcements", Formula: "5n+n",
		Value: float64(6 * n), Worst: intp(6 * n), WorstIf: protocol.NoFaults}
	if len(act) == 1 {
		mb.ExactIf = protocol.NoFaults
		mb.Exact = intp(2 * n)
		if n == 1 {
			mb.Exact = intp(0)
		}
	}
	return rounds.Theory{Rounds: rb, Messages: mb}, nil
}
