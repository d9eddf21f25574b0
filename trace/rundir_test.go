package trace

import (
	"path/filepath"
	"testing"
)

func TestFileNames(t *testing.T) {
	if got := NodeFile("out/r", 42); got != filepath.Join("out/r", "node-42.jsonl") {
		t.Errorf("NodeFile: %s", got)
	}
	if got := RunFile("out/r"); got != filepath.Join("out/r", "run.jsonl") {
		t.Errorf("RunFile: %s", got)
	}
}
