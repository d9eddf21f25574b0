// Package fuzzseed writes the committed seed corpora of the fuzz targets
// (testdata/fuzz/FuzzXxx/seed-NAME, in the format go test reads), so that
// each package's seeds live in its test code and are rewritten with
// `go test -run TestWriteSeedCorpus ./PKG -write-corpus`.
//
// It stays in internal, unlike the other test helpers, because it serves
// no one package but the fuzz targets of several (scenario, mobility,
// trace, trace/collect, node/wire) and knows only go test's corpus format.
// It imports only the standard library; only tests use it.
package fuzzseed

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Write writes the seed NAME of fuzzer in testdata/fuzz under the current
// directory (a package's, under go test). Args are the fuzz function's
// arguments after *testing.T: []byte, string, bool, int, uint16 or uint32.
func Write(fuzzer, name string, args ...any) error {
	var buf bytes.Buffer
	buf.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			fmt.Fprintf(&buf, "[]byte(%q)\n", v)
		case string:
			fmt.Fprintf(&buf, "string(%q)\n", v)
		case bool:
			fmt.Fprintf(&buf, "bool(%t)\n", v)
		case int:
			fmt.Fprintf(&buf, "int(%d)\n", v)
		case uint16:
			fmt.Fprintf(&buf, "uint16(%d)\n", v)
		case uint32:
			fmt.Fprintf(&buf, "uint32(%d)\n", v)
		default:
			return fmt.Errorf("fuzzseed: %T is not a fuzz argument type handled here", a)
		}
	}
	dir := filepath.Join("testdata", "fuzz", fuzzer)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "seed-"+name), buf.Bytes(), 0o644)
}
