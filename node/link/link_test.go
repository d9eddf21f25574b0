package link

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"manetlab/node/netnstest"
)

const (
	groupA = "239.77.0.1:47000"
	groupB = "239.77.0.2:47000" // same port: only the group tells them apart
)

func open(t *testing.T, cfg Config) *Conn {
	t.Helper()
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// recvAll collects datagrams until want arrived or nothing came for quiet.
func recvAll(t *testing.T, c *Conn, want int, quiet time.Duration) [][]byte {
	t.Helper()
	var got [][]byte
	buf := make([]byte, 2048)
	for len(got) < want {
		c.SetReadDeadline(time.Now().Add(quiet))
		n, err := c.Recv(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
		got = append(got, bytes.Clone(buf[:n]))
	}
	return got
}

func frames(n int, tag string) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = fmt.Appendf(nil, "%s frame %d", tag, i)
	}
	return out
}

func TestMulticastInNamespace(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	a := open(t, Config{Group: groupA})
	b := open(t, Config{Group: groupA, Iface: "lo"})
	sender := open(t, Config{Group: groupA})
	other := open(t, Config{Group: groupB})

	if a.Interface().Name != "lo" {
		t.Errorf("default interface %s, want lo", a.Interface().Name)
	}
	if ttl, err := a.TTL(); err != nil || ttl != 0 {
		t.Errorf("default TTL %d (%v), want 0: frames must stay on this host", ttl, err)
	}

	sent := frames(20, "A")
	for _, f := range sent {
		if err := sender.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]*Conn{"a": a, "b": b, "sender (loopback)": sender} {
		got := recvAll(t, c, len(sent), 2*time.Second)
		if len(got) != len(sent) {
			t.Errorf("%s received %d of %d frames", name, len(got), len(sent))
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i], sent[i]) {
				t.Errorf("%s frame %d: %q, want %q", name, i, got[i], sent[i])
			}
		}
	}
	if got := recvAll(t, other, 1, 200*time.Millisecond); len(got) != 0 {
		t.Errorf("a Conn on group B received %d frames of group A: %q", len(got), got[0])
	}
	if s := other.Stats(); s.Filtered != 0 {
		t.Errorf("IP_MULTICAST_ALL=0 should keep group A out of the socket; %d filtered in user space", s.Filtered)
	}
	if err := other.Send([]byte("B only")); err != nil {
		t.Fatal(err)
	}
	if got := recvAll(t, other, 1, 2*time.Second); len(got) != 1 {
		t.Errorf("group B Conn did not hear its own frame")
	}
	if got := recvAll(t, a, 1, 200*time.Millisecond); len(got) != 0 {
		t.Errorf("group A Conn received a group B frame %q", got[0])
	}
	if s := sender.Stats(); s.Sent != uint64(len(sent)) || s.Received != uint64(len(sent)) || s.SendErrors != 0 {
		t.Errorf("sender stats %+v", s)
	}
}

// TestDestinationFilter turns IP_MULTICAST_ALL back on, as on a kernel
// without it, to check that the control-message filter alone keeps a
// foreign group out.
func TestDestinationFilter(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	other := open(t, Config{Group: groupB})
	sender := open(t, Config{Group: groupA})
	rc, err := other.udp.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipMulticastAll, 1) })
	if serr != nil {
		t.Fatal(serr)
	}
	for _, f := range frames(5, "A") {
		if err := sender.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	if got := recvAll(t, other, 1, 300*time.Millisecond); len(got) != 0 {
		t.Errorf("received a foreign group's frame %q", got[0])
	}
	if s := other.Stats(); s.Filtered != 5 {
		t.Errorf("filtered %d datagrams, want the 5 the kernel let through", s.Filtered)
	}
}

func TestRecvEdgesInNamespace(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	c := open(t, Config{Group: groupA})
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := c.Recv(make([]byte, 100)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("deadline: %v", err)
	}
	// A datagram longer than the buffer is dropped and counted.
	c.Send(bytes.Repeat([]byte{1}, 100))
	c.Send([]byte("short"))
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 10)
	n, err := c.Recv(buf)
	if err != nil || string(buf[:n]) != "short" {
		t.Errorf("after a long datagram: %q, %v", buf[:n], err)
	}
	if s := c.Stats(); s.Truncated != 1 {
		t.Errorf("truncated %d, want 1", s.Truncated)
	}
	// TTL is what was asked.
	c1 := open(t, Config{Group: groupB, TTL: 1})
	if ttl, _ := c1.TTL(); ttl != 1 {
		t.Errorf("TTL %d, want 1", ttl)
	}
	// Close wakes a blocked Recv.
	c.SetReadDeadline(time.Time{})
	done := make(chan error)
	go func() { _, err := c.Recv(buf); done <- err }()
	time.Sleep(20 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Recv after Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not wake Recv")
	}
}

// TestOpenRejects needs no namespace: every case fails before a socket
// exists.
func TestOpenRejects(t *testing.T) {
	cases := map[string]Config{
		"no group":          {},
		"no port":           {Group: "239.77.0.1"},
		"port 0":            {Group: "239.77.0.1:0"},
		"unicast address":   {Group: "10.0.0.1:47000"},
		"IPv6":              {Group: "[ff02::1]:47000"},
		"negative TTL":      {Group: groupA, TTL: -1},
		"TTL over 255":      {Group: groupA, TTL: 256},
		"no such interface": {Group: groupA, Iface: "manetlab-none0"},
		"read buffer -2":    {Group: groupA, ReadBuffer: -2},
	}
	for name, cfg := range cases {
		if c, err := Open(cfg); err == nil {
			c.Close()
			t.Errorf("%s: opened", name)
		}
	}
}
