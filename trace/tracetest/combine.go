// Package tracetest holds what tests of several packages do with trace
// directories.
package tracetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/trace"
)

var nodeFile = regexp.MustCompile(`^node-(\d+)\.jsonl$`)

// Combine writes the run directory src into dst (created if need be) in
// the combined layout, as the simulator would: every node's header in
// node order, then every node's events by time, each node's in its order
// (a stable sort of the node files taken in node order); other files are
// copied. A line that is not JSON goes with the line before it, so that
// damaged runs can be combined too.
func Combine(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	names, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		t    int64
		text string
	}
	var heads []string
	var evs []line
	var ids []int
	for _, de := range names {
		m := nodeFile.FindStringSubmatch(de.Name())
		if m == nil {
			data, err := os.ReadFile(filepath.Join(src, de.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, de.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		id, _ := strconv.Atoi(m[1])
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		data, err := os.ReadFile(trace.NodeFile(src, protocol.NodeID(id)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		heads = append(heads, lines[0])
		last := int64(0)
		for _, l := range lines[1:] {
			var e trace.Event
			if err := json.Unmarshal([]byte(l), &e); err == nil {
				last = e.T
			}
			evs = append(evs, line{last, l}) // damage goes with the line before
		}
	}
	slices.SortStableFunc(evs, func(a, b line) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	var out strings.Builder
	for _, h := range heads {
		out.WriteString(h + "\n")
	}
	for _, e := range evs {
		out.WriteString(e.text + "\n")
	}
	if err := os.WriteFile(trace.NodesFile(dst), []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
