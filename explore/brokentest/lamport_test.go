package brokentest

import (
	"testing"

	"manetlab/mutex"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/analysis"
)

// lamportRace runs 3 static nodes in range (flooding) where nodes 1 and 3
// ask for the section at 2 s, both with timestamp 1: node 1's request
// comes first (ties go to the lower ID). It holds node 1's request to
// node 3 back until node 2's reply to node 3 has arrived (an order the
// asynchronous network allows: the radio's delay is only an upper
// bound), and runs the rest in the simulator's order. It returns what
// analysis.Check (`trace check`) says of mutual-exclusion.
func lamportRace(t *testing.T, alg string) analysis.Property {
	t.Helper()
	y := "name: race\nseed: 1\nduration: 6s\n" + layout(3) + "routing: {protocol: flood}\nprotocol: {name: " + alg + "}\n" +
		"workload:\n  - {at: 2s, node: 1, command: request}\n  - {at: 2s, node: 3, command: request}\n" +
		"  - {at: 3s, node: 1, command: release}\n  - {at: 4s, node: 3, command: release}\n"
	s, err := scenario.Parse([]byte(y), "race.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c, err := sim.NewController(s, sim.Options{Out: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	held := func(p sim.Pending) bool {
		return p.Type == "deliver" && p.Msg == "request" && (p.Origin == 1 || p.From == 1) && (p.Final == 3 || p.To == 3)
	}
	for done := false; !done; {
		var next *sim.Pending
		for _, p := range c.Pending() {
			if !p.Offered || held(p) {
				continue
			}
			if p.Type == "deliver" && p.Msg == "reply" && (p.Final == 3 || p.To == 3) {
				next, done = &p, true
				break
			}
			if next == nil {
				next = &p
			}
		}
		if next == nil {
			t.Fatal("nothing to take before node 2's reply reached node 3")
		}
		if err := c.Take(next.Seq); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	chk, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range chk.Properties {
		if p.Name == analysis.PropMutex {
			return p
		}
	}
	t.Fatalf("no %s in %+v", analysis.PropMutex, chk.Properties)
	return analysis.Property{}
}

// TestLamportOneShort: node 3, with node 2's reply and its own request
// heading its queue (node 1's earlier one still on its way), enters one
// reply short; node 1 enters on node 2's reply too: both are in the
// section. Lamport's node 3 waits for node 1's reply, which comes after
// node 1's request, and enters after node 1 left.
func TestLamportOneShort(t *testing.T) {
	p := lamportRace(t, LamportOneShort)
	if p.Verdict != analysis.Invalid || len(p.Witnesses) == 0 {
		t.Fatalf("%s: %s %s (%s); want invalid", LamportOneShort, p.Name, p.Verdict, p.Reason)
	}
	t.Logf("%s: %s", LamportOneShort, p.Witnesses[0].Text)
	if p := lamportRace(t, mutex.Lamport); p.Verdict != analysis.Valid {
		t.Fatalf("%s in the same order: %s %s (%s) %+v", mutex.Lamport, p.Name, p.Verdict, p.Reason, p.Witnesses)
	}
}
