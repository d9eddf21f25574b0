package synchronous

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// BFSName is the BFS tree's protocol name.
const BFSName = "sync/bfs"

// BFS is the tree of seed 000 on the radio graph at the start: the root
// (protocol.params.root, by default the lowest member) sends an invitation
// to every neighbour at its wake round; a node adopts the first inviter as
// its parent (of several in one round, the lowest ID: the order in which
// a round delivers them), takes the inviter's depth plus one, invites
// every other neighbour and halts; later invitations are ignored (dropped,
// as the node has halted). With synchronous rounds the tree is a BFS tree:
// a node's depth is its hop distance from the root. Each node notes its
// parent (protocol.NoteParent, Leader the parent, None at the root, Text
// "depth D") and the root as its leader (protocol.GoalTree). A node not
// invited n-1 rounds after it woke (it is not in the root's component)
// halts without a parent: the tree assumes the root wakes no later than
// the others (the default, every member at round 1).
var BFS = rounds.Family[Msg]{
	Name:    BFSName,
	Summary: "BFS tree (seed 000): invitations from a root, the first inviter becomes the parent; a BFS tree over synchronous rounds",
	Graph:   rounds.GraphRadio,
	Goal:    protocol.GoalTree,
	New: func(ctx rounds.Context, p *protocol.ParamReader) (rounds.Algorithm[Msg], error) {
		root, err := bfsRoot(p, ctx.Members)
		if err != nil {
			return nil, err
		}
		return &bfs{ctx: ctx, root: root}, nil
	},
	Theory: func(members []protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) (rounds.Theory, error) {
		if _, err := bfsRoot(params.Reader(), members); err != nil {
			return rounds.Theory{}, err
		}
		return BFSBound(len(members)), nil
	},
	TheoryGraph: func(neighbors map[protocol.NodeID][]protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) (rounds.Theory, error) {
		members := make([]protocol.NodeID, 0, len(neighbors))
		for id := range neighbors {
			members = append(members, id)
		}
		slices.Sort(members)
		root, err := bfsRoot(params.Reader(), members)
		if err != nil {
			return rounds.Theory{}, err
		}
		// BFSTheory is exact when every member wakes at round 1 or only
		// the root does (the others woken by invitations); else the bound.
		allAwake, rootOnly := true, wake[root] == 1
		for _, id := range members {
			allAwake = allAwake && wake[id] == 1
			rootOnly = rootOnly && (id == root || wake[id] == 0)
		}
		if !allAwake && !rootOnly {
			return BFSBound(len(members)), nil
		}
		th, _ := BFSTheory(neighbors, root, allAwake)
		return th, nil
	},
}

// bfsRoot reads protocol.params.root: a member, by default the lowest.
func bfsRoot(p *protocol.ParamReader, members []protocol.NodeID) (protocol.NodeID, error) {
	if len(members) == 0 {
		return protocol.None, fmt.Errorf("%s: no members", BFSName)
	}
	v, ok := p.Any("root")
	if !ok {
		return members[0], nil
	}
	id, isID := protocol.NodeIDOf(v)
	if _, member := slices.BinarySearch(members, id); !isID || !member {
		want := "a member of the run (members: " + protocol.DescribeIDs(members) + ")"
		p.Reject("root", v, want)
		return protocol.None, fmt.Errorf("protocol.params.root: %v is not %s", v, want)
	}
	return id, nil
}

// DepthText is the Text of a parent note: "depth D".
func DepthText(d int) string { return "depth " + strconv.Itoa(d) }

// ParseDepth reads the depth from a parent note's Text; ok is false when
// the text is not DepthText's.
func ParseDepth(text string) (int, bool) {
	s, found := strings.CutPrefix(text, "depth ")
	if !found {
		return 0, false
	}
	d, err := strconv.Atoi(s)
	return d, err == nil && d >= 0
}

type bfs struct {
	ctx    rounds.Context
	root   protocol.NodeID
	wake   int
	halted bool
}

func (b *bfs) Start(r int, spontaneous bool) { b.wake = r }

func (b *bfs) Halted() bool { return b.halted }

func (b *bfs) Round(r int, in []rounds.In[Msg]) []rounds.Out[Msg] {
	if b.ctx.ID == b.root {
		b.adopt(protocol.None, 0)
		return b.invite(protocol.None, 1)
	}
	n := len(b.ctx.Members)
	for _, m := range in {
		if m.Msg.Type != TypeInvite || m.Msg.ID != b.root || m.Msg.Depth < 1 || int(m.Msg.Depth) >= max(n, 2) {
			continue // not an invitation of this tree, or an impossible depth: ignored
		}
		b.adopt(m.From, int(m.Msg.Depth))
		return b.invite(m.From, m.Msg.Depth+1)
	}
	if r >= b.wake+n-1 { // every member of the root's component is invited by now
		b.halted = true
	}
	return nil
}

// adopt notes parent (None at the root) at depth d and the root as leader.
func (b *bfs) adopt(parent protocol.NodeID, d int) {
	note(b.ctx, protocol.Note{Kind: protocol.NoteParent, Leader: parent, Text: DepthText(d)})
	follow(b.ctx, b.root)
	b.halted = true
}

// invite sends an invitation at depth d to every neighbour but parent.
func (b *bfs) invite(parent protocol.NodeID, d uint32) []rounds.Out[Msg] {
	var out []rounds.Out[Msg]
	for _, nb := range b.ctx.Neighbors {
		if nb != parent && nb != b.ctx.ID {
			out = append(out, rounds.Out[Msg]{To: nb, Msg: Msg{Type: TypeInvite, ID: b.root, Depth: d}})
		}
	}
	return out
}

// staticNoFaults is when BFSTheory's count is exact: the graph at the
// start stays the graph (no node moves) and no node crashes or recovers.
var staticNoFaults = &protocol.Conditions{NoFaults: true, Static: true}

// BFSBound is the BFS tree's complexity knowing only n (Family.Theory is
// given no graph): at most (n-1)² messages (2|E|-(n-1) ≤ n(n-1)-(n-1)) and
// n rounds (the eccentricity of the root plus one ≤ n). BFSTheory is exact.
func BFSBound(n int) rounds.Theory {
	m := max(n-1, 0) * max(n-1, 0)
	return rounds.Theory{
		Rounds: protocol.Bound{Name: "BFS: at most n rounds (the root's eccentricity + 1)", Formula: "n",
			Value: float64(n), Worst: intp(n)},
		Messages: protocol.Bound{Name: "BFS: at most (n-1)² invitations (2|E|-(n-1) on a complete graph)", Formula: "(n-1)^2",
			Value: float64(m), Worst: intp(m), WorstIf: protocol.NoFaults},
	}
}

// BFSTheory is the BFS tree's exact complexity on the radio graph at the
// start (neighbors: each member's neighbours) from root, every member
// awake by the root's wake round 1 (the default) or woken by its
// invitation. Messages: the root invites its deg(root) neighbours and
// every other node of its component its deg(v)-1 others:
// 2|E_c|-(n_c-1) for the root's component (n_c nodes, E_c edges).
// Rounds: the root's eccentricity e in its component, plus one when a node
// at distance e has a neighbour besides its parent (it sends invitations
// in round e+1), and at least n-1 when allAwake and some member is outside
// the root's component (awake from round 1, it runs n-1 rounds, then
// halts). Depths: the hop distances, also
// returned.
func BFSTheory(neighbors map[protocol.NodeID][]protocol.NodeID, root protocol.NodeID, allAwake bool) (rounds.Theory, map[protocol.NodeID]int) {
	dist := Hops(neighbors, root)
	msgs, ecc, extra := 0, 0, false
	for v, d := range dist {
		deg := len(neighbors[v])
		if v == root {
			msgs += deg
		} else {
			msgs += deg - 1
		}
		ecc = max(ecc, d)
	}
	for v, d := range dist {
		if d == ecc && ecc > 0 && len(neighbors[v]) >= 2 {
			extra = true
		}
	}
	rnds := ecc
	if extra {
		rnds++
	}
	if allAwake && len(dist) < len(neighbors) {
		rnds = max(rnds, len(neighbors)-1)
	}
	return rounds.Theory{
		Rounds: protocol.Bound{Name: "BFS: the root's eccentricity e (+1 when a node at distance e has another neighbour)",
			Formula: "e or e+1", Value: float64(rnds), Exact: intp(rnds)},
		Messages: protocol.Bound{Name: "BFS: every invited node invites its neighbours but its parent", Formula: "2|E|-(n-1)",
			Value: float64(msgs), Exact: intp(msgs), ExactIf: staticNoFaults},
	}, dist
}

// Hops is the hop distance from root of every node it reaches in the graph
// neighbors.
func Hops(neighbors map[protocol.NodeID][]protocol.NodeID, root protocol.NodeID) map[protocol.NodeID]int {
	dist := map[protocol.NodeID]int{root: 0}
	queue := []protocol.NodeID{root}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range neighbors[v] {
			if _, ok := dist[u]; !ok {
				dist[u] = dist[v] + 1
				queue = append(queue, u)
			}
		}
	}
	return dist
}
