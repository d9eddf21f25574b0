package export

import (
	"bytes"
	"strings"
	"testing"

	"manetlab/protocol"
	_ "manetlab/ring"
	"manetlab/scenario"
	"manetlab/sim"
)

func TestShiVizAsksForNodesOnLargeRuns(t *testing.T) {
	dir := t.TempDir()
	y := "duration: 3s\nnodes: {count: 70, placement: grid}\nmobility: {area: [900, 900]}\nradio: {range: 150}\n"
	s, err := scenario.Parse([]byte(y), "big.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := ShiViz([]string{dir}, &out, Options{}); err == nil || !strings.Contains(err.Error(), "--nodes") {
		t.Fatalf("70 nodes without --nodes: %v", err)
	}
	if _, err := ShiViz([]string{dir}, &out, Options{Nodes: []protocol.NodeID{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
}

// TestShiVizSaysWhatMessagesCarry: a send's line in the ShiViz log
// carries what its message says (protocol.MessageDescriber), so node 8's
// Chang-Roberts token reads as 8's at every node that forwards it.
func TestShiVizSaysWhatMessagesCarry(t *testing.T) {
	dir := t.TempDir()
	s, err := scenario.Load("../../configs/ring-chang-roberts.yaml", []string{"duration=3s"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := ShiViz([]string{dir}, &out, Options{}); err != nil {
		t.Fatal(err)
	}
	senders := map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "send token ") && strings.Contains(line, `text="token from 8, election 1"`) {
			src := line[strings.LastIndex(line, "[")+1:]
			senders[src[:strings.Index(src, ":")]] = true
		}
	}
	if len(senders) != 8 {
		t.Fatalf("node 8's token is named in the sends of %d trace files, want 8:\n%.2000s", len(senders), out.String())
	}
}
