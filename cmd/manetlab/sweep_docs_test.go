package main

import (
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"manetlab/experiment"
)

// docBlock is the fenced code block of this language in docs/sweeps.md.
func docBlock(t *testing.T, lang string) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/sweeps.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatalf("docs/sweeps.md has no %s block", lang)
	}
	return string(m[1])
}

// TestSweepDocQueries runs docs/sweeps.md's pandas and DuckDB queries on
// a small sweep with the axes they name, in results/q, and compares what
// they print with the runs' records: per protocol and size, the valid
// runs and their mean messages.
func TestSweepDocQueries(t *testing.T) {
	work := t.TempDir()
	res := filepath.Join(work, "results", "q")
	if _, err := runCLI(t, "sweep", "../../configs/static-line.yaml", "--set", "nodes.list=[]", "--set", "duration=20s", "--set", "faults=[]",
		"--vary", "protocol.name=adhoc/vasudevan|baseline/floodmax", "--vary", "nodes.count=4|6", "--seeds", "2",
		"--results", res, "--quiet"); err != nil {
		t.Fatal(err)
	}
	g, err := experiment.Gather(res)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ proto, n string }
	count, sum := map[key]int{}, map[key]float64{}
	for _, r := range g.Rows {
		if r.Verdict == "valid" {
			k := key{r.Values[0], r.Values[1]}
			count[k]++
			sum[k] += r.Metrics["messages"]
		}
	}
	if len(count) < 2 {
		t.Fatalf("only %d groups of valid runs: the test checks too little", len(count))
	}
	// check compares a query's CSV output (protocol, size, count, mean
	// messages first) with the records.
	check := func(name, out string) {
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(rows) != len(count)+1 {
			t.Fatalf("%s printed %d rows (%v), want a header and %d:\n%s", name, len(rows), err, len(count), out)
		}
		for _, row := range rows[1:] {
			k := key{row[0], row[1]}
			n, _ := strconv.Atoi(row[2])
			mean, _ := strconv.ParseFloat(row[3], 64)
			if want := sum[k] / float64(count[k]); n != count[k] || math.Abs(mean-want) > 1e-9*want {
				t.Errorf("%s: %v: %d runs, mean %v; the records say %d, %v", name, k, n, mean, count[k], want)
			}
		}
	}
	t.Run("pandas", func(t *testing.T) {
		if exec.Command("/usr/bin/python3", "-c", "import pandas").Run() != nil {
			t.Skip("Debian's python3-pandas is not installed (scripts/deps.sh installs it)")
		}
		cmd := exec.Command("/usr/bin/python3", "-c", docBlock(t, "python"))
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		check("pandas", string(out))
	})
	t.Run("duckdb", func(t *testing.T) {
		bin, err := exec.LookPath("duckdb")
		if err != nil {
			t.Skip("duckdb is not on the PATH (Debian 12 has no package for it)")
		}
		cmd := exec.Command(bin, "-csv", "-c", docBlock(t, "sql"))
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		check("duckdb", string(out))
	})
}
