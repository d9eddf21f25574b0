package studio

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"manetlab/protocol"
	"manetlab/sim"
	"manetlab/trace"
)

// Violation is a schedule's violation (sim.Violation) as the page shows
// it: the witness's nodes (those it names as "node N"), the steps of the
// schedule's choices (the deliveries, drops, crashes that lead to it)
// and the offending messages (Causes).
type Violation struct {
	sim.Violation
	Nodes   []protocol.NodeID `json:"nodes"`
	Choices []int             `json:"choices"`
	// Causes are the messages that caused the violation, each at the
	// step that delivered or sent it: for a property that names nodes
	// (two leaders in one epoch, two nodes in the critical section, a
	// safety predicate), the last algorithm message delivered to each
	// witness node at or before the violating step, the one that led it
	// into the state the witness shows; for message-bound, the messages
	// sent over the bound the witness states.
	Causes []Cause `json:"causes"`
}

// Cause is one offending message.
type Cause struct {
	Step  int               `json:"step"`  // the history's step that delivered or sent it
	Nodes []protocol.NodeID `json:"nodes"` // the witness nodes it reached, or its sender
	Line  string            `json:"line"`  // what it carries, sender → receiver
	Why   string            `json:"why"`
}

var (
	witnessNode = regexp.MustCompile(`\bnodes? (\d+)`)
	// "27 election messages, above the worst case 26 (...)"
	overLimit = regexp.MustCompile(`^\d+ election messages, above the worst case (\d+)`)
	// "node 3 sent 4 ok messages, over its budget of 2", "node 3 sent
	// 3 ok messages to 5, over its budget of 1 to any one node", "node
	// 3 sent ok to 5, which its budget never allows"
	overBudget = regexp.MustCompile(`^node (\d+) sent (?:(\d+) )?(\S+?)(?: messages)?(?: to (\d+))?(?: before [^,]*)?, (?:over its budget of (\d+)|which its budget never allows)`)
)

func newViolation(sched *sim.Schedule) *Violation {
	if sched == nil || sched.Violation == nil {
		return nil
	}
	v := &Violation{Violation: *sched.Violation, Nodes: []protocol.NodeID{}, Choices: []int{}, Causes: []Cause{}}
	for _, m := range witnessNode.FindAllStringSubmatch(v.Witness, -1) {
		if id, err := strconv.ParseUint(m[1], 10, 32); err == nil && !slices.Contains(v.Nodes, protocol.NodeID(id)) {
			v.Nodes = append(v.Nodes, protocol.NodeID(id))
		}
	}
	for _, ch := range sched.Choices {
		v.Choices = append(v.Choices, ch.Step)
	}
	return v
}

// sent is an algorithm message sent, as the observer keeps them while a
// violation's causes are looked for.
type sent struct {
	step     int
	node, to protocol.NodeID
	kind     string
	line     string
}

// track keeps, for a violation's causes, the last algorithm message
// delivered to each node and every algorithm message sent (o.tracking).
func (o *observer) track(e *trace.Event, election bool) {
	if o.c == nil {
		return
	}
	step := o.c.Steps() - 1 // the history's step being taken
	switch e.Ev {
	case trace.EvRecv:
		if e.Kind != "" && e.Kind != "hello" && !protocol.IsTransport(e.Kind) {
			o.lastRecv[e.Node] = step
		}
	case trace.EvSend:
		what := cmp.Or(e.Text, e.Kind)
		line := fmt.Sprintf("%s: %d→%d", what, e.Node, e.To)
		if e.To == 0 {
			line = fmt.Sprintf("%s: %d→all", what, e.Node)
		}
		o.sends = append(o.sends, sent{step: step, node: e.Node, to: e.To, kind: e.Kind, line: line})
		if election {
			o.elections = append(o.elections, len(o.sends)-1)
		}
	}
}

// causes finds v's offending messages in what the observer kept, the
// history's lines naming the deliveries.
func (v *Violation) causes(o *observer, log []sim.Taken) {
	lineAt := func(step int) string {
		i, ok := slices.BinarySearchFunc(log, step, func(t sim.Taken, k int) int { return cmp.Compare(t.Step, k) })
		if !ok {
			return ""
		}
		return cmp.Or(log[i].Line, log[i].Text)
	}
	if m := overLimit.FindStringSubmatch(v.Witness); m != nil {
		limit, _ := strconv.Atoi(m[1])
		for i, j := range o.elections {
			if i >= limit {
				s := o.sends[j]
				v.Causes = append(v.Causes, Cause{Step: s.step, Nodes: []protocol.NodeID{s.node}, Line: s.line,
					Why: fmt.Sprintf("election message %d, over the worst case %d", i+1, limit)})
			}
		}
		return
	}
	if m := overBudget.FindStringSubmatch(v.Witness); m != nil {
		node, _ := strconv.ParseUint(m[1], 10, 32)
		to, _ := strconv.ParseUint(m[4], 10, 32)
		budget, never := strconv.Atoi(m[5])
		n := 0
		for _, s := range o.sends {
			if s.node != protocol.NodeID(node) || s.kind != m[3] || to != 0 && s.to != protocol.NodeID(to) {
				continue
			}
			n++
			switch {
			case never != nil:
				v.Causes = append(v.Causes, Cause{Step: s.step, Nodes: []protocol.NodeID{s.node}, Line: s.line, Why: fmt.Sprintf("%s to %d, which node %d's budget never allows", s.kind, s.to, s.node)})
			case n > budget:
				v.Causes = append(v.Causes, Cause{Step: s.step, Nodes: []protocol.NodeID{s.node}, Line: s.line, Why: fmt.Sprintf("node %d's %s message %d, over its budget of %d", s.node, s.kind, n, budget)})
			}
		}
		return
	}
	// A message that reached several witness nodes (a broadcast) is
	// one cause.
	for _, id := range v.Nodes {
		step, ok := o.lastRecv[id]
		if !ok {
			continue
		}
		if i := slices.IndexFunc(v.Causes, func(c Cause) bool { return c.Step == step }); i >= 0 {
			v.Causes[i].Nodes = append(v.Causes[i].Nodes, id)
			continue
		}
		v.Causes = append(v.Causes, Cause{Step: step, Nodes: []protocol.NodeID{id}, Line: lineAt(step)})
	}
	for i, c := range v.Causes {
		v.Causes[i].Why = "the last message delivered to nodes " + protocol.DescribeIDs(c.Nodes) + " before the violation"
		if len(c.Nodes) == 1 {
			v.Causes[i].Why = fmt.Sprintf("the last message delivered to node %d before the violation", c.Nodes[0])
		}
	}
	slices.SortFunc(v.Causes, func(a, b Cause) int { return cmp.Compare(a.Step, b.Step) })
}
