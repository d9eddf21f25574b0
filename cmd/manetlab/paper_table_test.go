package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPaperTableCurrent: docs/paper-table.txt, the tables
// scripts/paper-table.sh --write made and docs/paper.md quotes, are what
// the code gives now: one point of each of its three tables (20 nodes at
// 1-3 m/s, seeds 1-3) is run again and its row must read the same, every
// column. When the code changes what these runs do, re-run
// `scripts/paper-table.sh --write 3` and check docs/paper.md's text
// against the new tables.
func TestPaperTableCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 9 simulated runs of 600 s")
	}
	b, err := os.ReadFile("../../docs/paper-table.txt")
	if err != nil {
		t.Fatal(err)
	}
	tables := strings.Split(string(b), "\n\n")
	cases := []struct {
		config string
		extra  []string
	}{
		{"vasudevan-paper.yaml", nil},
		{"vasudevan-paper.yaml", []string{"--set", "protocol.name=baseline/floodmax", "--set", "protocol.params={period: 20s, lease: 120s}"}},
		{"vasudevan-paper-t15.yaml", nil},
	}
	if len(tables) < len(cases) {
		t.Fatalf("docs/paper-table.txt has %d tables, want at least %d", len(tables), len(cases))
	}
	for i, c := range cases {
		want := ""
		for _, line := range strings.Split(tables[i], "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "[1,3]" && f[1] == "20" {
				want = strings.Join(f, " ")
			}
		}
		if want == "" {
			t.Fatalf("table %d of docs/paper-table.txt has no [1,3], 20 row", i+1)
		}
		args := append([]string{"sweep", filepath.Join("../../configs", c.config), "--vary", "mobility.speed=[1,3]", "--vary", "nodes.count=20",
			"--seeds", "3", "--out", t.TempDir()}, c.extra...)
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "[1,3]" && f[1] == "20" {
				got = strings.Join(f, " ")
			}
		}
		if got != want {
			t.Errorf("%s %v, [1,3] and 20 nodes:\n got  %s\n file %s\n(re-run scripts/paper-table.sh --write 3)", c.config, c.extra, got, want)
		}
	}
}
