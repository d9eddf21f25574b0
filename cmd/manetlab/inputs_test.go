package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs the CLI and fails the test if it has not returned in 10 s
// (a reader blocked on a FIFO never returns).
func within(t *testing.T, args ...string) (string, error) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := runCLI(t, args...)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("manetlab %s has not returned after 10 s: it waits on its input", strings.Join(args, " "))
		return "", nil
	}
}

// TestInputsRefuseFIFOs: a FIFO as the mobility file, the schedule, the
// scenario or the key file is refused at once with the reason (issue 40, item 7).
func TestInputsRefuseFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sc := filepath.Join(dir, "ns2.yaml")
	if err := os.WriteFile(sc, []byte("nodes: {count: 3}\nduration: 3s\nmobility: {model: ns2, file: fifo}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"sim", sc, "--out", filepath.Join(dir, "out"), "--quiet"},
		{"mobility", "sample", fifo, "--at", "0:1:1"},
		{"sim", "../../configs/static-line.yaml", "--schedule", fifo, "--out", filepath.Join(dir, "out2"), "--quiet"},
		{"sim", fifo, "--out", filepath.Join(dir, "out3"), "--quiet"},
		{"trace", "collect", "--listen", "127.0.0.1:0", "--out", filepath.Join(dir, "out4"), "--run", "r",
			"--scenario", "../../configs/static-line.yaml", "--key-file", fifo},
	} {
		_, err := within(t, args...)
		if err == nil || !strings.Contains(err.Error(), fifo+": not a regular file (a FIFO)") {
			t.Errorf("manetlab %s: %v; want a refusal of the FIFO", strings.Join(args, " "), err)
		}
	}
}

// TestLargeInputsRefusedBeforeReading: a 300 MB mobility file and a
// 100 MB schedule (sparse: no disk used) are refused by their size, at
// once; a schedule whose "what" is 1 MB long is refused with a message
// that quotes a short prefix of it (items 4 and 5).
func TestLargeInputsRefusedBeforeReading(t *testing.T) {
	dir := t.TempDir()
	sparse := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	big := sparse("big.ns2", 300<<20)
	_, err := within(t, "mobility", "sample", big, "--at", "0:1:1")
	if err == nil || !strings.Contains(err.Error(), "314572800 bytes, more than the 67108864 allowed") {
		t.Errorf("a 300 MB mobility file: %v", err)
	}
	sc := filepath.Join(dir, "ns2.yaml")
	os.WriteFile(sc, []byte("nodes: {count: 3}\nduration: 3s\nmobility: {model: ns2, file: big.ns2}\n"), 0o644)
	if _, err := within(t, "sim", sc, "--out", filepath.Join(dir, "out"), "--quiet"); err == nil || !strings.Contains(err.Error(), "more than the 67108864 allowed") {
		t.Errorf("sim with a 300 MB mobility file: %v", err)
	}
	sched := sparse("big.json", 100<<20)
	if _, err := within(t, "sim", "../../configs/static-line.yaml", "--schedule", sched, "--quiet", "--out", filepath.Join(dir, "o2")); err == nil || !strings.Contains(err.Error(), "104857600 bytes, more than the 8388608 allowed") {
		t.Errorf("a 100 MB schedule: %v", err)
	}

	what := filepath.Join(dir, "what.json")
	os.WriteFile(what, []byte(`{"steps": 1, "choices": [{"step": 0, "take": 1, "what": "`+strings.Repeat("A", 1<<20)+`"}]}`), 0o644)
	_, err = within(t, "sim", "../../configs/static-line.yaml", "--schedule", what, "--quiet", "--out", filepath.Join(dir, "o3"))
	if err == nil || !strings.Contains(err.Error(), "choice 1: what \"AAAA") || len(err.Error()) > 400 {
		t.Errorf("a 1 MB what: a message of %d bytes: %.400v", len(err.Error()), err)
	}
}
