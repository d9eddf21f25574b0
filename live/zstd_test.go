package live

import (
	"os"
	"path/filepath"
	"testing"

	"manetlab/trace"
)

// TestFollowCompressed follows a run written with trace.compress: zstd
// as it grows, each file copied in pieces cut inside its frames: a
// frame is read once whole, and at the end as many lines have been read
// and every node follows the same leader as when following the plain
// run.
func TestFollowCompressed(t *testing.T) {
	follow := func(src string, compressed bool) (int, *State) {
		names, err := filepath.Glob(filepath.Join(src, "*.jsonl"))
		if err != nil || len(names) != 21 {
			t.Fatalf("%d files in %s (%v), want 21", len(names), src, err)
		}
		dir := t.TempDir()
		st := NewState()
		f := NewFollower(dir, st)
		defer f.Close()
		lines := 0
		for piece := 0; piece < 5; piece++ {
			for _, n := range names {
				b, err := os.ReadFile(n)
				if err != nil {
					t.Fatal(err)
				}
				if piece == 0 && filepath.Base(n) != trace.RunFileName && trace.IsZstd(b) != compressed {
					t.Fatalf("%s: compressed %v", n, trace.IsZstd(b))
				}
				fh, err := os.OpenFile(filepath.Join(dir, filepath.Base(n)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				fh.Write(b[len(b)*piece/5 : len(b)*(piece+1)/5])
				fh.Close()
			}
			k, err := f.Poll()
			if err != nil {
				t.Fatal(err)
			}
			lines += k
		}
		return lines, st
	}
	plain := simulated(t)
	wantLines, want := follow(plain, false)
	gotLines, got := follow(simulated(t, "trace.compress=zstd"), true)
	if gotLines != wantLines || wantLines == 0 {
		t.Fatalf("%d lines read from the compressed run, %d from the plain one", gotLines, wantLines)
	}
	ws, gs := want.Snapshot(0), got.Snapshot(0)
	if len(gs.Nodes) != 20 || len(ws.Nodes) != 20 {
		t.Fatalf("%d nodes followed, want 20", len(gs.Nodes))
	}
	for _, n := range ws.Nodes {
		if g := nodeView(gs, n.ID); g.Leader != n.Leader || g.Alive != n.Alive {
			t.Errorf("node %d: leader %d alive %v compressed, %d %v plain", n.ID, g.Leader, g.Alive, n.Leader, n.Alive)
		}
	}
}
