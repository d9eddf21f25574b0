package node

import (
	"bytes"
	"os"
	"testing"

	"manetlab/node/netnstest"
	"manetlab/trace"
	"manetlab/trace/collect"
)

// TestTraceSink runs three real nodes, signing with a key, streaming to a
// collector that holds it: each collected file is byte-identical to the
// node's local one.
func TestTraceSink(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(t, staticYAML, "duration=2s")
	local, out := t.TempDir(), t.TempDir()
	key := []byte("sink test key")
	c, err := collect.Listen("127.0.0.1:0", collect.Options{Dir: out, Run: "sink", Members: s.MemberIDs(), Key: key, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	go c.Serve()
	defer c.Close()
	runHost(t, Options{Scenario: s, IDs: ids(3), Out: local, Run: "sink", Key: key, TraceSink: c.Addr().String()})
	for _, id := range ids(3) {
		a, err := os.ReadFile(trace.NodeFile(local, id))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(trace.NodeFile(out, id))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("node %d: collected %d bytes, local %d, not identical", id, len(b), len(a))
		}
	}
}
