package safefs

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkCreate compares the cost of creating a node's trace file
// through safefs (a walk from / with openat) with os.OpenFile, in a
// directory six components deep: go test -bench Create ./internal/safefs
func BenchmarkCreate(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "a", "b", "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	b.Run("safefs", func(b *testing.B) {
		for i := range b.N {
			f, err := OpenFile(filepath.Join(dir, "node-"+strconv.Itoa(i%1000)+".jsonl"), flag, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("os", func(b *testing.B) {
		for i := range b.N {
			f, err := os.OpenFile(filepath.Join(dir, "node-"+strconv.Itoa(i%1000)+".jsonl"), flag, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}
