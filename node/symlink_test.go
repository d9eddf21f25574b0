package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/trace"
)

// TestPlantedLinksAreNotWrittenThrough: a link planted where the run
// file's temporary copy goes is removed and the run file written; a link
// planted where a node's trace goes fails the node's start with the
// reason. Neither link's target is touched.
func TestPlantedLinksAreNotWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := parse(t, staticYAML)
	if err := os.Symlink(target, trace.RunFile(dir)+".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunFile(dir, s, "links", nil, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := trace.ReadHeader(trace.RunFile(dir)); err != nil {
		t.Fatalf("run file: %v", err)
	}
	if err := os.Symlink(target, trace.NodeFile(dir, 1)); err != nil {
		t.Fatal(err)
	}
	_, err := startVirtual(Options{Scenario: s, IDs: ids(2), Out: dir, Run: "links"})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("start with a link as node 1's trace: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Fatalf("a link's target was written: %q", b)
	}
}
