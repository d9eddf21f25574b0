package main

import (
	"encoding/json"
	"testing"

	"manetlab/trace/analysis"
)

// TestMutexRealProcessesRicartAgrawala runs configs/mutex-ricart-agrawala.yaml
// as real node processes over UDP multicast (8 s, the generator at 0.5
// requests per second per node until 6 s): `trace check` judges mutual
// exclusion and requests-granted valid, and `trace report` measures
// entries at exactly 2(n-1) = 14 messages each (the network is lossless;
// retransmissions, if any, are transport). Skipped without root (for a
// network namespace with multicast on lo).
func TestMutexRealProcessesRicartAgrawala(t *testing.T) {
	if !realProcesses(t) {
		return
	}
	dir := t.TempDir()
	// ideal: exactly 14 messages per entry and every request granted
	// within 8 s on a lossless network; real processes see the DCF
	// medium's carrier sense late (docs/node.md, "The DCF medium in real
	// processes") and undilated lose frames the simulator would not.
	out, err := runCLI(t, "run", "../../configs/mutex-ricart-agrawala.yaml", "--out", dir, "--quiet", "--set", "radio.mac=ideal",
		"--set", "duration=8s", "--set", "workload.rate=0.5", "--set", "workload.stop=6s")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	out, err = runCLI(t, "trace", "check", dir, "--json")
	var chk analysis.CheckReport
	if err != nil || json.Unmarshal([]byte(out), &chk) != nil {
		t.Fatalf("trace check --json: %v\n%s", err, out)
	}
	verdicts := map[string]analysis.Property{}
	for _, p := range chk.Properties {
		verdicts[p.Name] = p
	}
	// The message bound (the per-request most and the per-node budget)
	// is judged on a real run by the same rules as in the simulator.
	if chk.Invalid() || verdicts[analysis.PropMutex].Verdict != analysis.Valid || verdicts[analysis.PropGranted].Verdict != analysis.Valid ||
		verdicts[analysis.PropBound].Verdict != analysis.Valid {
		t.Fatalf("trace check: %+v", chk.Properties)
	}
	out, err = runCLI(t, "trace", "report", dir, "--json")
	var rep analysis.MetricsReport
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || rep.Mutex == nil {
		t.Fatalf("trace report --json: %v\n%s", err, out)
	}
	mx := rep.Mutex
	if mx.Entries == 0 || mx.MessagesPerEntry == nil || *mx.MessagesPerEntry != 14 ||
		mx.ByKind["request"] != uint64(7*mx.Entries) || mx.ByKind["reply"] != uint64(7*mx.Entries) {
		t.Fatalf("trace report: %d entries, %v messages per entry, by kind %v; want 14 per entry (7 requests, 7 replies)",
			mx.Entries, mx.MessagesPerEntry, mx.ByKind)
	}
	t.Logf("%d entries, %d messages (%v), %d transport; %d pairs of sections checked",
		mx.Entries, mx.Messages, mx.ByKind, mx.Transport, verdicts[analysis.PropMutex].Checked)
}
