package node

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"manetlab/node/link"
	"manetlab/node/netnstest"
	"manetlab/node/wire"
)

// Node 4 is a member that never runs: the attacker's signed bomb claims
// to come from it. Its value is the lowest, so the right leader is 3.
const hostileYAML = `
name: hostile
duration: 4s
nodes:
  list:
    - {id: 1, value: 10, pos: [0, 0]}
    - {id: 2, value: 20, pos: [50, 0]}
    - {id: 3, value: 30, pos: [0, 50]}
    - {id: 4, value: 5, pos: [50, 50]}
radio: {range: 250, hello: {period: 500ms}}
protocol: {name: baseline/floodmax, params: {period: 400ms}}
`

// TestHostileInput runs three nodes in one process with a key and blasts
// them with every kind of bad datagram: each is counted under its reason,
// the heap stays bounded, and the election still elects node 3.
func TestHostileInput(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(t, hostileYAML)
	key := []byte("the run's shared key")
	h, err := Start(context.Background(), Options{Scenario: s, IDs: ids(3), Out: t.TempDir(), Run: "hostile", Key: key, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	atk, err := link.Open(link.Config{Group: DefaultGroup})
	if err != nil {
		t.Fatal(err)
	}
	defer atk.Close()

	// Capture genuine frames to replay.
	var captured [][]byte
	buf := make([]byte, 2048)
	atk.SetReadDeadline(time.Now().Add(2 * time.Second))
	for len(captured) < 20 {
		n, err := atk.Recv(buf)
		if err != nil {
			t.Fatalf("capturing genuine frames: %v", err)
		}
		var f wire.Frame
		if wire.Decode(buf[:n], key, &f) == nil && f.Type != wire.TypeAck {
			captured = append(captured, append([]byte(nil), buf[:n]...))
		}
	}

	run := wire.RunID("hostile")
	sign := func(f wire.Frame, k []byte) []byte {
		b, err := f.AppendTo(nil, k)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	valid := func(seq uint64) wire.Frame {
		return wire.Frame{Type: wire.TypeHello, Run: run, From: 4, Seq: seq, Clock: wire.HLC{Wall: time.Now().UnixNano()}}
	}
	// A msgpack array header declaring 2^32-1 elements, and nothing after.
	bomb := []byte{0x95, 0xdd, 0xff, 0xff, 0xff, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	const each = 200
	want := map[string]uint64{}
	send := func(reason string, b []byte) {
		if err := atk.Send(b); err != nil {
			t.Fatal(err)
		}
		want[reason]++
		time.Sleep(20 * time.Microsecond) // let the receiver keep up: the socket buffer is small
	}
	for i := range each {
		short := make([]byte, rng.IntN(wire.HeaderSize))
		for j := range short {
			short[j] = byte(rng.Uint32())
		}
		send("short", short)
		garbage := make([]byte, 60+rng.IntN(200))
		for j := range garbage {
			garbage[j] = byte(rng.Uint32())
		}
		garbage[0] = 'X'
		send("magic", garbage)
		good := sign(valid(uint64(1000+i)), key)
		send("short", good[:wire.HeaderSize-1])
		v := append([]byte(nil), good...)
		v[4] = 9
		send("version", v)
		other := valid(uint64(1000 + i))
		other.Run = wire.RunID("another run")
		send("run", sign(other, key))
		bad := append([]byte(nil), good...)
		bad[len(bad)-1] ^= 1
		send("hmac", bad)
		send("hmac", sign(valid(uint64(1000+i)), []byte("wrong key")))
		send("no-hmac", sign(valid(uint64(1000+i)), nil))
		send("body", sign(wire.Frame{Type: wire.TypeBroadcast, Run: run, From: 4, Seq: uint64(5000 + i),
			Clock: wire.HLC{Wall: time.Now().UnixNano()}, Code: 1, Body: bomb}, key))
		replay := captured[i%len(captured)]
		send("replay", replay)
	}
	res, err := h.Wait()
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	t.Logf("stats: %s", st)
	for _, r := range []string{"short", "magic", "version", "run", "hmac", "no-hmac", "body"} {
		if st.Rejected[r] != want[r] {
			t.Errorf("%s: counted %d, sent %d", r, st.Rejected[r], want[r])
		}
	}
	// A replayed frame is a duplicate for the nodes that did not send it;
	// for its sender it is also its own.
	if st.Rejected["duplicate"] < want["replay"] {
		t.Errorf("duplicate: counted %d, replayed %d", st.Rejected["duplicate"], want["replay"])
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 64<<20 {
		t.Errorf("heap %d MiB after the attack", ms.HeapAlloc>>20)
	}
	t.Logf("heap after the attack: %.1f MiB (peak system %.1f MiB)", float64(ms.HeapAlloc)/(1<<20), float64(ms.HeapSys)/(1<<20))
	for id, l := range res.Leaders {
		if l != 3 {
			t.Errorf("node %d ended with leader %d, want 3", id, l)
		}
	}
}
