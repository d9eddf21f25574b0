package rounds

import (
	"fmt"
	"sort"

	"manetlab/protocol"
)

// Lockstep is the result of running a synchronous algorithm in perfect
// rounds.
type Lockstep struct {
	// Rounds is the last round in which some node sent a message or was
	// still running (not halted): the algorithm's time complexity T_S.
	Rounds int
	// Messages counts the algorithm's messages (M_S).
	Messages int
	// Sent counts messages per round (index 0 is round 1).
	Sent []int
}

// RunLockstep runs one Algorithm per member in perfect synchronous rounds,
// the reference semantics of the package: wake maps a node to its
// spontaneous wake round (nodes not in it wake only when a message reaches
// them); messages sent in round r are received in round r+1; a message to
// a halted node is dropped; a message to a node that is not its sender's
// neighbour is a programming error. It stops when every awake node has
// halted and no message is in flight, or after maxRounds rounds, which is
// an error.
func RunLockstep[T protocol.Message](algs map[protocol.NodeID]Algorithm[T], neighbors map[protocol.NodeID][]protocol.NodeID, wake map[protocol.NodeID]int, maxRounds int) (Lockstep, error) {
	var res Lockstep
	ids := make([]protocol.NodeID, 0, len(algs))
	for id := range algs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	awake := map[protocol.NodeID]bool{}
	inbox := map[protocol.NodeID][]In[T]{} // received at the start of the round
	for r := 1; ; r++ {
		if r > maxRounds {
			return res, fmt.Errorf("rounds: still running after %d rounds", maxRounds)
		}
		next := map[protocol.NodeID][]In[T]{}
		sent, running := 0, false
		for _, id := range ids {
			a := algs[id]
			in := inbox[id]
			if !awake[id] {
				spont := wake[id] == r
				if !spont && len(in) == 0 {
					continue
				}
				awake[id] = true
				a.Start(r, spont)
			}
			if a.Halted() {
				continue
			}
			for _, o := range a.Round(r, in) {
				if !contains(neighbors[id], o.To) {
					return res, fmt.Errorf("rounds: node %d sent to %d, not a neighbour (neighbours %v)", id, o.To, neighbors[id])
				}
				next[o.To] = append(next[o.To], In[T]{From: id, Msg: o.Msg})
				sent++
			}
			if !a.Halted() {
				running = true
			}
		}
		for to, in := range next {
			if awake[to] && algs[to].Halted() {
				delete(next, to)
				continue
			}
			sort.SliceStable(in, func(i, j int) bool { return in[i].From < in[j].From })
		}
		res.Sent = append(res.Sent, sent)
		res.Messages += sent
		if sent > 0 || running {
			res.Rounds = r
		}
		inbox = next
		pendingWake := false
		for _, id := range ids {
			if !awake[id] && wake[id] > r {
				pendingWake = true
			}
		}
		if !running && len(next) == 0 && !pendingWake {
			res.Sent = res.Sent[:res.Rounds]
			return res, nil
		}
	}
}

func contains(s []protocol.NodeID, x protocol.NodeID) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
