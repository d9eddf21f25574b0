package node

import (
	"testing"
	"time"

	"manetlab/node/netnstest"
	"manetlab/protocol"
)

// numbered is a test protocol: node 1 sends Count numbered unicasts to
// node 2, which records the numbers in arrival order.
type numbered struct {
	env  protocol.Env
	id   protocol.NodeID
	got  []int
	sent int
}

// Num is numbered's one message.
type Num struct{ N int }

// Kind implements protocol.Message.
func (Num) Kind() string { return "num" }

const numberedCount = 60

// numberedByID lets the test read what each process received once the
// Host has stopped.
var numberedByID = map[protocol.NodeID]*numbered{}

func init() {
	protocol.Register(protocol.Spec{
		Name:     "test/numbered",
		Summary:  "test only: node 1 sends numbered unicasts to node 2",
		Messages: []protocol.Message{Num{}},
		New: func(cfg protocol.Config) (protocol.Process, error) {
			p := &numbered{env: cfg.Env, id: cfg.ID}
			numberedByID[cfg.ID] = p
			return p, cfg.Params.Reader().Err()
		},
	})
}

func (p *numbered) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Start:
		if p.id == 1 {
			p.env.SetTimer(200*time.Millisecond, "go", 0)
		}
	case protocol.Timeout:
		// In bursts, so that frames queue behind unacknowledged ones.
		for range 10 {
			if p.sent < numberedCount {
				p.sent++
				p.env.Send(2, Num{N: p.sent})
			}
		}
		if p.sent < numberedCount {
			p.env.SetTimer(10*time.Millisecond, "go", 0)
		}
	case protocol.Receive:
		if m, ok := e.Msg.(Num); ok {
			p.got = append(p.got, m.N)
		}
	}
}

// TestUnicastAckFIFO sends numbered unicasts over a link losing 10% of
// frames (acks too): every one arrives, once, in order. (At 10 % a
// transmission and its acknowledgement both get through with probability
// 0.81, so a message is given up after the DCF's 7 attempts with
// probability 0.19^7, 9e-6; at 30 %, 0.51^7, one run in three lost one of
// the 60.)
func TestUnicastAckFIFO(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(t, `
name: fifo
duration: 4s
nodes: {count: 2}
radio: {range: 250, loss: {p: 0.1}}
mobility: {model: static, area: [100, 100]}
protocol: {name: test/numbered}
`)
	res := runHost(t, Options{Scenario: s, IDs: ids(2), Out: t.TempDir(), Run: "fifo"})
	t.Logf("stats: %s", res.Stats)
	got := numberedByID[2].got
	if len(got) != numberedCount {
		t.Fatalf("node 2 received %d messages, want %d: %v", len(got), numberedCount, got)
	}
	for i, n := range got {
		if n != i+1 {
			t.Fatalf("message %d is number %d: %v", i, n, got)
		}
	}
	if res.Stats.Rejected["loss"] == 0 || res.Stats.Rejected["duplicate"] == 0 {
		t.Errorf("want losses and retransmitted duplicates with p=0.1: %s", res.Stats)
	}
}
