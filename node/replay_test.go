package node

import (
	"context"
	"testing"
	"time"

	"manetlab/node/link"
	"manetlab/node/netnstest"
	"manetlab/node/wire"
	"manetlab/protocol"
)

const replayYAML = `
name: replay
duration: 3500ms
nodes:
  list:
    - {id: 1, value: 10, pos: [0, 0]}
    - {id: 2, value: 20, pos: [50, 0]}
    - {id: 3, value: 30, pos: [0, 50]}
radio: {range: 250, hello: {period: 200ms}}
protocol: {name: baseline/floodmax, params: {period: 200ms}}
`

// TestReplaysWithKey records signed frames of a run, then replays them
// to a restarted node of the same run (node 1, killed and started again:
// its duplicate windows are new) and to a later run reusing the run's
// name and key. The restarted node refuses every one as stale, the later
// run every one as another run's.
func TestReplaysWithKey(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(t, replayYAML)
	key := []byte("replay test key")
	start := time.Now().Add(200 * time.Millisecond).UnixNano()
	dir1 := t.TempDir()
	opt := func(ids []int, out string, start int64) Options {
		o := Options{Scenario: s, Out: out, Run: "replay", Start: start, Key: key, Log: testLog{t}}
		for _, id := range ids {
			o.IDs = append(o.IDs, ids1(id)...)
		}
		return o
	}
	others, err := Start(context.Background(), opt([]int{2, 3}, t.TempDir(), start))
	if err != nil {
		t.Fatal(err)
	}
	ctx1, crash := context.WithCancel(context.Background())
	first, err := Start(ctx1, opt([]int{1}, dir1, start))
	if err != nil {
		t.Fatal(err)
	}
	atk, err := link.Open(link.Config{Group: DefaultGroup})
	if err != nil {
		t.Fatal(err)
	}
	defer atk.Close()
	var captured [][]byte
	buf := make([]byte, 2048)
	atk.SetReadDeadline(time.Now().Add(3 * time.Second))
	for len(captured) < 60 {
		n, err := atk.Recv(buf)
		if err != nil {
			t.Fatalf("capturing: %v", err)
		}
		var f wire.Frame
		if wire.Decode(buf[:n], key, &f) == nil {
			captured = append(captured, append([]byte(nil), buf[:n]...))
		}
	}
	crash()
	if _, err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond) // down for longer than the maximum offset
	again, err := Start(context.Background(), opt([]int{1}, dir1, start))
	if err != nil {
		t.Fatal(err)
	}
	if !again.nodes[0].recovered {
		t.Fatal("the second start of node 1 is not a recovery")
	}
	for _, b := range captured {
		if err := atk.Send(b); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Microsecond)
	}
	res, err := again.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("restarted node 1: %s", res.Stats)
	if got := res.Stats.Rejected["stale"]; got < uint64(len(captured)) {
		t.Errorf("restarted node: %d stale, replayed %d", got, len(captured))
	}
	if res.Leaders[1] != 3 {
		t.Errorf("restarted node 1 ended with leader %d, want 3", res.Leaders[1])
	}
	if _, err := others.Wait(); err != nil {
		t.Fatal(err)
	}

	// A new run with the same name and key: another start time, so
	// another run on the wire.
	later, err := Start(context.Background(), opt([]int{1, 2, 3}, t.TempDir(), time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range captured {
		if err := atk.Send(b); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Microsecond)
	}
	res, err = later.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("later run: %s", res.Stats)
	if got := res.Stats.Rejected["run"]; got != uint64(len(captured)) {
		t.Errorf("later run: %d frames of another run, replayed %d", got, len(captured))
	}
}

func ids1(id int) []protocol.NodeID { return []protocol.NodeID{protocol.NodeID(id)} }
