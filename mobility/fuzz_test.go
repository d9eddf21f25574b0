package mobility

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"manetlab/internal/fuzzseed"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite the seed corpora under testdata/fuzz")

// ns2Seeds are the files FuzzParseNS2 starts from: the committed traces
// and the shapes the reader must refuse or skip.
func ns2Seeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{
		"set-and-setdest": []byte("$node_(0) set X_ 1.5\n$node_(0) set Y_ 2\n$node_(1) set X_ 10\n$ns_ at 1.0 \"$node_(0) setdest 20 30 5\"\n$ns_ at 2.5 \"$node_(1) setdest 0 0 0\"\n"),
		"axis-event":      []byte("$ns_ at 3 \"$node_(0) set X_ 7\"\n$ns_ at 1 \"$node_(0) setdest 9 9 1\"\n"),
		"skipped":         []byte("set god_ [God instance]\n$god_ set-dist 0 1 2\n$ns_ at $t \"$node_(0) setdest 1 1 1\"\n$node_(0) random-motion 0\n$ns_ at 1 \"$node_(0) setdest 1 2 3 4\"\n$ns_ at -1 \"$node_(0) setdest 1 1 1\"\n$ns_ at 5 \"stop\"\n"),
		"errors":          []byte("$node_(x) set X_ 1\n"),
		"huge-values":     []byte("$node_(0) set X_ 1e308\n$ns_ at 1e9 \"$node_(0) setdest -1e308 1e308 1e-300\"\n"),
		"comments-crlf":   []byte("# c\r\n$node_(0) set X_ 1 ;# trailing\r\n"),
		"empty":           nil,
	}
	for _, p := range []string{"testdata/scen-3-test", "../configs/mobility/small.ns2"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seeds[p[bytes.LastIndexByte([]byte(p), '/')+1:]] = b
	}
	return seeds
}

// FuzzParseNS2 feeds arbitrary files to the ns-2 reader: it must not panic,
// and what it accepts must give finite positions at every instant a leg
// starts and between them.
func FuzzParseNS2(f *testing.F) {
	for _, b := range ns2Seeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, _, err := ParseNS2(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if set.Len() > 64 {
			return // checking every node of a large set makes fuzzing crawl
		}
		changes := set.Changes()
		for i := range set.Len() {
			for k, at := range changes {
				ts := []time.Duration{at}
				if k+1 < len(changes) {
					ts = append(ts, at+(changes[k+1]-at)/2)
				}
				for _, ti := range ts {
					p := set.Position(i, ti)
					if !finite(p.X) || !finite(p.Y) || !finite(p.Z) {
						t.Fatalf("node %d at %v: position %v", i, ti, p)
					}
				}
			}
		}
		if s := set.MaxSpeed(); !finite(s) || s < 0 {
			t.Fatalf("max speed %g", s)
		}
	})
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// TestWriteSeedCorpus rewrites the committed corpus with -write-corpus.
func TestWriteSeedCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -write-corpus to rewrite testdata/fuzz")
	}
	for name, b := range ns2Seeds(t) {
		if err := fuzzseed.Write("FuzzParseNS2", name, b); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzReadNS2File feeds arbitrary mobility files to ReadNS2, through a
// file on disk as a scenario's mobility.file is read (a bounded regular
// file): it must not panic, and its messages and warnings must stay short
// whatever a line holds, quoting at most a prefix of a bad value.
func FuzzReadNS2File(f *testing.F) {
	for _, b := range ns2Seeds(f) {
		f.Add(b)
	}
	long := bytes.Repeat([]byte("x"), 4000)
	f.Add(append(append([]byte("$node_("), long...), ") set X_ 1\n"...))
	f.Add(append(append([]byte("$node_(0) set X_ "), long...), '\n'))
	f.Add(append(append([]byte("$ns_ at 1 \"$node_(0) "), long...), " 1 2\"\n"...))
	f.Add(append(append([]byte("$node_(0) "), long...), '\n'))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "m.ns2")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, warns, err := ReadNS2(path)
		if err != nil {
			if n := len(err.Error()) - len(path); n > 400 {
				t.Fatalf("a message of %d bytes: %.300s", n, err)
			}
			return
		}
		for _, w := range warns {
			if n := len(w) - len(path); n > 700 {
				t.Fatalf("a warning of %d bytes: %.300s", n, w)
			}
		}
	})
}
