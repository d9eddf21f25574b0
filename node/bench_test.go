package node

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"manetlab/node/link"
	"manetlab/node/netnstest"
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
func BenchmarkReceive(b *testing.B) { benchReceive(b, false) }

// BenchmarkReceiveSeparateSender is BenchmarkReceive with the sender in a
// separate process (this test binary re-run as TestBlastProcess), so that
// this process's CPU time is the receiver's alone: it also reports the
// CPU microseconds per frame received, bare and through a Host.
func BenchmarkReceiveSeparateSender(b *testing.B) { benchReceive(b, true) }

// TestBlastProcess is the separate sender of BenchmarkReceiveSeparateSender:
// it runs only when that benchmark starts it, and blasts until killed.
func TestBlastProcess(t *testing.T) {
	if os.Getenv("MANETLAB_BENCH_BLAST") == "" {
		t.Skip("the sender process of BenchmarkReceiveSeparateSender")
	}
	blast(context.Background(), t, []byte(os.Getenv("MANETLAB_BENCH_BLAST")))
}

// cpuTime is this process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchReceive(b *testing.B, separate bool) {
	if !netnstest.Run(b, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(b, hostileYAML, "duration=30s")
	key := []byte("bench key")
	const window = time.Second
	for b.Loop() {
		ctx, stop := context.WithCancel(context.Background())
		var child *exec.Cmd
		if separate {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBlastProcess$")
			cmd.Env = append(os.Environ(), "MANETLAB_BENCH_BLAST="+string(key))
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			child = cmd
			time.Sleep(200 * time.Millisecond) // the child starts sending
		} else {
			go blast(ctx, b, key)
		}

		bare, err := link.Open(link.Config{Group: DefaultGroup})
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 2048)
		n := 0
		cpu0 := cpuTime()
		deadline := time.Now().Add(window)
		bare.SetReadDeadline(deadline)
		for {
			if _, err := bare.Recv(buf); err != nil {
				break
			}
			n++
		}
		bareCPU := cpuTime() - cpu0
		bare.Close()
		bareRate := float64(n) / window.Seconds()

		h, err := Start(ctx, Options{Scenario: s, IDs: ids(1), Out: b.TempDir(), Run: "hostile", Key: key})
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		before := h.Stats()
		cpu1 := cpuTime()
		time.Sleep(window)
		after := h.Stats()
		nodeCPU := cpuTime() - cpu1
		stop()
		h.Wait()
		if child != nil {
			child.Process.Kill()
			child.Wait()
		}
		nodeRate := float64(after.Received-before.Received) / window.Seconds()
		delivered := float64(after.Delivered-before.Delivered) / window.Seconds()
		b.ReportMetric(bareRate, "bare-frames/s")
		b.ReportMetric(nodeRate, "node-frames/s")
		b.ReportMetric(delivered, "node-delivered/s")
		b.ReportMetric(nodeRate/bareRate, "ratio")
		if separate {
			b.ReportMetric(float64(bareCPU.Microseconds())/float64(n), "bare-cpu-µs/frame")
			b.ReportMetric(float64(nodeCPU.Microseconds())/float64(after.Received-before.Received), "node-cpu-µs/frame")
		}
	}
}

// blast multicasts signed floodmax announcements from node 4 until ctx
// ends, with rising sequence numbers so that none is a duplicate.
func blast(ctx context.Context, b testing.TB, key []byte) {
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
