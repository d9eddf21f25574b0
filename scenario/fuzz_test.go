package scenario

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/internal/fuzzseed"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite the seed corpora under testdata/fuzz")

// parseSeeds are the scenarios FuzzParse starts from: every committed
// config and YAML shapes the loader must refuse or survive.
func parseSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{
		"empty":       nil,
		"braces":      []byte("{}"),
		"list-nodes":  []byte("nodes:\n  list:\n    - {id: 3, value: 1.5}\n    - {id: 9}\nprotocol: {name: baseline/floodmax}\n"),
		"anchors":     []byte("a: &x [1, 2]\nradio: {range: 100}\nnodes: {count: 4}\nb: *x\n"),
		"merge-key":   []byte("base: &b {count: 3}\nnodes: {<<: *b, values: id}\n"),
		"laughs":      []byte("a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n"),
		"huge-values": []byte("nodes: {count: 1000000000}\nduration: 1e300s\narea: [1e308, 1e308]\nradio: {range: -1}\n"),
		"tags":        []byte("nodes: !!str 4\nduration: !!binary aGVsbG8=\n"),
		"not-a-map":   []byte("- 1\n- 2\n"),
		"tabs":        []byte("nodes:\n\tcount: 3\n"),
	}
	names, err := filepath.Glob("../configs/*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("configs: %v", err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		seeds[strings.TrimSuffix(filepath.Base(n), ".yaml")] = b
	}
	return seeds
}

// FuzzParse feeds arbitrary YAML, and one --set override, to the
// scenario loader: it must not panic, and what it accepts must write
// (YAML) a scenario it reads back to the same YAML.
func FuzzParse(f *testing.F) {
	for _, b := range parseSeeds(f) {
		f.Add(b, "")
	}
	f.Add([]byte("{}"), "radio.range=250")
	f.Add([]byte("{}"), "nodes.count=3")
	f.Add([]byte("{}"), "protocol.name=ring/chang-roberts")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		for _, dev := range []string{"/dev", "/proc", "/sys"} {
			// mobility.file names a file the loader reads: not these.
			if bytes.Contains(data, []byte(dev)) || strings.Contains(set, dev) {
				return
			}
		}
		var sets []string
		if set != "" {
			sets = []string{set}
		}
		s, err := Parse(data, "fuzz.yaml", sets)
		if err != nil {
			return
		}
		y, err := s.YAML()
		if err != nil {
			t.Fatalf("accepted, but YAML: %v", err)
		}
		s2, err := Parse(y, "fuzz.yaml", nil)
		if err != nil {
			t.Fatalf("accepted, but its YAML is refused: %v\n%s", err, y)
		}
		y2, err := s2.YAML()
		if err != nil || !bytes.Equal(y, y2) {
			t.Fatalf("YAML not read back the same (%v):\n%s\nthen\n%s", err, y, y2)
		}
	})
}

// TestWriteSeedCorpus rewrites the committed corpus with -write-corpus.
func TestWriteSeedCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -write-corpus to rewrite testdata/fuzz")
	}
	for name, b := range parseSeeds(t) {
		if err := fuzzseed.Write("FuzzParse", name, b, ""); err != nil {
			t.Fatal(err)
		}
	}
	for name, set := range map[string]string{"set-range": "radio.range=250", "set-count": "nodes.count=3", "set-protocol": "protocol.name=ring/chang-roberts"} {
		if err := fuzzseed.Write("FuzzParse", name, []byte("{}"), set); err != nil {
			t.Fatal(err)
		}
	}
}
