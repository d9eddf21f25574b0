package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestDocExamples checks that every example line in docs/trace.md is what
// the writer would produce for it, so the documentation cannot drift from
// the key order, the omitted fields or the number format.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/trace.md")
	if err != nil {
		t.Fatalf("reading the format documentation: %v", err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, `{"t":`) {
			continue
		}
		n++
		var e Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Errorf("example %s: %v", line, err)
			continue
		}
		if got := string(AppendJSON(nil, &e)); got != line {
			t.Errorf("example differs from the writer's output\n doc: %s\nours: %s", line, got)
		}
	}
	if n < 5 {
		t.Fatalf("found only %d example lines in docs/trace.md", n)
	}
}
