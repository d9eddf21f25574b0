package brokentest

import (
	"strings"
	"testing"

	"manetlab/adhoc"
	"manetlab/bully"
	"manetlab/mutex"
	"manetlab/protocol"
	"manetlab/ring"
	"manetlab/sim/simtest"
	"manetlab/trace/analysis"
)

// TestHSRelaysPast: on a static lossless ring of 4 (ascending) where every node
// initiates, Hirschberg-Sinclair sends exactly HirschbergSinclairCount
// messages in every order; the variant relaying one hop past its phase's
// distance elects the same leader with more (a count-only bug: what it
// breaks is the declared count, judged by the bound).
func TestHSRelaysPast(t *testing.T) {
	y := "name: hs\nseed: 1\nduration: 5s\n" + layout(4) + "protocol: {name: ALG, params: {ring: ascending, initiators: all}}\n"
	exact := ring.HirschbergSinclairCount([]protocol.NodeID{1, 2, 3, 4})
	count := func(alg string) uint64 {
		_, sum := simtest.RunYAML(t, alg, strings.ReplaceAll(y, "ALG", alg))
		if sum.Complexity == nil {
			t.Fatalf("%s: no complexity in the summary", alg)
		}
		if p := property(t, alg, y, analysis.PropEpochLeader); p.Verdict != analysis.Valid {
			t.Fatalf("%s: %s is %s (%s)", alg, p.Name, p.Verdict, p.Reason)
		}
		return sum.Complexity.Messages
	}
	if got := count(ring.HirschbergSinclair); got != uint64(exact) {
		t.Fatalf("%s: %d messages, want exactly %d", ring.HirschbergSinclair, got, exact)
	}
	if got := count(HSRelaysPast); got <= uint64(exact) {
		t.Fatalf("%s: %d messages, want more than %d", HSRelaysPast, got, exact)
	} else {
		t.Logf("%s: %d messages, the algorithm's exact count %d", HSRelaysPast, got, exact)
	}
}

// TestRATiesYield: three nodes ask at once, with equal timestamps; the
// variant yields every tie, so every node replies to every other and all
// enter together.
func TestRATiesYield(t *testing.T) {
	y := "name: ties\nseed: 1\nduration: 8s\n" + layout(3) + "protocol: {name: ALG}\n" +
		"workload:\n  - {at: 2s, node: 1, command: request}\n  - {at: 2s, node: 2, command: request}\n  - {at: 2s, node: 3, command: request}\n" +
		"  - {at: 3s, node: 1, command: release}\n  - {at: 4s, node: 2, command: release}\n  - {at: 5s, node: 3, command: release}\n"
	brokenAndCorrect(t, RATiesYield, mutex.RicartAgrawala, y, analysis.PropMutex, "critical section")
}

// TestSKNoLN: every node asks twice (the generator releases the section
// 100 ms after each entry); the variant's token, whose LN never
// records the holder's requests, goes back to a node that no longer wants
// it, which refuses it: requests are left waiting at the end, while
// Suzuki-Kasami grants every one.
func TestSKNoLN(t *testing.T) {
	y := "name: sk\nseed: 1\nduration: 8s\n" + layout(3) + "protocol: {name: ALG}\n" +
		"workload:\n  rate: 0\n  hold: 100ms\n  commands:\n" +
		"    - {at: 1s, node: 1, command: request}\n    - {at: 1s, node: 2, command: request}\n    - {at: 1s, node: 3, command: request}\n" +
		"    - {at: 3s, node: 1, command: request}\n    - {at: 3s, node: 2, command: request}\n    - {at: 3s, node: 3, command: request}\n"
	granted := func(alg string) (req, got int) {
		_, sum := simtest.RunYAML(t, alg, strings.ReplaceAll(y, "ALG", alg))
		if sum.Mutex == nil {
			t.Fatalf("%s: no mutex figures", alg)
		}
		return sum.Mutex.Requests, sum.Mutex.Granted
	}
	if req, got := granted(mutex.SuzukiKasami); req != 6 || got != 6 {
		t.Fatalf("%s: %d of %d requests granted, want 6 of 6", mutex.SuzukiKasami, got, req)
	}
	if p := property(t, mutex.SuzukiKasami, y, analysis.PropGranted); p.Verdict != analysis.Valid {
		t.Fatalf("%s: %s is %s (%s)", mutex.SuzukiKasami, p.Name, p.Verdict, p.Reason)
	}
	req, got := granted(SKNoLN)
	if got >= req {
		t.Fatalf("%s: %d of %d requests granted: want some starved", SKNoLN, got, req)
	}
	p := property(t, SKNoLN, y, analysis.PropGranted)
	if p.Verdict == analysis.Valid {
		t.Fatalf("%s: %s valid with %d of %d requests granted", SKNoLN, p.Name, got, req)
	}
	t.Logf("%s: %d of %d requests granted; %s %s (%s)", SKNoLN, got, req, p.Name, p.Verdict, p.Reason)
}

// TestBullyKeepsLead: node 3 is down from the start (crashed at 0) and
// node 2 leads from about 1 s; node 3 recovers at 3 s and announces itself. The variant's
// node 2 ignores it and keeps leading while node 1 follows 3; the textbook
// bully's node 2 follows 3.
func TestBullyKeepsLead(t *testing.T) {
	y := "name: bully\nseed: 1\nduration: 25s\n" + layout(3) +
		"protocol: {name: ALG, params: {initiators: [1, 2], start: 100ms, timeout: 300ms, check: 0, rto: 100ms, retries: 3}}\n" +
		"faults:\n  - {at: 0s, crash: [3]}\n  - {at: 3s, recover: [3]}\n"
	brokenAndCorrect(t, BullyKeepsLead, bully.Textbook, y, analysis.PropStableLeader, "node 2 follows 2")
}

// TestVasudevanLowerLeader: four nodes plan an election at boot; the
// variant's computation ranks its subtree's best upside down and elects a
// lower node than the best, which every node follows to the end.
func TestVasudevanLowerLeader(t *testing.T) {
	y := "name: tree\nseed: 1\nduration: 25s\n" + layout(4) +
		"protocol: {name: ALG, params: {start_delay: 100ms, child_timeout: 100ms, probe_period: 200ms}}\n"
	brokenAndCorrect(t, VasudevanLowerLeader, adhoc.Name, y, analysis.PropStableLeader, "follows")
}
