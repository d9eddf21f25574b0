package analysis

import (
	"fmt"
	"slices"
	"strings"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/trace"
)

// PropSync is the property of round protocols (package protocol/rounds):
// the synchronizer kept its rounds and the algorithm halted everywhere.
const PropSync = "synchronizer"

// roundsEvents are the events the round analysis reads.
func roundsEvents(ev string) bool {
	switch typeOf(ev) {
	case tSync, tRound, tSafe, tLate, tSend, tStart, tCrash, tRecover, tEnd:
		return true
	}
	return false
}

// roundsNode is what one node's notes say of its rounds.
type roundsNode struct {
	id        protocol.NodeID
	sync      string // the synchronizer its sync note names
	nbrs      []protocol.NodeID
	parent    protocol.NodeID // beta's tree; None for the root or unknown
	inTree    bool
	last      int    // the last round it ran
	state     string // after its last round: asleep, running, halted
	haltRound int
	active    int // the last round it sent in or ended running
	awake     bool
	safe      int // the last round it was safe for
	sent      uint64
	first     int64 // time of its round 1 (-1: none)
	lastT     int64
	lates     []*event
	down      bool // crashed, not recovered, at the end
	downAt    *event
}

// roundsRun is a run of a round protocol as its notes tell it.
type roundsRun struct {
	r     *run
	sync  string
	nodes []*roundsNode // by ID
	byID  map[protocol.NodeID]*roundsNode
	// sends by class
	carriers, sync_, tree, hello, transport uint64
	syncByKind                              map[string]uint64
}

func loadRounds(l *loader) (*roundsRun, error) {
	r, err := l.run(readRounds)
	if err != nil {
		return nil, err
	}
	rr := &roundsRun{r: r, byID: map[protocol.NodeID]*roundsNode{}, syncByKind: map[string]uint64{}}
	for _, pr := range r.procs[1:] {
		n := &roundsNode{id: pr.id, first: -1}
		rr.nodes = append(rr.nodes, n)
		rr.byID[pr.id] = n
		for i := range pr.evs {
			e := &pr.evs[i]
			text := r.strs.Strs[e.text]
			switch e.typ {
			case tSync:
				_, rest, _ := strings.Cut(text, " ")
				if name, nbrs, ok := rounds.ParseSyncNote(text); ok {
					n.sync, n.nbrs = name, nbrs
					rr.sync = name
				} else if v, ok := strings.CutPrefix(rest, "tree parent="); ok {
					ids := rounds.ParseIDs(v)
					n.inTree = true
					if len(ids) == 1 {
						n.parent = ids[0]
					}
				}
			case tRound:
				var round, sent int
				var state string
				if _, err := fmt.Sscanf(text, "round %d sent=%d state=%s", &round, &sent, &state); err != nil {
					r.problems = append(r.problems, trace.Problem{File: r.files[e.file], Line: int(e.line), Msg: "round note: " + err.Error()})
					continue
				}
				n.last, n.state = max(n.last, round), state
				n.sent += uint64(sent)
				if sent > 0 || state == "running" {
					n.active = max(n.active, round)
				}
				if state != "asleep" {
					n.awake = true
				}
				if state == "halted" {
					n.haltRound = round
				}
				if n.first < 0 {
					n.first = e.t
				}
				n.lastT = e.t
			case tSafe:
				var round int
				fmt.Sscanf(r.strs.Strs[e.epoch], "%d", &round)
				n.safe = max(n.safe, round)
			case tLate:
				n.lates = append(n.lates, e)
			case tSend:
				kind := r.strs.Strs[e.kind]
				switch {
				case protocol.IsTransport(kind):
					rr.transport++
				case kind == rounds.KindHello:
					rr.hello++
				case rounds.IsTree(kind):
					rr.tree++
					rr.syncByKind[kind]++
				case rounds.IsSync(kind):
					rr.sync_++
					rr.syncByKind[kind]++
				default:
					rr.carriers++
				}
			}
		}
	}
	for _, e := range r.procs[0].evs {
		if n := rr.byID[e.node]; n != nil && (e.typ == tCrash || e.typ == tRecover) {
			n.down = e.typ == tCrash
			if n.down {
				ev := e
				n.downAt = &ev
			}
		}
	}
	return rr, nil
}

// stall describes where the rounds stopped, or "" when every live node
// that woke has halted (or the run is not a round run).
func (rr *roundsRun) stall() (round int, stuck, unsafe, down []protocol.NodeID, text string) {
	if rr.sync == rounds.None {
		return 0, nil, nil, nil, "" // no synchronizer, nothing to stall
	}
	woke := false
	for _, n := range rr.nodes {
		woke = woke || n.awake
	}
	round = -1
	for _, n := range rr.nodes {
		if n.down {
			down = append(down, n.id)
			continue
		}
		if n.haltRound > 0 || (!n.awake && woke && rr.allAwakeHalted()) {
			continue
		}
		if round < 0 || n.last < round {
			round = n.last
		}
	}
	if round < 0 {
		return 0, nil, nil, down, ""
	}
	for _, n := range rr.nodes {
		if n.down {
			continue
		}
		if n.haltRound == 0 && n.last == round {
			stuck = append(stuck, n.id)
		}
		// A node that halted in round r or later but whose envelopes of
		// round r were never acknowledged (the link to a neighbour broke)
		// is as unsafe as a live one: its neighbours wait for its safe.
		if (rr.sync == rounds.Alpha || rr.sync == rounds.Beta) && n.last >= round && n.safe < round {
			unsafe = append(unsafe, n.id)
		}
	}
	text = fmt.Sprintf("stalled at round %d: node(s) %s never started round %d", round, protocol.DescribeIDs(stuck), round+1)
	if round == 0 && rr.sync == rounds.Beta {
		text += " (beta's spanning tree was never complete)"
	}
	if len(unsafe) > 0 {
		text += fmt.Sprintf("; node(s) %s never became safe for round %d", protocol.DescribeIDs(unsafe), round)
	}
	if len(down) > 0 {
		text += fmt.Sprintf("; node(s) %s crashed", protocol.DescribeIDs(down))
	}
	return round, stuck, unsafe, down, text
}

// allAwakeHalted reports that every live node that woke has halted.
func (rr *roundsRun) allAwakeHalted() bool {
	for _, n := range rr.nodes {
		if !n.down && n.awake && n.haltRound == 0 {
			return false
		}
	}
	return true
}

// checkSync judges a round protocol's run: invalid when a message came
// after its round (abd's bound broken), stalled when live nodes were left
// mid-round with their algorithm running, valid when every live node that
// woke halted.
func checkSync(l *loader) Property {
	p := Property{Name: PropSync}
	rr, err := loadRounds(l)
	if err != nil {
		p.Verdict, p.Reason = Unknown, err.Error()
		return p
	}
	if rr.sync == "" {
		p.Verdict, p.Reason = Unknown, "no node noted its synchronizer (a run too short to settle?)"
		return p
	}
	for _, n := range rr.nodes {
		p.Checked += n.last
		for _, e := range n.lates {
			p.Violations++
			if len(p.Witnesses) < maxWitnesses {
				text := rr.r.strs.Strs[e.text]
				p.Witnesses = append(p.Witnesses, Witness{
					Text:   fmt.Sprintf("node %d: %s", n.id, text),
					Events: []WitnessEvent{rr.r.witnessEvent(e, text)},
				})
			}
		}
	}
	if p.Violations > 0 {
		p.Verdict = Invalid
		p.Reason = fmt.Sprintf("%d message(s) arrived after the round they were sent for had ended at the receiver: the %s synchronizer's assumption broke", p.Violations, rr.sync)
		return p
	}
	if rr.sync == rounds.None {
		p.Verdict = Unknown
		p.Reason = "no synchronizer (none): a node runs a round per envelope that arrives, so rounds are local and an algorithm that waits for rounds may never halt; not judged"
		return p
	}
	if _, stuck, unsafe, down, text := rr.stall(); text != "" {
		p.Verdict, p.Reason = Stalled, text
		for _, id := range append(append(slices.Clone(stuck), unsafe...), down...) {
			if len(p.Witnesses) >= maxWitnesses {
				break
			}
			p.Witnesses = append(p.Witnesses, rr.stallWitness(id))
		}
		return p
	}
	p.Verdict = Valid
	p.Reason = fmt.Sprintf("every live node that woke halted (%s synchronizer)", rr.sync)
	return p
}

// stallWitness shows one node's last round note (or its crash).
func (rr *roundsRun) stallWitness(id protocol.NodeID) Witness {
	n := rr.byID[id]
	if n.down && n.downAt != nil {
		return Witness{Text: fmt.Sprintf("node %d crashed after round %d", id, n.last), Events: []WitnessEvent{rr.r.witnessEvent(n.downAt, "")}}
	}
	w := Witness{Text: fmt.Sprintf("node %d ran round %d last", id, n.last)}
	switch {
	case n.last == 0 && rr.sync == rounds.Beta:
		w.Text = fmt.Sprintf("node %d never ran a round: beta's spanning tree was never complete", id)
	case n.last == 0:
		w.Text = fmt.Sprintf("node %d never ran a round", id)
	case rr.sync == rounds.Alpha || rr.sync == rounds.Beta:
		w.Text += fmt.Sprintf(" (safe for round %d)", n.safe)
	}
	pr := rr.r.byID[id]
	for i := len(pr.evs) - 1; i >= 0; i-- {
		if pr.evs[i].typ == tRound {
			w.Events = append(w.Events, rr.r.witnessEvent(&pr.evs[i], rr.r.strs.Strs[pr.evs[i].text]))
			break
		}
	}
	return w
}
