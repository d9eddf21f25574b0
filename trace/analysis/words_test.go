package analysis

import (
	"bytes"
	"strings"
	"testing"
)

func TestTextSingularCounts(t *testing.T) {
	c := &CheckReport{Run: "r", Protocol: "p", Properties: []Property{
		{Name: "one", Verdict: Invalid, Violations: 1},
		{Name: "two", Verdict: Invalid, Violations: 2},
	}}
	var b bytes.Buffer
	c.WriteText(&b)
	if !strings.Contains(b.String(), "invalid (1 violation)\n") || !strings.Contains(b.String(), "invalid (2 violations)\n") {
		t.Errorf("check text:\n%s", b.String())
	}
	b.Reset()
	(&MetricsReport{Run: "r", Protocol: "p", Nodes: 1}).WriteText(&b)
	if !strings.HasPrefix(b.String(), "run r: p, 1 node, ") {
		t.Errorf("metrics text:\n%s", b.String())
	}
}
