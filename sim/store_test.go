package sim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"manetlab/protocol"
	"manetlab/trace/analysis"
)

// bootCounter counts its boots in stable storage and notes the count
// ("boots=N") at every start. It also counts the processes built for its
// node ("built=N"): the driver's up-front parameter check must build its
// process with a store of its own, or node 1 would count one too many.
type bootCounter struct{ cfg protocol.Config }

// bump adds one to the counter under key and returns it.
func bump(s protocol.Store, key string) (uint64, error) {
	var n uint64
	if b, ok := s.Get(key); ok && len(b) == 8 {
		n = binary.BigEndian.Uint64(b)
	}
	n++
	return n, s.Put(key, binary.BigEndian.AppendUint64(nil, n))
}

func init() {
	protocol.Register(protocol.Spec{
		Name:    "test/boots",
		Summary: "counts its boots in stable storage (sim tests)",
		New: func(cfg protocol.Config) (protocol.Process, error) {
			if _, err := bump(cfg.Store, "built"); err != nil {
				return nil, err
			}
			return &bootCounter{cfg: cfg}, cfg.Params.Reader().Err()
		},
	})
}

func (p *bootCounter) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); !ok {
		return
	}
	n, err := bump(p.cfg.Store, "boots")
	if err != nil {
		p.cfg.Env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: "put: " + err.Error()})
		return
	}
	built, _ := p.cfg.Store.Get("built")
	p.cfg.Env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: fmt.Sprintf("boots=%d built=%d", n, binary.BigEndian.Uint64(built))})
}

const bootsYAML = `
name: boots
duration: 10s
nodes: {count: 4}
radio: {range: 250}
mobility: {model: static, area: [100, 100]}
protocol: {name: test/boots}
faults:
  - {at: 1s, crash: [2, 3]}
  - {at: 2s, recover: [2]}
  - {at: 3s, crash: [2]}
  - {at: 4s, recover: [2, 3]}
  - {at: 5s, crash: [2, 4]}
  - {at: 6s, recover: [2]}
`

// TestStoreSurvivesRecovery runs a protocol that counts its boots in its
// store through crashes and recoveries: each node ends with 1 + its
// recoveries, and a node crashed at the end keeps its last count.
func TestStoreSurvivesRecovery(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(parse(t, bootsYAML), Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[protocol.NodeID][]string{
		1: {"boots=1 built=1"},
		2: {"boots=1 built=1", "boots=2 built=2", "boots=3 built=3", "boots=4 built=4"},
		3: {"boots=1 built=1", "boots=2 built=2"},
		4: {"boots=1 built=1"},
	}
	for id, w := range want {
		var got []string
		for _, e := range run.Nodes[id] {
			if e.Ev == string(protocol.NoteInfo) {
				got = append(got, e.Text)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("node %d noted %q, want %q", id, got, w)
		}
	}

	// The store changes nothing about determinism.
	again := t.TempDir()
	if _, err := Run(parse(t, bootsYAML), Options{Out: again}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		a, _ := os.ReadFile(f)
		b, _ := os.ReadFile(filepath.Join(again, filepath.Base(f)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", filepath.Base(f))
		}
	}
}
