package mutex_test

import (
	"fmt"
	"strings"
	"testing"

	"manetlab/explore/brokentest"
	"manetlab/mutex"
	"manetlab/scenario"
	"manetlab/sim/simtest"
	"manetlab/trace/analysis"
	"manetlab/trace/report"
)

// The simulator tests run scenarios with explicit workloads on static,
// lossless networks and read the counts from the run's summary, which
// counts the messages each node originated (multi-hop relays and the
// channel's transport kinds apart).

// peerLayout is a static network of n nodes with IDs as values: all in range
// of each other, or a grid of cells 200 m wide at range 250 (multi-hop).
// ideal: the tests count messages per entry exactly and want no
// retransmission on a lossless network, which the DCF medium's collisions
// (repaired by the link and the channel) do not give.
func peerLayout(n int, multihop bool) string {
	area := "[100, 100]"
	if multihop {
		cols := 1
		for cols*cols < n {
			cols++
		}
		area = fmt.Sprintf("[%d, %d]", 200*cols, 200*((n+cols-1)/cols))
	}
	return fmt.Sprintf("nodes: {count: %d, values: id, placement: grid}\nradio: {mac: ideal, range: 250}\nmobility: {model: static, area: %s}\n", n, area)
}

// peerCmd is one workload command.
type peerCmd struct {
	at      float64 // seconds
	node    int
	command string
}

func peerScenario(name, alg string, n int, multihop bool, duration int, w []peerCmd) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\nseed: 1\nduration: %ds\n%sprotocol: {name: %s}\nworkload:\n", name, duration, peerLayout(n, multihop), alg)
	for _, c := range w {
		fmt.Fprintf(&b, "  - {at: %gs, node: %d, command: %s}\n", c.at, c.node, c.command)
	}
	return b.String()
}

// peerMutexProperty checks the run in dir and returns its mutual-exclusion
// property.
func peerMutexProperty(t *testing.T, dir string) analysis.Property {
	t.Helper()
	chk, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range chk.Properties {
		if p.Name == analysis.PropMutex {
			return p
		}
	}
	t.Fatalf("no %s property in %+v", analysis.PropMutex, chk.Properties)
	return analysis.Property{}
}

// oneAtATime is a light workload: every node in turn asks, holds the
// section 0.5 s and leaves, one at a time, then the last node asks twice
// more; with Suzuki-Kasami it still holds the token then.
func oneAtATime(n int) []peerCmd {
	var w []peerCmd
	t := 2.0
	ask := func(node int) {
		w = append(w, peerCmd{t, node, "request"}, peerCmd{t + 0.5, node, "release"})
		t++
	}
	for i := 1; i <= n; i++ {
		ask(i)
	}
	ask(n)
	ask(n)
	return w
}

// TestSimPeerCountsPerEntry: under light load each entry costs exactly
// 2(n-1) (Ricart-Agrawala), 3(n-1) (Lamport), or n for Suzuki-Kasami (0
// when the requester holds the token: node 1 at first, node n the second
// and third time), for n = 3, 5 and 8, in range and multi-hop, with no
// retransmission; and the checker finds the sections mutually exclusive.
func TestSimPeerCountsPerEntry(t *testing.T) {
	for _, alg := range []string{mutex.RicartAgrawala, mutex.Lamport, mutex.SuzukiKasami} {
		for _, n := range []int{3, 5, 8} {
			for _, multihop := range []bool{false, true} {
				what := fmt.Sprintf("%s n=%d multihop=%v", alg, n, multihop)
				entries := n + 2
				var want uint64
				kinds := map[string]uint64{}
				switch alg {
				case mutex.RicartAgrawala:
					want = uint64(entries * 2 * (n - 1))
					kinds["request"], kinds["reply"] = uint64(entries*(n-1)), uint64(entries*(n-1))
				case mutex.Lamport:
					want = uint64(entries * 3 * (n - 1))
					kinds["request"], kinds["reply"], kinds["release"] = uint64(entries*(n-1)), uint64(entries*(n-1)), uint64(entries*(n-1))
				case mutex.SuzukiKasami:
					// nodes 2..n pay n each; node 1 and node n's repeats 0
					want = uint64((n - 1) * n)
					kinds["request"], kinds["token"] = uint64((n-1)*(n-1)), uint64(n-1)
				}
				y := peerScenario("counts", alg, n, multihop, entries+4, oneAtATime(n))
				dir, sum := simtest.RunYAML(t, what, y)
				checkPeerCounts(t, what, sum, want, kinds)
				p := peerMutexProperty(t, dir)
				if p.Verdict != analysis.Valid || p.Checked != pairsAtDifferentNodes(n) {
					t.Fatalf("%s: %s %s (%d pairs checked), want valid over %d pairs: %+v", what, p.Name, p.Verdict, p.Checked, pairsAtDifferentNodes(n), p.Witnesses)
				}
			}
		}
	}
}

// pairsAtDifferentNodes is the pairs of sections the checker compares in
// oneAtATime(n): n+2 sections, the last three at node n.
func pairsAtDifferentNodes(n int) int {
	all := (n + 2) * (n + 1) / 2
	return all - 3 // the pairs among node n's three sections
}

func checkPeerCounts(t *testing.T, what string, sum *report.Summary, want uint64, kinds map[string]uint64) {
	t.Helper()
	if sum.Messages.Total != want {
		t.Fatalf("%s: %d algorithm messages, want %d; by kind %v", what, sum.Messages.Total, want, sum.Messages.ByKind)
	}
	for k, c := range kinds {
		if sum.Messages.ByKind[k] != c {
			t.Fatalf("%s: %d %q, want %d; by kind %v", what, sum.Messages.ByKind[k], k, c, sum.Messages.ByKind)
		}
	}
	if r := sum.Messages.ByKind["transport-retx"] + sum.Messages.ByKind[mutex.KindResend]; r != 0 {
		t.Fatalf("%s: %d retransmissions on a lossless network: %v", what, r, sum.Messages.ByKind)
	}
}

// allAtOnce: every node asks at the same instant; releases go to every
// node every half second (a release to a node not in the section is
// ignored), so the sections follow one another.
func allAtOnce(n int) []peerCmd {
	var w []peerCmd
	for i := 1; i <= n; i++ {
		w = append(w, peerCmd{2, i, "request"})
	}
	for k := range n {
		for i := 1; i <= n; i++ {
			w = append(w, peerCmd{3 + 0.5*float64(k), i, "release"})
		}
	}
	return w
}

// TestSimPeerConcurrentRequests: all nodes ask at once; every one enters
// once, the checker judges the sections mutually exclusive, and the counts
// per entry hold under contention too (Suzuki-Kasami: node 1 enters with
// the token it holds; the others pay n-1 requests and the token).
func TestSimPeerConcurrentRequests(t *testing.T) {
	for _, alg := range []string{mutex.RicartAgrawala, mutex.Lamport, mutex.SuzukiKasami} {
		for _, n := range []int{3, 5, 8} {
			for _, multihop := range []bool{false, true} {
				what := fmt.Sprintf("%s n=%d multihop=%v concurrent", alg, n, multihop)
				dir, sum := simtest.RunYAML(t, what, peerScenario("concurrent", alg, n, multihop, n+6, allAtOnce(n)))
				p := peerMutexProperty(t, dir)
				if p.Verdict != analysis.Valid || p.Checked != n*(n-1)/2 {
					t.Fatalf("%s: %s (%s), %d pairs checked, want valid over %d (every node once): %+v", what, p.Verdict, p.Reason, p.Checked, n*(n-1)/2, p.Witnesses)
				}
				want := map[string]uint64{mutex.RicartAgrawala: uint64(2 * n * (n - 1)), mutex.Lamport: uint64(3 * n * (n - 1)), mutex.SuzukiKasami: uint64(n * (n - 1))}[alg]
				checkPeerCounts(t, what, sum, want, nil)
			}
		}
	}
}

// earlyScenario: node 1 holds the section from 2 s to 4 s; node 2 asks
// at 3 s.
func earlyScenario(alg string) string {
	return peerScenario("early", alg, 3, false, 8, []peerCmd{{2, 1, "request"}, {3, 2, "request"}, {4, 1, "release"}, {5, 2, "release"}})
}

// TestCheckerCatchesRAEarlyReplies: a Ricart-Agrawala that replies while it
// holds the section lets node 2 in beside node 1; the checker finds the
// run invalid with a witness naming both. The correct algorithm on the
// same scenario is valid.
func TestCheckerCatchesRAEarlyReplies(t *testing.T) {
	dir, _ := simtest.RunYAML(t, "early", earlyScenario(brokentest.RAEarly))
	p := peerMutexProperty(t, dir)
	if p.Verdict != analysis.Invalid || p.Violations != 1 || len(p.Witnesses) != 1 {
		t.Fatalf("broken variant: %s (%s), %d violations, witnesses %+v", p.Verdict, p.Reason, p.Violations, p.Witnesses)
	}
	w := p.Witnesses[0]
	if !strings.Contains(w.Text, "nodes 1 and 2") {
		t.Fatalf("witness %q does not name nodes 1 and 2", w.Text)
	}
	nodes := map[uint32]bool{}
	for _, e := range w.Events {
		nodes[uint32(e.Node)] = true
	}
	if !nodes[1] || !nodes[2] || len(nodes) != 2 {
		t.Fatalf("witness events %+v, want events of nodes 1 and 2", w.Events)
	}
	dir, _ = simtest.RunYAML(t, "early", earlyScenario(mutex.RicartAgrawala))
	if p := peerMutexProperty(t, dir); p.Verdict != analysis.Valid || p.Checked != 1 {
		t.Fatalf("Ricart-Agrawala on the same scenario: %s (%s), %d pairs", p.Verdict, p.Reason, p.Checked)
	}
}

// TestSimPeerConfigs runs the shipped configs (the request generator at a
// light load, seed 1) and requires the counts their comments give: 11
// entries at 2(n-1), 3(n-1) and n (or 0 for the token's holder) messages,
// and a valid check.
func TestSimPeerConfigs(t *testing.T) {
	for alg, want := range map[string]struct {
		total uint64
		kinds map[string]uint64
	}{
		"ricart-agrawala": {154, map[string]uint64{"request": 77, "reply": 77}},
		"lamport":         {231, map[string]uint64{"request": 77, "reply": 77, "release": 77}},
		"suzuki-kasami":   {80, map[string]uint64{"request": 70, "token": 10}},
	} {
		s, err := scenario.Load("../configs/mutex-"+alg+".yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Workload.Generating() {
			t.Fatalf("%s: the config does not use the request generator", alg)
		}
		dir, sum := simtest.Run(t, s)
		checkPeerCounts(t, alg, sum, want.total, want.kinds)
		chk, err := analysis.Check(dir, analysis.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p := peerMutexProperty(t, dir); chk.Invalid() || p.Verdict != analysis.Valid || p.Checked != 51 {
			t.Fatalf("%s: check %+v", alg, chk.Properties)
		}
		m, err := analysis.ComputeMetrics(dir, analysis.MetricsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if mx := m.Mutex; mx == nil || mx.Entries != 11 || mx.Requests != 11 || mx.WaitingAtEnd != 0 {
			t.Fatalf("%s: mutex metrics %+v, want 11 requests, all entered", alg, mx)
		}
	}
}
