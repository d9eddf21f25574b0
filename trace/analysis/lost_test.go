package analysis

import (
	"testing"

	"manetlab/protocol"
	"manetlab/trace"
)

// TestLostNotedByLeanLoad: check's lean load keeps no drops but notes
// each process's first weighed one, and names the same lost message as
// a read of the drops: the earliest first drop of a node, a node's later
// ones and hellos aside; a broadcast lost at a receiver is loss too (as
// the per-node budgets weigh it).
func TestLostNotedByLeanLoad(t *testing.T) {
	dir := t.TempDir()
	runHdr := header("r1", 0)
	runHdr.Scenario = "name: t\nnodes:\n  count: 4\n"
	writeEvents(t, trace.RunFile(dir), runHdr, trace.Event{T: 99, Ev: trace.EvEnd})
	drop := func(t int64, node, to protocol.NodeID, kind string) trace.Event {
		return trace.Event{T: t, Node: node, Ev: trace.EvDrop, To: to, Kind: kind, Seq: uint64(t)}
	}
	nodes := map[protocol.NodeID][]trace.Event{
		1: {drop(3, 1, 2, HelloKind), {T: 4, Node: 1, Ev: trace.EvDrop, From: 3, Kind: "probe", Seq: 4}, drop(7, 1, 3, "probe")},
		2: {drop(5, 2, 1, "token"), drop(4, 2, 3, "token")}, // its first weighed drop is at 5
		3: {drop(6, 3, 1, "reply")},
		4: {drop(5, 4, 2, "token")}, // ties with node 2: node 2's
	}
	for id, evs := range nodes {
		writeEvents(t, trace.NodeFile(dir, id), append([]trace.Event{header("r1", id)}, evs...)...)
	}
	l := &loader{dir: dir}
	lean, err := l.run(readCheck)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lean.procs[1:] {
		for _, e := range p.evs {
			if e.typ == tDrop {
				t.Fatalf("the lean load kept node %d's drop", p.id)
			}
		}
	}
	if l.loss == nil {
		t.Fatal("the lean load noted no drops: lost() would read the run again")
	}
	drops, err := (&loader{dir: dir}).run(readLoss)
	if err != nil {
		t.Fatal(err)
	}
	want := lostMessage(drops)
	if want != "node 1 lost 3's probe at 0.000s ("+trace.NodeFile(dir, 1)+":3)" {
		t.Fatalf("the drops' read names %q", want)
	}
	if got, err := l.lost(); err != nil || got != want {
		t.Errorf("after the lean load, lost() = %q, %v; want %q", got, err, want)
	}
}
