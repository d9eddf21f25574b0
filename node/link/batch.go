package link

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"golang.org/x/net/ipv4"
)

// Batch holds the buffers RecvBatch fills: up to its capacity of
// datagrams in one system call (recvmmsg(2) on Linux; one datagram a call
// elsewhere), so that a burst costs one system call and one wake-up per
// batch rather than per datagram.
type Batch struct {
	msgs []ipv4.Message
	keep []int // the datagrams of the last RecvBatch that are ours
}

// NewBatch makes a Batch of n buffers of size bytes each: a datagram
// longer than size is dropped and counted as truncated.
func NewBatch(n, size int) *Batch {
	b := &Batch{msgs: make([]ipv4.Message, n), keep: make([]int, 0, n)}
	bufs := make([]byte, n*size)
	for i := range b.msgs {
		b.msgs[i].Buffers = [][]byte{bufs[i*size : (i+1)*size : (i+1)*size]}
		b.msgs[i].OOB = ipv4.NewControlMessage(ipv4.FlagDst | ipv4.FlagInterface)
	}
	return b
}

// Len is the number of datagrams the last RecvBatch returned.
func (b *Batch) Len() int { return len(b.keep) }

// Datagram returns the i-th datagram of the last RecvBatch, 0 <= i <
// Len(). It is valid until the next RecvBatch with b.
func (b *Batch) Datagram(i int) []byte {
	m := &b.msgs[b.keep[i]]
	return m.Buffers[0][:m.N]
}

// Source is the address the i-th datagram of the last RecvBatch came
// from (the zero Addr if the system did not say).
func (b *Batch) Source(i int) netip.Addr {
	if a, ok := b.msgs[b.keep[i]].Addr.(*net.UDPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// RecvBatch blocks until at least one datagram addressed to our group
// arrives on our interface, then returns as many as the kernel holds, up
// to b's capacity, filtered as Recv filters them: read them with
// b.Datagram. Errors are those of Recv.
func (c *Conn) RecvBatch(b *Batch) (int, error) {
	c.recvMu.Lock()
	defer c.recvMu.Unlock()
	for {
		b.keep = b.keep[:0]
		n, err := c.pc.ReadBatch(b.msgs, 0)
		if err != nil {
			return 0, fmt.Errorf("link: receive on %s: %w", c.group, err)
		}
		for i := range n {
			m := &b.msgs[i]
			if m.Flags&syscall.MSG_TRUNC != 0 {
				c.truncated.Add(1)
				continue
			}
			if !c.oursOOB(m.OOB[:m.NN]) {
				c.filtered.Add(1)
				continue
			}
			b.keep = append(b.keep, i)
		}
		if len(b.keep) > 0 {
			c.received.Add(uint64(len(b.keep)))
			return len(b.keep), nil
		}
	}
}
