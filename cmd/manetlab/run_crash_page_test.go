package main

import (
	"math"
	"testing"

	"manetlab/trace/htmlreport"
)

// TestRunReportShowsCrashesAsSim: the same scenario through both drivers,
// node 4 crashed from 1.5 s to 3 s. A real node killed by the launcher
// writes no crash, so its trace went on following its leader; the
// report page of the real run must show it down exactly as the
// simulated run's page does: a dead span from the crash, and no leader
// while down (issue 35).
func TestRunReportShowsCrashesAsSim(t *testing.T) {
	if !realProcesses(t) {
		return
	}
	path := writeRunScenario(t, 4, "4s", "faults: [{at: 1500ms, crash: [4]}, {at: 3s, recover: [4]}]\n")
	simDir, realDir := t.TempDir(), t.TempDir()
	if _, err := runCLI(t, "sim", path, "--out", simDir); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "run", path, "--out", realDir, "--quiet"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dir string }{{"sim", simDir}, {"run", realDir}} {
		d, err := htmlreport.Build(c.dir, htmlreport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range d.Nodes {
			if id != 4 {
				continue
			}
			// On a real machine the launcher kills and restarts a few
			// milliseconds late.
			if len(d.Dead[i]) != 1 || math.Abs(d.Dead[i][0][0]-1.5) > 0.25 || math.Abs(d.Dead[i][0][1]-3) > 0.25 {
				t.Fatalf("%s: node 4 dead %v, want [1.5 s, 3 s]", c.name, d.Dead[i])
			}
			dn := d.Dead[i][0]
			if len(d.Crashes[i]) != 1 || d.Crashes[i][0] != dn[0] {
				t.Fatalf("%s: node 4's crashes %v, dead %v", c.name, d.Crashes[i], dn)
			}
			for _, s := range d.Leaders[i] {
				if s[1] > dn[0] && s[0] < dn[1] {
					t.Fatalf("%s: node 4 follows %g from %g s to %g s while down %v", c.name, s[2], s[0], s[1], dn)
				}
			}
			if len(d.Leaders[i]) < 2 {
				t.Fatalf("%s: node 4's leaders %v: none before the crash and after the recovery", c.name, d.Leaders[i])
			}
		}
	}
}
