package main

import (
	"encoding/json"
	"testing"

	"manetlab/node/netnstest"
	"manetlab/trace/report"
)

// runRingJSON runs `manetlab CMD configs/ring-chang-roberts.yaml` with
// extra flags and decodes the summary.
func runRingJSON(t *testing.T, cmd string, extra ...string) *report.Summary {
	t.Helper()
	args := append([]string{cmd, "../../configs/ring-chang-roberts.yaml", "--json", "--out", t.TempDir(), "--quiet", "--set", "duration=5s"}, extra...)
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var sum report.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return &sum
}

// TestRingRealProcessesCountLikeSim runs the Chang-Roberts config as real
// node processes over UDP multicast: the summary shows the same counts as
// sim on the static lossless ring; with 20 % loss the right leader still
// wins, the election's count is unchanged and the repairs are transport or
// link retransmissions.
func TestRingRealProcessesCountLikeSim(t *testing.T) {
	if findCommand(newApp().Commands, "node") == nil {
		t.Skip("no node command in this build")
	}
	want := runRingJSON(t, "sim")
	if want.Complexity == nil || want.Complexity.Bound.Exact == nil || want.Verdict != "valid" {
		t.Fatalf("sim summary %+v", want)
	}
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	useHelper(t, "main")
	got := runRingJSON(t, "run")
	if !judgedOrTooShort(got.Verdict, got.Reason) || got.Complexity == nil {
		t.Fatalf("run summary %+v", got)
	}
	g, w := got.Complexity, want.Complexity
	if g.Messages != w.Messages || g.Announce != w.Announce || g.Elections != 1 || *g.Bound.Exact != *w.Bound.Exact {
		t.Fatalf("run counts %d election + %d announcement (%d elections), sim %d + %d; exact %d",
			g.Messages, g.Announce, g.Elections, w.Messages, w.Announce, *w.Bound.Exact)
	}
	// With loss the announcement may need several retransmissions
	// (200 ms doubling) to reach the last node: 12 s leaves room for that
	// on a loaded machine; the counts do not depend on the duration.
	lossy := runRingJSON(t, "run", "--set", "radio.loss.model=bernoulli", "--set", "radio.loss.p=0.2", "--set", "duration=12s")
	if !judgedOrTooShort(lossy.Verdict, lossy.Reason) || lossy.Complexity == nil {
		t.Fatalf("lossy run summary %+v", lossy)
	}
	if lossy.Complexity.Messages != w.Messages || lossy.Complexity.Announce != w.Announce {
		t.Errorf("with loss: %d election + %d announcement messages, want %d + %d (repairs belong to transport)",
			lossy.Complexity.Messages, lossy.Complexity.Announce, w.Messages, w.Announce)
	}
	// Under AODV (the default) every hop is acknowledged and retransmitted
	// by the link, which repairs most losses below the channel.
	if lossy.Messages.ByKind["transport-retx"]+lossy.Messages.LinkRetx == 0 {
		t.Errorf("with 20%% loss no retransmission was counted: %v, %d link retransmissions", lossy.Messages.ByKind, lossy.Messages.LinkRetx)
	}
	t.Logf("sim: %d+%d; run: %d+%d, transport %d; lossy run: %d+%d, transport %d (%v)",
		w.Messages, w.Announce, g.Messages, g.Announce, got.Messages.Transport,
		lossy.Complexity.Messages, lossy.Complexity.Announce, lossy.Messages.Transport, lossy.Messages.ByKind)
}

// TestRingRealProcessesOverAODV runs the Chang-Roberts config as real node
// processes with routing.protocol: aodv: the same counts as sim, every
// message delivered over its one hop, and route requests and replies on
// the wire (trace report's routing section).
func TestRingRealProcessesOverAODV(t *testing.T) {
	if findCommand(newApp().Commands, "node") == nil {
		t.Skip("no node command in this build")
	}
	want := runRingJSON(t, "sim", "--set", "routing.protocol=aodv")
	if want.Complexity == nil || want.Complexity.Bound.Exact == nil || want.Verdict != "valid" {
		t.Fatalf("sim summary %+v", want)
	}
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	useHelper(t, "main")
	dir := t.TempDir()
	out, err := runCLI(t, "run", "../../configs/ring-chang-roberts.yaml", "--json", "--out", dir, "--quiet",
		"--set", "duration=5s", "--set", "routing.protocol=aodv")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got report.Summary
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !judgedOrTooShort(got.Verdict, got.Reason) || got.Complexity == nil || got.Complexity.Messages != want.Complexity.Messages {
		t.Fatalf("run summary %s %+v, sim %+v", got.Verdict, got.Complexity, want.Complexity)
	}
	rep, err := runCLI(t, "trace", "report", dir, "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
	var m struct {
		Routing *struct {
			Messages   uint64 `json:"messages"`
			Delivered  uint64 `json:"delivered"`
			DataFrames uint64 `json:"data_frames"`
			RREQ       uint64 `json:"rreq"`
			RREP       uint64 `json:"rrep"`
		} `json:"routing"`
	}
	if err := json.Unmarshal([]byte(rep), &m); err != nil || m.Routing == nil {
		t.Fatalf("trace report: %v\n%s", err, rep)
	}
	r := m.Routing
	if r.Messages == 0 || r.Delivered != r.Messages || r.DataFrames != r.Messages || r.RREQ == 0 || r.RREP == 0 {
		t.Fatalf("routing %+v", *r)
	}
}
