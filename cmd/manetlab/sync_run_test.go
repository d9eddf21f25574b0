package main

import (
	"encoding/json"
	"testing"

	"manetlab/node/netnstest"
	"manetlab/trace/analysis"
	"manetlab/trace/report"
)

// runSyncJSON runs `manetlab CMD CONFIG` with extra flags into a fresh
// directory and decodes the summary; it returns the directory too.
func runSyncJSON(t *testing.T, cmd, config string, extra ...string) (string, *report.Summary) {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{cmd, "../../configs/" + config, "--json", "--out", dir, "--quiet"}, extra...)
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var sum report.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return dir, &sum
}

// TestSyncRealProcessesCountLikeSim runs TimeSlice and slow-fast (the
// homework) as real node processes over UDP multicast, over the simple,
// alpha and beta synchronizers: the same T_S, M_S and synchronizer
// messages as sim (TimeSlice: n = 8 tokens in 16 rounds; slow-fast 22 in
// 22), the counting rule matched, and trace check's synchronizer property
// valid. With 15 % loss (and the channel's rto at 30 ms, so that the
// repairs fit the run) the rounds and messages are still the same.
func TestSyncRealProcessesCountLikeSim(t *testing.T) {
	if findCommand(newApp().Commands, "node") == nil {
		t.Skip("no node command in this build")
	}
	// durations: 1 s of settling, then the rounds (0.1 s on lo without
	// loss, about 1.5 s with it), and room to spare on a busy machine
	cases := []struct {
		config string
		extra  []string
		lossy  bool
	}{
		{"sync-timeslice.yaml", []string{"--set", "duration=3s", "--set", "protocol.params.synchronizer=simple"}, false},
		{"sync-slow-fast-homework.yaml", []string{"--set", "duration=3s", "--set", "protocol.params.synchronizer=alpha"}, false},
		{"sync-slow-fast-homework.yaml", []string{"--set", "duration=5s", "--set", "protocol.params.synchronizer=beta", "--set", "protocol.params.rto=30ms",
			"--set", "radio.loss.model=bernoulli", "--set", "radio.loss.p=0.15"}, true},
	}
	want := make([]*report.Summary, len(cases))
	for i, c := range cases {
		_, w := runSyncJSON(t, "sim", c.config, c.extra...)
		if w.Verdict != "valid" || w.Complexity == nil || w.Complexity.Sync == nil {
			t.Fatalf("%s %v: sim summary %+v", c.config, c.extra, w)
		}
		want[i] = w
	}
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	useHelper(t, "main")
	for i, c := range cases {
		dir, got := runSyncJSON(t, "run", c.config, c.extra...)
		g, w := got.Complexity, want[i].Complexity
		if !judgedOrTooShort(got.Verdict, got.Reason) || g == nil || g.Sync == nil {
			t.Fatalf("%s %v: run summary %s %s %+v", c.config, c.extra, got.Verdict, got.Reason, g)
		}
		if g.Rounds != w.Rounds || g.Messages != w.Messages || g.SyncMessages != w.SyncMessages || g.TreeMessages != w.TreeMessages {
			t.Errorf("%s %v: run T_S %d, M_S %d, sync %d, tree %d; sim %d, %d, %d, %d", c.config, c.extra,
				g.Rounds, g.Messages, g.SyncMessages, g.TreeMessages, w.Rounds, w.Messages, w.SyncMessages, w.TreeMessages)
		}
		if g.Sync.ExactSync == nil || *g.Sync.ExactSync != int(g.SyncMessages) || g.RoundsBound == nil || *g.RoundsBound.Exact != g.Rounds {
			t.Errorf("%s %v: counting rule %v for %d synchronizer messages; rounds theory %+v for %d", c.config, c.extra,
				g.Sync.ExactSync, g.SyncMessages, g.RoundsBound, g.Rounds)
		}
		// Under AODV (the default) the link's per-hop retransmissions
		// repair most losses below the channel.
		if c.lossy && got.Messages.ByKind["transport-retx"]+got.Messages.LinkRetx == 0 {
			t.Errorf("%s %v: with loss nothing was retransmitted: %v, %d link retransmissions", c.config, c.extra, got.Messages.ByKind, got.Messages.LinkRetx)
		}
		rep, err := analysis.Check(dir, analysis.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Properties {
			if p.Name == analysis.PropSync && p.Verdict != analysis.Valid {
				t.Errorf("%s %v: trace check: %s %s", c.config, c.extra, p.Verdict, p.Reason)
			}
		}
		t.Logf("%s %v: run T_S %d, M_S %d, sync %d, tree %d, transport %d, %.3fs of rounds (sim %.3fs)", c.config, c.extra,
			g.Rounds, g.Messages, g.SyncMessages, g.TreeMessages, g.Transport, g.Time, w.Time)
	}
}
