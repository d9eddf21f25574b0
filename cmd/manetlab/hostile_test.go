package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileCase damages a copy of a clean run; want is what every command
// that reads the damaged part must print (a file:line and the verdict on
// it), and matched says the problem is one only commands that match
// receives with sends can see (merge and export).
type hostileCase struct {
	name    string
	damage  func(t *testing.T, dir string) (want string)
	matched bool
}

// appendLines appends lines to file in dir and returns the line number
// of the first appended line.
func appendLines(t *testing.T, dir, file string, lines ...string) int {
	t.Helper()
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.Count(data, []byte("\n")) + 1
	data = append(data, strings.Join(lines, "\n")+"\n"...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return first
}

const hour = int64(time.Hour)

var hostileCases = []hostileCase{
	{name: "1000 hours in a node file", damage: func(t *testing.T, dir string) string {
		n := appendLines(t, dir, "node-3.jsonl", fmt.Sprintf(`{"t":%d,"node":3,"ev":"leader","leader":3}`, 1000*hour))
		return fmt.Sprintf("node-3.jsonl:%d: time 1000h0m0s is far beyond the run", n)
	}},
	{name: "1000 hours in the run file", damage: func(t *testing.T, dir string) string {
		n := appendLines(t, dir, "run.jsonl", fmt.Sprintf(`{"t":%d,"node":3,"ev":"position","pos":[1,2,0]}`, 1000*hour),
			fmt.Sprintf(`{"t":%d,"node":0,"ev":"end"}`, 1000*hour))
		return fmt.Sprintf("run.jsonl:%d: time 1000h0m0s is far beyond the run", n)
	}},
	{name: "time going back", damage: func(t *testing.T, dir string) string {
		n := appendLines(t, dir, "node-3.jsonl", `{"t":1000000000,"node":3,"ev":"leader","leader":3}`)
		return fmt.Sprintf("node-3.jsonl:%d: time 1s goes back", n)
	}},
	{name: "a negative time", damage: func(t *testing.T, dir string) string {
		n := appendLines(t, dir, "node-3.jsonl", fmt.Sprintf(`{"t":%d,"node":3,"ev":"leader","leader":3}`, -1000*hour))
		return fmt.Sprintf("node-3.jsonl:%d: time -1000h0m0s is far before the run's start (at least -1m0s accepted); skipped", n)
	}},
	{name: "a node not in the run", damage: func(t *testing.T, dir string) string {
		data, err := os.ReadFile(filepath.Join(dir, "node-3.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := bytes.Cut(data, []byte("\n"))
		header = bytes.Replace(header, []byte(`"node":3`), []byte(`"node":99`), 1)
		body := string(header) + "\n" + `{"t":1000000000,"node":99,"ev":"leader","leader":99}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, "node-99.jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return "node-99.jsonl:1: node 99 is not in the run's scenario; file skipped"
	}},
	{name: "a position of 1e300 m", damage: func(t *testing.T, dir string) string {
		n := appendLines(t, dir, "run.jsonl", `{"t":19000000000,"node":3,"ev":"position","pos":[1e300,0,0]}`)
		return fmt.Sprintf("run.jsonl:%d: position [1e+300 0 0] is not a coordinate", n)
	}},
	{name: "a value beyond float64", damage: func(t *testing.T, dir string) string {
		n := appendLines(t, dir, "node-3.jsonl", `{"t":19000000000,"node":3,"ev":"leader","leader":3,"value":1e999}`)
		return fmt.Sprintf("node-3.jsonl:%d: not a JSON event", n)
	}},
	{name: "a duplicate header", damage: func(t *testing.T, dir string) string {
		data, err := os.ReadFile(filepath.Join(dir, "node-3.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := bytes.Cut(data, []byte("\n"))
		n := appendLines(t, dir, "node-3.jsonl", string(header))
		return fmt.Sprintf("node-3.jsonl:%d: a second header; skipped", n)
	}},
	{name: "a receive with no send", matched: true, damage: func(t *testing.T, dir string) string {
		n := appendLines(t, dir, "node-3.jsonl", `{"t":19900000000,"node":3,"ev":"recv","kind":"x","from":5,"seq":987654}`)
		return fmt.Sprintf("node-3.jsonl:%d: recv from node 5 seq 987654 has no matching send", n)
	}},
	{name: "one sequence number for 20000 frames", matched: true, damage: func(t *testing.T, dir string) string {
		// Every receive has 20,000 candidate sends: matching them one by
		// one would take 4e8 comparisons per command.
		const k = 20000
		sends := make([]string, k)
		recvs := make([]string, k)
		for i := range k {
			at := 19_000_000_000 + int64(i)*1000
			sends[i] = fmt.Sprintf(`{"t":%d,"node":3,"ev":"send","kind":"x","seq":4242,"bytes":10}`, at)
			recvs[i] = fmt.Sprintf(`{"t":%d,"node":4,"ev":"recv","kind":"x","from":3,"seq":4242}`, at+500)
		}
		n := appendLines(t, dir, "node-3.jsonl", sends...)
		appendLines(t, dir, "node-4.jsonl", recvs...)
		return fmt.Sprintf("node-3.jsonl:%d: node 3 uses seq 4242 again (first at", n+1)
	}},
	{name: "2000 causal cycles", matched: true, damage: func(t *testing.T, dir string) string {
		// Each node receives the other's frame before sending its own:
		// only damaged traces hold such cycles, and each is broken once.
		var a, b []string
		for i := range 2000 {
			at := 19_000_000_000 + int64(i)*1000
			for _, p := range []struct {
				lines    *[]string
				node, to int
			}{{&a, 3, 4}, {&b, 4, 3}} {
				*p.lines = append(*p.lines,
					fmt.Sprintf(`{"t":%d,"node":%d,"ev":"recv","kind":"x","from":%d,"seq":%d}`, at, p.node, p.to, 777000+i),
					fmt.Sprintf(`{"t":%d,"node":%d,"ev":"send","kind":"x","seq":%d,"bytes":10}`, at+1, p.node, 777000+i))
			}
		}
		n := appendLines(t, dir, "node-3.jsonl", a...)
		appendLines(t, dir, "node-4.jsonl", b...)
		return fmt.Sprintf("node-3.jsonl:%d: causal cycle: this receive cannot follow its send", n)
	}},
}

// TestAnalysisOfHostileInputIsBounded runs every analysis command on each
// damaged run, in process, and requires it to return (a generous guard,
// not a timing) and to name the damage by file:line.
func TestAnalysisOfHostileInputIsBounded(t *testing.T) {
	clean := filepath.Join(t.TempDir(), "clean")
	if _, err := runCLI(t, "sim", "../../configs/quickstart.yaml", "--set", "duration=20s", "--out", clean, "--quiet"); err != nil {
		t.Fatal(err)
	}
	commands := []struct {
		name    string
		args    func(dir, out string) []string
		matches bool // matches receives with sends
	}{
		{"check", func(dir, _ string) []string { return []string{"trace", "check", dir} }, false},
		{"report", func(dir, _ string) []string { return []string{"trace", "report", dir} }, false},
		{"report --html", func(dir, out string) []string { return []string{"trace", "report", dir, "--html", out} }, false},
		{"merge", func(dir, out string) []string { return []string{"trace", "merge", dir, "-o", out} }, true},
		{"export netanim", func(dir, out string) []string {
			return []string{"trace", "export", "--format", "netanim", dir, "-o", out}
		}, true},
		{"export shiviz", func(dir, out string) []string {
			return []string{"trace", "export", "--format", "shiviz", dir, "-o", out}
		}, true},
	}
	for _, hc := range hostileCases {
		t.Run(hc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := os.CopyFS(dir, os.DirFS(clean)); err != nil {
				t.Fatal(err)
			}
			want := hc.damage(t, dir)
			for _, c := range commands {
				out := runGuarded(t, c.name, c.args(dir, filepath.Join(t.TempDir(), "out")))
				if hc.matched && !c.matches {
					continue // check and report match receives only for mutual exclusion runs
				}
				if !strings.Contains(out, want) {
					t.Errorf("%s: the output lacks %q:\n%s", c.name, want, tail(out, 2000))
				}
			}
		})
	}
}

// runGuarded runs the CLI with args in a goroutine and fails the test if
// it has not returned within 20 s: the analysis must not loop.
func runGuarded(t *testing.T, name string, args []string) string {
	t.Helper()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		app := newApp()
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		err := app.Run(reorderArgs(app, append([]string{"manetlab"}, args...)))
		done <- result{out.String(), err}
	}()
	select {
	case r := <-done:
		if r.err != nil && r.err != errInvalid {
			t.Errorf("%s: %v\n%s", name, r.err, tail(r.out, 2000))
		}
		return r.out
	case <-time.After(20 * time.Second):
		t.Fatalf("%s has not returned after 20 s: it loops on this input", name)
		return ""
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
