package main

import (
	"errors"
	"strings"
	"testing"
)

// TestExitStatuses: sim and trace check exit with their verdict's status
// (docs/analysis.md, "Exit statuses"): 0 valid, 1 invalid, 2 undecided.
func TestExitStatuses(t *testing.T) {
	status := func(err error) (int, string) {
		if err == nil {
			return 0, ""
		}
		if err == errInvalid {
			return 1, err.Error()
		}
		var st exitStatus
		if errors.As(err, &st) {
			return st.code, st.msg
		}
		t.Fatalf("not a status: %v", err)
		return -1, ""
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"valid", []string{"../../configs/ring-chang-roberts.yaml"}, 0, ""},
		{"unsettled", []string{"../../configs/quickstart.yaml", "--set", "duration=10s"}, 2, "sim: the verdict is unsettled, not decided; exit status 2"},
		{"invalid", []string{writeMutexScenario(t)}, 1, "sim: the verdict is invalid; exit status 1"},
	} {
		dir := t.TempDir()
		_, err := runCLIStatus(t, append([]string{"sim", "--quiet", "--out", dir}, c.args...)...)
		if code, msg := status(err); code != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("sim %s: status %d (%q), want %d (%q)", c.name, code, msg, c.code, c.says)
		}
		_, err = runCLIStatus(t, "trace", "check", dir)
		want := map[string]int{"valid": 0, "unsettled": 2, "invalid": 1}[c.name] // 10 s of quickstart: stable-leader unknown, nothing settled
		if code, msg := status(err); code != want {
			t.Errorf("trace check of %s: status %d (%q), want %d", c.name, code, msg, want)
		}
	}
	// A crash leaves Tanenbaum's exact count unjudged: unknown, 2.
	dir := t.TempDir()
	if _, err := runCLIStatus(t, "sim", "--quiet", "--out", dir, "../../configs/ring-tanenbaum.yaml"); err != nil {
		t.Fatal(err)
	}
	_, err := runCLIStatus(t, "trace", "check", dir)
	if code, msg := status(err); code != 2 || !strings.Contains(msg, "trace check: the verdict is unknown, not decided; exit status 2") {
		t.Errorf("trace check of ring-tanenbaum: status %d (%q), want 2", code, msg)
	}
}
