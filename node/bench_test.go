package node

import (
	"context"
	"testing"
	"time"

	"manetlab/internal/netnstest"
	"manetlab/node/link"
	"manetlab/node/wire"
)

// BenchmarkReceive measures a node process's receive path against a bare
// link receiver in the same run: a sender multicasts signed broadcast
// frames as fast as it can (from node 4, a member not hosted, in range);
// one phase counts what a bare link.Conn reads in a window, the other what
// a Host hosting one node takes through its whole pipeline (decode, run,
// HMAC, duplicates, radio model, message decoding, trace line, protocol
// step). It reports both rates in frames/s and their ratio. The sender
// and the receiver share the machine's cores, so the figures are for
// comparison only.
func BenchmarkReceive(b *testing.B) {
	if !netnstest.Run(b, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(b, hostileYAML, "duration=30s")
	key := []byte("bench key")
	const window = time.Second
	for b.Loop() {
		ctx, stop := context.WithCancel(context.Background())
		go blast(ctx, b, key)

		bare, err := link.Open(link.Config{Group: DefaultGroup})
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 2048)
		n := 0
		deadline := time.Now().Add(window)
		bare.SetReadDeadline(deadline)
		for {
			if _, err := bare.Recv(buf); err != nil {
				break
			}
			n++
		}
		bare.Close()
		bareRate := float64(n) / window.Seconds()

		h, err := Start(ctx, Options{Scenario: s, IDs: ids(1), Out: b.TempDir(), Run: "hostile", Key: key})
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		before := h.Stats()
		time.Sleep(window)
		after := h.Stats()
		stop()
		h.Wait()
		nodeRate := float64(after.Received-before.Received) / window.Seconds()
		delivered := float64(after.Delivered-before.Delivered) / window.Seconds()
		b.ReportMetric(bareRate, "bare-frames/s")
		b.ReportMetric(nodeRate, "node-frames/s")
		b.ReportMetric(delivered, "node-delivered/s")
		b.ReportMetric(nodeRate/bareRate, "ratio")
	}
}

// blast multicasts signed floodmax announcements from node 4 until ctx
// ends, with rising sequence numbers so that none is a duplicate.
func blast(ctx context.Context, b *testing.B, key []byte) {
	tx, err := link.Open(link.Config{Group: DefaultGroup})
	if err != nil {
		b.Error(err)
		return
	}
	defer tx.Close()
	codec, _ := wire.NewCodec(mustSpec("baseline/floodmax"))
	code, body, err := codec.Encode(announce(4, 5))
	if err != nil {
		b.Error(err)
		return
	}
	clock := wire.NewClock(nil)
	var frame []byte
	for seq := uint64(1); ctx.Err() == nil; seq++ {
		f := wire.Frame{Type: wire.TypeBroadcast, Run: wire.RunID("hostile"), From: 4, Seq: seq, Clock: clock.Now(), Code: code, Body: body}
		frame, _ = f.AppendTo(frame[:0], key)
		tx.Send(frame)
	}
}
