package brokentest

import (
	"fmt"
	"strings"
	"testing"

	"manetlab/bully"
	"manetlab/mutex"
	"manetlab/ring"
	"manetlab/sim/simtest"
	"manetlab/trace/analysis"
)

// layout is n nodes (values: their IDs) all in range of each other, static,
// on the ideal medium: the order of events is the algorithm's alone.
func layout(n int) string {
	return fmt.Sprintf("nodes: {count: %d, values: id, placement: grid}\nradio: {mac: ideal, range: 250}\nmobility: {model: static, area: [100, 100]}\n", n)
}

// property runs the scenario y with protocol alg and returns what
// analysis.Check (`trace check`) says of property name.
func property(t *testing.T, alg, y, name string) analysis.Property {
	t.Helper()
	dir, _ := simtest.RunYAML(t, alg, strings.ReplaceAll(y, "ALG", alg))
	chk, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range chk.Properties {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("%s: no property %s in %+v", alg, name, chk.Properties)
	return analysis.Property{}
}

// brokenAndCorrect requires property name invalid on the broken variant,
// with a witness whose text holds want, and valid on the correct algorithm
// on the same scenario.
func brokenAndCorrect(t *testing.T, broken, correct, y, name, want string) {
	t.Helper()
	p := property(t, broken, y, name)
	if p.Verdict != analysis.Invalid || len(p.Witnesses) == 0 || !strings.Contains(p.Witnesses[0].Text, want) {
		t.Fatalf("%s: %s is %s (%s), witnesses %+v; want invalid with a witness %q", broken, name, p.Verdict, p.Reason, p.Witnesses, want)
	}
	t.Logf("%s: %s invalid: %s", broken, name, p.Witnesses[0].Text)
	if p := property(t, correct, y, name); p.Verdict != analysis.Valid {
		t.Fatalf("%s on the same scenario: %s is %s (%s) %+v", correct, name, p.Verdict, p.Reason, p.Witnesses)
	}
}

// TestChangRobertsForwardsSmaller: on a ring of 3 where all initiate,
// every token goes round, so every node is elected in epoch 1: the check
// finds two leaders in one epoch. Chang-Roberts elects node 3 alone.
func TestChangRobertsForwardsSmaller(t *testing.T) {
	y := "name: cr\nseed: 1\nduration: 5s\n" + layout(3) + "protocol: {name: ALG, params: {ring: ascending, initiators: all}}\n"
	brokenAndCorrect(t, ChangRobertsForwardsSmaller, ring.ChangRoberts, y, analysis.PropEpochLeader, "the election by node 1 at 1.000 s has two leaders")
}

// TestBullyNoOKWait: node 3 leads from the first election; at 3 s node 1
// holds an election (a command). Asking nobody, it declares itself
// coordinator and nobody higher hears of it (no failure detector:
// check 0), so node 1 follows itself and 2 and 3 follow 3 to the end:
// the component has two leaders when it is judged. The textbook bully
// asks 2 and 3, and 3 wins again.
func TestBullyNoOKWait(t *testing.T) {
	y := "name: bully\nseed: 1\nduration: 25s\n" + layout(3) +
		"protocol: {name: ALG, params: {check: 0, rto: 100ms, retries: 3}}\n" +
		"workload:\n  - {at: 3s, node: 1, command: elect}\n"
	brokenAndCorrect(t, BullyNoOKWait, bully.Textbook, y, analysis.PropStableLeader, "node 1 follows 1")
}

// TestTokenRingRegenNoGeneration: node 1 holds the section from 2 s to 5 s,
// longer than token_timeout (1 s); node 2 asks at 2.5 s. The broken ring
// recreates the token when it misses it and lets node 2 in beside node 1.
// The real one's election dies at node 1, which holds the token, and
// node 2 enters after node 1 left.
func TestTokenRingRegenNoGeneration(t *testing.T) {
	y := "name: token\nseed: 1\nduration: 8s\n" + layout(3) +
		"protocol: {name: ALG, params: {ring: ascending, pass_delay: 50ms, rto: 100ms, retries: 3, regenerate: true, token_timeout: 1s}}\n" +
		"workload:\n  - {at: 2s, node: 1, command: request}\n  - {at: 2.5s, node: 2, command: request}\n" +
		"  - {at: 5s, node: 1, command: release}\n  - {at: 6s, node: 2, command: release}\n"
	brokenAndCorrect(t, TokenRingRegenNoGen, mutex.TokenRing, y, analysis.PropMutex, "nodes 1 and 2")
}

// TestRAEarly: node 1 holds the section from 2 s to 4 s; node 2 asks at
// 3 s. The broken Ricart-Agrawala replies at once and node 2 enters
// beside node 1; the real one defers the reply until node 1 leaves.
func TestRAEarly(t *testing.T) {
	y := "name: early\nseed: 1\nduration: 8s\n" + layout(3) + "protocol: {name: ALG}\n" +
		"workload:\n  - {at: 2s, node: 1, command: request}\n  - {at: 3s, node: 2, command: request}\n" +
		"  - {at: 4s, node: 1, command: release}\n  - {at: 5s, node: 2, command: release}\n"
	brokenAndCorrect(t, RAEarly, mutex.RicartAgrawala, y, analysis.PropMutex, "nodes 1 and 2")
}
