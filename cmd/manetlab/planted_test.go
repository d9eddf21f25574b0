package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/explore/exploretest"
)

// nobodyUID owns the links the tests plant: another user's, as a local
// attacker's would be.
const nobodyUID = 65534

// plantedOut makes the reproducer of issue 40, item 1: SHARED (mode 1777,
// like /tmp) holds outF, a link to VICTIM owned by another user.
func plantedOut(t *testing.T) (out, victim string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("planting a link owned by another user needs root (os.Lchown); CI runs as root")
	}
	tmp := t.TempDir()
	victim = filepath.Join(tmp, "VICTIM")
	shared := filepath.Join(tmp, "SHARED")
	for _, d := range []string{victim, shared} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(shared, "outF")
	plantLink(t, victim, out)
	return out, victim
}

func plantLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, nobodyUID, nobodyUID); err != nil {
		t.Fatal(err)
	}
}

// wantRefusal checks that err refuses the planted link at path and that
// nothing was written into victim.
func wantRefusal(t *testing.T, what string, err error, path, victim string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "refusing to follow it") {
		t.Errorf("%s through a link planted by uid %d: %v; want a refusal naming %s", what, nobodyUID, err, path)
	}
	if ents, _ := os.ReadDir(victim); len(ents) != 0 {
		t.Errorf("%s wrote %d files into the link's target (%s, ...)", what, len(ents), ents[0].Name())
	}
}

func TestOutThroughPlantedLinkRefused(t *testing.T) {
	out, victim := plantedOut(t)
	_, err := runCLI(t, "sim", "../../configs/static-line.yaml", "--out", out, "--set", "duration=3s", "--quiet")
	wantRefusal(t, "sim --out", err, out, victim)
	_, err = runCLI(t, "run", "../../configs/static-line.yaml", "--out", out, "--set", "duration=3s")
	wantRefusal(t, "run --out", err, out, victim)
	_, err = runCLI(t, "sweep", "../../configs/static-line.yaml", "--set", "duration=3s", "--vary", "radio.range=100|200", "--seeds", "1", "--quiet", "--out", out)
	wantRefusal(t, "sweep --out", err, out, victim)
	_, err = runCLI(t, "sweep", "../../configs/static-line.yaml", "--set", "duration=3s", "--vary", "radio.range=100", "--seeds", "1", "--quiet",
		"--out", filepath.Join(t.TempDir(), "runs"), "--html", filepath.Join(out, "sweep.html"))
	wantRefusal(t, "sweep --html", err, out, victim)
	// Without the check the collector would serve (into VICTIM) until
	// stopped: give it a few seconds to refuse.
	collected := make(chan error, 1)
	go func() {
		_, err := runCLI(t, "trace", "collect", "--listen", "127.0.0.1:0", "--out", out, "--run", "r",
			"--scenario", "../../configs/static-line.yaml")
		collected <- err
	}()
	select {
	case err = <-collected:
		wantRefusal(t, "trace collect --out", err, out, victim)
	case <-time.After(10 * time.Second):
		t.Errorf("trace collect --out through a link planted by uid %d is still collecting after 10 s", nobodyUID)
	}
	// A hasty protocol, so that explore finds a violation and writes it.
	sc := filepath.Join(t.TempDir(), "hasty.yaml")
	if err := os.WriteFile(sc, []byte(exploretest.Scenario(3)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = runCLI(t, "explore", sc, "--drops", "1", "--strategy", "bfs", "--out", filepath.Join(out, "violations"), "--quiet")
	wantRefusal(t, "explore --out", err, out, victim)
}

// TestPlantedLogLinkRefused is item 2: a root-owned, group-writable --out
// where a member of the group planted log -> VICTIM.
func TestPlantedLogLinkRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("planting a link owned by another user needs root (os.Lchown); CI runs as root")
	}
	tmp := t.TempDir()
	victim, out := filepath.Join(tmp, "VICTIM"), filepath.Join(tmp, "out")
	for _, d := range []string{victim, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(out, 0o775); err != nil {
		t.Fatal(err)
	}
	plantLink(t, victim, filepath.Join(out, "log"))
	t.Setenv(netnsEnv, "planted-test")
	_, err := runCLI(t, "run", "../../configs/static-line.yaml", "--out", out, "--set", "duration=3s")
	wantRefusal(t, "run with a planted log link", err, filepath.Join(out, "log"), victim)
}

// TestRunNamesAreNames: --run ../../x would put a host's run directory
// (DIR/RUN, removed after the run) outside DIR, and the default --out
// (runs/RUN) outside runs (issue 40, item 13).
func TestRunNamesAreNames(t *testing.T) {
	t.Setenv(netnsEnv, "names-test")
	for _, args := range [][]string{
		{"run", "../../configs/static-line.yaml", "--run", "../../x", "--out", t.TempDir()},
		{"run", "../../configs/static-line.yaml", "--run", "a/b"},
		{"run", "../../configs/static-line.yaml", "--run", "../../x", "--hosts", "h1,h2"},
	} {
		_, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), "a name, not a path, is wanted") {
			t.Errorf("manetlab %s: %v", strings.Join(args, " "), err)
		}
	}
	for _, hosts := range []string{"h1 dir=../../etc,h2", "../h1,h2", "-oProxyCommand=x,h2"} {
		_, err := runCLI(t, "run", "../../configs/static-line.yaml", "--run", "r", "--hosts", hosts)
		if err == nil || !strings.Contains(err.Error(), "not a host name") && !strings.Contains(err.Error(), `".." component is not allowed`) {
			t.Errorf("--hosts %q: %v", hosts, err)
		}
	}
}
