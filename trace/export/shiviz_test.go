package export

import (
	"bytes"
	"strings"
	"testing"

	"manetlab/protocol"
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
