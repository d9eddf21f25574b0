package link

import (
	"bytes"
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"manetlab/node/netnstest"
)

// TestRecvBatchInNamespace: a batch read returns every datagram in the
// order sent, across several reads when more arrive than a batch holds,
// skips and counts a datagram longer than the buffers and a foreign
// group's (IP_MULTICAST_ALL turned back on), and wakes on Close.
func TestRecvBatchInNamespace(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	rx := open(t, Config{Group: groupA})
	rc, err := rx.udp.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipMulticastAll, 1) })
	if serr != nil {
		t.Fatal(serr)
	}
	tx := open(t, Config{Group: groupA})
	foreign := open(t, Config{Group: groupB})

	sent := frames(10, "A")
	for i, f := range sent {
		if i == 3 {
			tx.Send(bytes.Repeat([]byte{1}, 100)) // longer than the buffers
			foreign.Send([]byte("group B"))
		}
		if err := tx.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	b := NewBatch(4, 64)
	var got [][]byte
	reads := 0
	for len(got) < len(sent) {
		rx.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, err := rx.RecvBatch(b)
		if err != nil {
			t.Fatalf("after %d datagrams: %v", len(got), err)
		}
		if n != b.Len() || n == 0 || n > 4 {
			t.Fatalf("RecvBatch returned %d, Len %d", n, b.Len())
		}
		for i := range n {
			got = append(got, bytes.Clone(b.Datagram(i)))
		}
		reads++
	}
	for i := range sent {
		if !bytes.Equal(got[i], sent[i]) {
			t.Errorf("datagram %d: %q, want %q", i, got[i], sent[i])
		}
	}
	if reads < 3 {
		t.Errorf("%d datagrams in %d reads of a batch of 4", len(got), reads)
	}
	if s := rx.Stats(); s.Received != uint64(len(sent)) || s.Truncated != 1 || s.Filtered != 1 {
		t.Errorf("stats %+v: want %d received, 1 truncated, 1 filtered", s, len(sent))
	}

	rx.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := rx.RecvBatch(b); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("deadline: %v", err)
	}
	rx.SetReadDeadline(time.Time{})
	done := make(chan error)
	go func() { _, err := rx.RecvBatch(b); done <- err }()
	time.Sleep(20 * time.Millisecond)
	rx.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("RecvBatch after Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not wake RecvBatch")
	}
}

// TestReadBufferAndKernelDrops: a Conn gets the read buffer it asks for
// (root may exceed net.core.rmem_max), -1 keeps the kernel's default,
// and a socket nobody reads counts the datagrams the kernel dropped once
// its buffer was full.
func TestReadBufferAndKernelDrops(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	big := open(t, Config{Group: groupA})
	if n, err := big.ReadBuffer(); err != nil || n < 2*DefaultReadBuffer {
		t.Errorf("default read buffer %d (%v), want %d (twice %d: the kernel's bookkeeping)", n, err, 2*DefaultReadBuffer, DefaultReadBuffer)
	}
	def, err := os.ReadFile("/proc/sys/net/core/rmem_default")
	if err != nil {
		t.Fatal(err)
	}
	small := open(t, Config{Group: groupA, ReadBuffer: -1})
	if n, err := small.ReadBuffer(); err != nil || string(bytes.TrimSpace(def)) != itoa(n) {
		t.Errorf("read buffer -1: %d (%v), want the kernel's default %s", n, err, bytes.TrimSpace(def))
	}

	tx := open(t, Config{Group: groupB}) // its own group: it hears none of this
	d0, err := small.KernelDrops()
	if err != nil {
		t.Fatal(err)
	}
	if d0 != 0 {
		t.Errorf("a new socket has %d drops", d0)
	}
	frame := make([]byte, 64)
	const sent = 5000 // far more than 208 KiB holds
	for range sent {
		if _, err := tx.udp.WriteToUDPAddrPort(frame, small.group); err != nil {
			t.Fatal(err)
		}
	}
	d1, err := small.KernelDrops()
	if err != nil {
		t.Fatal(err)
	}
	if d1 == 0 || d1 >= sent {
		t.Errorf("%d kernel drops after %d unread datagrams, want some but not all", d1, sent)
	}
	// The big buffer held them all.
	if d, err := big.KernelDrops(); err != nil || d != 0 {
		t.Errorf("4 MiB buffer: %d drops (%v)", d, err)
	}
	n := 0
	for {
		big.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := big.Recv(frame); err != nil {
			break
		}
		n++
	}
	if n != sent {
		t.Errorf("the 4 MiB buffer gave %d of %d", n, sent)
	}
	small.Close()
	if _, err := small.KernelDrops(); err == nil {
		t.Error("KernelDrops after Close: no error")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestUDPDrops parses /proc/net/udp lines.
func TestUDPDrops(t *testing.T) {
	table := []byte(`   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
 1136: 00000000:B798 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 12345 2 0000000000000000 0
 1137: 00000000:B798 00000000:0000 07 00000000:00034000 00:00000000 00000000     0        0 123456 2 0000000000000000 4711
garbage
`)
	if n, ok := udpDrops(table, 123456); !ok || n != 4711 {
		t.Errorf("inode 123456: %d, %v", n, ok)
	}
	if n, ok := udpDrops(table, 12345); !ok || n != 0 {
		t.Errorf("inode 12345: %d, %v", n, ok)
	}
	if _, ok := udpDrops(table, 1234); ok {
		t.Error("inode 1234 found")
	}
	if _, ok := udpDrops(nil, 1); ok {
		t.Error("found in nothing")
	}
}
