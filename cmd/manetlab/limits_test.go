package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/scenario"
)

// TestSimRefusesMoreNodesThanMemory: a million nodes in sim are refused
// before anything starts, with the estimate's figure and the machine's,
// on a machine with 8 GiB available (run's process limit is tested in
// node/launch, with a made-up machine too).
func TestSimRefusesMoreNodesThanMemory(t *testing.T) {
	defer func(f func() scenario.Machine) { readMachine = f }(readMachine)
	readMachine = func() scenario.Machine { return scenario.Machine{MemAvailable: 8 << 30} }
	path := filepath.Join(t.TempDir(), "1m.yaml")
	y := "name: m\nduration: 1s\nnodes: {count: 1000000, placement: grid}\nmobility: {area: [100000, 100000]}\nradio: {range: 150, mac: ideal}\n"
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	_, err := runCLI(t, "sim", path, "--out", out, "--quiet")
	for _, w := range []string{"refused before it started", "memory: about ", " GiB, this machine has 8 GiB available (MemAvailable)", "--allow-large"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("sim with a million nodes: %v; want %q", err, w)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the refused run created its output directory")
	}
}

// TestSimRefusesUnboundedWork is issue 40's reproducer: an 81-byte
// scenario asking for a million hours of three nodes (about 450 GB of
// traces) is refused before it starts, with the estimate's figures and
// the limits they pass; the same goes for sweep, run (whose time is
// the duration itself) and run --hosts (before any host is contacted).
func TestSimRefusesUnboundedWork(t *testing.T) {
	useHelper(t, "fake")
	path := filepath.Join(t.TempDir(), "huge.yaml")
	y := "name: huge\nnodes: {count: 3}\nduration: 1000000h\nmobility: {area: [100, 100]}\n"
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	want := []string{"refused before it started, by the pre-start estimate", "time: about ", "the limit is 1h0m0s",
		"traces: about ", "the limit is 64 GiB", "(pass --allow-large to start anyway)"}
	for _, args := range [][]string{{"sim", path, "--out", out, "--quiet"}, {"sweep", path, "--seeds", "1", "--out", out, "--quiet"},
		{"run", path, "--out", out, "--quiet"}, {"run", path, "--hosts", "h1.invalid,h2.invalid", "--out", out, "--quiet"}} {
		_, err := runCLI(t, args...)
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v; want %q", args[0], err, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the refused run created its output directory", strings.Join(args[:2], " "))
		}
	}
}

// TestSimAllowLarge: a run whose traces would not fit the free space on
// --out (a stand-in free-space function: 10 KB) is refused with both
// figures; with --allow-large it runs.
func TestSimAllowLarge(t *testing.T) {
	defer func(f func(string) (uint64, error)) { freeSpace = f }(freeSpace)
	freeSpace = func(string) (uint64, error) { return 10 << 10, nil }
	path := writeRunScenario(t, 9, "20s", "") // longer than the stabilisation delay: judged
	out := filepath.Join(t.TempDir(), "out")
	_, err := runCLI(t, "sim", path, "--out", out, "--quiet")
	for _, w := range []string{"disk: about ", " KiB of traces, 10 KiB is free on " + out, "--allow-large"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("sim on a small disk: %v; want %q", err, w)
		}
	}
	res, err := runCLI(t, "sim", path, "--out", out, "--quiet", "--allow-large")
	if err != nil || !strings.Contains(res, "verdict: valid") {
		t.Errorf("sim --allow-large: %v\n%s", err, res)
	}
}

// TestSimStopsWhenTheDiskFills: a long run on a 64 KB tmpfs stops at the
// first write that fails, at once (not at its end, 1000 hours of model
// time on), summarises the traces as far as they were written and fails
// naming the cause. Needs root to mount the tmpfs.
func TestSimStopsWhenTheDiskFills(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "full")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	path := writeRunScenario(t, 3, "1000h", "trace: {hello: true}\n")
	res, err := runCLI(t, "sim", path, "--out", dir, "--quiet", "--allow-large")
	t.Logf("stdout:\n%s\nerror: %v", res, err)
	for _, w := range []string{"sim: the simulation stopped at ", " of 1000h0m0s: writing trace ", "no space left on device", "events simulated; traces in " + dir} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error does not say %q", w)
		}
	}
	for _, w := range []string{"run sim-t-1: baseline/floodmax, sim driver, seed 1, 3 nodes", "truncated last line"} {
		if !strings.Contains(res, w) {
			t.Errorf("summary does not say %q", w)
		}
	}
}

// TestSimEstimate: --estimate prints the estimate and runs nothing, for
// a protocol that warns of its parameters too (the pilot, which writes
// no traces, once took the warning for an error and exited 1 silently).
func TestSimEstimate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	res, err := runCLI(t, "sim", "../../configs/sync-timeslice.yaml", "--set", "protocol.params.synchronizer=abd", "--estimate", "--out", out)
	if err != nil || !strings.Contains(res, "sim: estimate: 8 nodes for ") || !strings.Contains(res, "events, ") || !strings.Contains(res, "from a pilot of 8 nodes") {
		t.Errorf("sim --estimate: %v\n%s", err, res)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("sim --estimate created its output directory")
	}
}
