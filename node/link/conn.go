package link

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/ipv4"
)

// Stats counts what a Conn did. Filtered datagrams are the ones the kernel
// delivered although they were not for us: a group we did not join or
// another interface; a steady count means a misconfigured host.
type Stats struct {
	Received   uint64 // datagrams returned by Recv
	Filtered   uint64 // dropped: addressed to another group, or arrived on another interface
	Truncated  uint64 // dropped: longer than the buffer given to Recv
	Sent       uint64 // datagrams sent
	SendErrors uint64 // Send calls that failed
}

// Conn is a multicast socket joined to one group on one interface. Send is
// safe for concurrent use; Recv is serialised internally.
type Conn struct {
	udp   *net.UDPConn
	pc    *ipv4.PacketConn
	group netip.AddrPort
	dst   *net.UDPAddr
	ifi   *net.Interface
	ttl   int

	recvMu sync.Mutex
	oob    []byte // reused control-message buffer, so Recv does not allocate
	cm     ipv4.ControlMessage

	received, filtered, truncated, sent, sendErrors atomic.Uint64
}

// Open joins cfg.Group on the chosen interface and returns a Conn ready to
// send and receive. Several Conns, in one process or many, may open the
// same group and port.
func Open(cfg Config) (*Conn, error) {
	group, err := cfg.group()
	if err != nil {
		return nil, err
	}
	if cfg.TTL < 0 || cfg.TTL > 255 {
		return nil, fmt.Errorf("link: TTL %d: want 0 (this host only) to 255", cfg.TTL)
	}
	rbuf := cfg.ReadBuffer
	switch {
	case rbuf == 0:
		rbuf = DefaultReadBuffer
	case rbuf < -1:
		return nil, fmt.Errorf("link: read buffer %d: want bytes, 0 (the default, %d) or -1 (the kernel's)", rbuf, DefaultReadBuffer)
	}
	ifi, err := cfg.iface()
	if err != nil {
		return nil, err
	}
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) {
			if serr = setSockopts(fd); serr == nil && rbuf > 0 {
				setReadBuffer(fd, rbuf)
			}
		}); err != nil {
			return err
		}
		return serr
	}}
	// The wildcard address, not the group: binding the group would make
	// the group our source address on send.
	pconn, err := lc.ListenPacket(context.Background(), "udp4", fmt.Sprintf("0.0.0.0:%d", group.Port()))
	if err != nil {
		return nil, fmt.Errorf("link: listen on port %d: %w", group.Port(), err)
	}
	c := &Conn{
		udp:   pconn.(*net.UDPConn),
		group: group,
		dst:   net.UDPAddrFromAddrPort(group),
		ifi:   ifi,
		ttl:   cfg.TTL,
	}
	c.pc = ipv4.NewPacketConn(c.udp)
	if err := c.setup(); err != nil {
		c.udp.Close()
		return nil, fmt.Errorf("link: group %s on %s: %w", group, ifi.Name, err)
	}
	c.oob = ipv4.NewControlMessage(ipv4.FlagDst | ipv4.FlagInterface)
	return c, nil
}

func (c *Conn) setup() error {
	if err := c.pc.JoinGroup(c.ifi, &net.UDPAddr{IP: c.dst.IP}); err != nil {
		return fmt.Errorf("join: %w", err)
	}
	if err := c.pc.SetMulticastInterface(c.ifi); err != nil {
		return fmt.Errorf("set multicast interface: %w", err)
	}
	if err := c.pc.SetMulticastLoopback(true); err != nil {
		return fmt.Errorf("set multicast loopback: %w", err)
	}
	if err := c.pc.SetMulticastTTL(c.ttl); err != nil {
		return fmt.Errorf("set multicast TTL %d: %w", c.ttl, err)
	}
	if err := c.pc.SetControlMessage(ipv4.FlagDst|ipv4.FlagInterface, true); err != nil {
		return fmt.Errorf("ask for destination control messages: %w", err)
	}
	return nil
}

// Send multicasts one datagram to the group.
func (c *Conn) Send(b []byte) error {
	if _, err := c.udp.WriteToUDPAddrPort(b, c.group); err != nil {
		c.sendErrors.Add(1)
		return fmt.Errorf("link: send %d bytes to %s: %w", len(b), c.group, err)
	}
	c.sent.Add(1)
	return nil
}

// Recv blocks until a datagram addressed to our group arrives on our
// interface, copies it into buf and returns its length. Datagrams for other
// groups or interfaces, and datagrams longer than buf, are counted and
// skipped. The source address is not returned: identity comes from the
// frame. Errors are those of the socket, such as a deadline passing
// (os.ErrDeadlineExceeded) or net.ErrClosed after Close.
func (c *Conn) Recv(buf []byte) (int, error) {
	c.recvMu.Lock()
	defer c.recvMu.Unlock()
	for {
		// The standard library's ReadMsgUDPAddrPort allocates nothing, unlike
		// ipv4.PacketConn.ReadFrom; the ipv4 package only parses.
		n, oobn, flags, _, err := c.udp.ReadMsgUDPAddrPort(buf, c.oob)
		if err != nil {
			return 0, fmt.Errorf("link: receive on %s: %w", c.group, err)
		}
		if flags&syscall.MSG_TRUNC != 0 {
			c.truncated.Add(1)
			continue
		}
		if !c.oursOOB(c.oob[:oobn]) {
			c.filtered.Add(1)
			continue
		}
		c.received.Add(1)
		return n, nil
	}
}

// oursOOB reports whether a datagram with control messages oob was sent
// to our group and arrived on our interface: the second line of defence
// after IP_MULTICAST_ALL=0, and the only one on kernels without it. On
// Linux it reads IP_PKTINFO itself, without the two allocations of
// ipv4.ControlMessage.Parse per datagram.
func (c *Conn) oursOOB(oob []byte) bool {
	if dst, ifindex, ok := pktinfo(oob); ok {
		return dst == c.group.Addr() && ifindex == c.ifi.Index
	}
	c.cm = ipv4.ControlMessage{}
	return c.cm.Parse(oob) == nil && c.ours(&c.cm)
}

// ours reports whether control message cm says our group and interface.
func (c *Conn) ours(cm *ipv4.ControlMessage) bool {
	dst, ok := netip.AddrFromSlice(cm.Dst)
	return ok && dst.Unmap() == c.group.Addr() && cm.IfIndex == c.ifi.Index
}

// SetReadDeadline bounds the wait of Recv; the zero time waits forever.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.udp.SetReadDeadline(t) }

// Close leaves the group and releases the socket; a blocked Recv returns
// an error wrapping net.ErrClosed.
func (c *Conn) Close() error { return c.pc.Close() }

// ReadBuffer returns the socket's receive buffer in bytes as the kernel
// reports it (SO_RCVBUF: twice what was set, the kernel's bookkeeping
// included).
func (c *Conn) ReadBuffer() (int, error) {
	rc, err := c.udp.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var serr error
	if err := rc.Control(func(fd uintptr) { n, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF) }); err != nil {
		return 0, err
	}
	return n, serr
}

// Stats returns the counters so far.
func (c *Conn) Stats() Stats {
	return Stats{
		Received:   c.received.Load(),
		Filtered:   c.filtered.Load(),
		Truncated:  c.truncated.Load(),
		Sent:       c.sent.Load(),
		SendErrors: c.sendErrors.Load(),
	}
}

// Group returns the group and port the Conn uses.
func (c *Conn) Group() netip.AddrPort { return c.group }

// Interface returns the interface the Conn joined on and sends from.
func (c *Conn) Interface() *net.Interface { return c.ifi }

// TTL returns the multicast TTL of sent frames, as the socket reports it.
func (c *Conn) TTL() (int, error) { return c.pc.MulticastTTL() }
