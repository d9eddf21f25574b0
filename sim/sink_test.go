package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/trace"
)

// TestSinkRewritesDirectory writes traces into a directory that holds an
// earlier run, with the files kept open and with every flush reopening
// its file: the node files hold exactly this run's lines, the stale node
// file is gone and other files stay.
func TestSinkRewritesDirectory(t *testing.T) {
	for _, keep := range []bool{true, false} {
		dir := t.TempDir()
		old := map[string]string{
			"node-1.jsonl": "an earlier, longer run's line that must not survive\n",
			"node-9.jsonl": "a node this run does not have\n",
			"notes.txt":    "not a trace\n",
		}
		for name, body := range old {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		paths := []string{trace.NodeFile(dir, 1), trace.NodeFile(dir, 2)}
		s := &sink{paths: append(paths, trace.RunFile(dir)), bufs: make([][]byte, 3),
			chunks: make(chan chunk, 2), free: make(chan []byte, 2), done: make(chan error, 1), flush: 200}
		removeStale(dir, s.paths, false)
		go s.write(keep)
		want := make([][]byte, 3)
		for i := 0; i < 100; i++ {
			k := i % 3
			e := &trace.Event{T: int64(i), Node: protocol.NodeID(k + 1), Ev: trace.EvSend, Kind: "k"}
			if k == 2 {
				s.run(e)
			} else {
				s.node(k, e)
			}
			want[k] = append(append(want[k], trace.AppendJSON(nil, e)...), '\n')
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		for k, p := range s.paths {
			got, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(got, want[k]) {
				t.Errorf("keep %v: %s: %v\n%s\nwant\n%s", keep, p, err, got, want[k])
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "node-9.jsonl")); !os.IsNotExist(err) {
			t.Errorf("keep %v: the stale node file is still there: %v", keep, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
			t.Errorf("keep %v: another file was removed: %v", keep, err)
		}
	}
}

// TestSimRefusesPlantedLinks: a link planted where a node's trace goes
// fails the run with the reason, and its target is untouched.
func TestSimRefusesPlantedLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, trace.NodeFile(dir, 2)); err != nil {
		t.Fatal(err)
	}
	_, err := Run(parse(t, "duration: 2s\nnodes: {count: 3}\n"), Options{Out: dir})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("run: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Fatalf("the link's target was written: %q", b)
	}
}
