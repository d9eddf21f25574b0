package link

import (
	"context"
	"testing"
	"time"

	"manetlab/node/netnstest"
)

// BenchmarkRecv measures receive throughput, frames/s, through Conn.Recv
// and through the ipv4.PacketConn underneath read directly, the baseline
// Recv's filtering is paid against. A sender floods 64-byte frames; the
// receiver is the bottleneck.
func BenchmarkRecv(b *testing.B) {
	if !netnstest.Run(b, netnstest.LoopbackMulticast) {
		return
	}
	read := map[string]func(c *Conn, buf []byte) error{
		"conn": func(c *Conn, buf []byte) error { _, err := c.Recv(buf); return err },
		"bare-ipv4": func(c *Conn, buf []byte) error {
			_, _, _, err := c.pc.ReadFrom(buf)
			return err
		},
	}
	for _, name := range []string{"conn", "bare-ipv4"} {
		b.Run(name, func(b *testing.B) {
			rx, err := Open(Config{Group: groupA})
			if err != nil {
				b.Fatal(err)
			}
			defer rx.Close()
			tx, err := Open(Config{Group: groupA})
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Close()
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			go func() {
				frame := make([]byte, 64)
				for ctx.Err() == nil {
					tx.Send(frame)
				}
			}()
			buf := make([]byte, 2048)
			rx.SetReadDeadline(time.Now().Add(time.Minute))
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if err := read[name](rx, buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "frames/s")
		})
	}
}
