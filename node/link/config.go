package link

import (
	"fmt"
	"net"
	"net/netip"
)

// Config says where a Conn listens and sends.
type Config struct {
	// Group is the IPv4 multicast group and UDP port, e.g.
	// "239.77.0.1:47000". Every node of a run uses the same one.
	Group string
	// Iface is the interface to join the group on and send from. Empty
	// means the loopback interface, which must have the MULTICAST flag:
	// another interface is never chosen silently, because joining a group
	// there sends IGMP reports onto its network.
	Iface string
	// TTL is the multicast time-to-live: 0 (the default) keeps frames on
	// this host; 1 reaches the local network; more crosses routers.
	TTL int
	// ReadBuffer is the socket's receive buffer in bytes (SO_RCVBUF):
	// what the kernel holds while the reader is busy or not scheduled,
	// before it drops datagrams. 0 means DefaultReadBuffer; -1 keeps
	// the kernel's default (net.core.rmem_default, often 208 KiB, about
	// 270 small frames). The kernel caps it at net.core.rmem_max unless
	// the process may exceed that (CAP_NET_ADMIN, SO_RCVBUFFORCE).
	ReadBuffer int
}

// DefaultReadBuffer is the receive buffer a Conn asks for: 4 MiB holds
// about 5,000 small frames, 25 ms at 200,000 frames/s, so that a reader
// descheduled for a few milliseconds on a loaded machine loses nothing.
// It is memory the kernel may use, not memory taken up front.
const DefaultReadBuffer = 4 << 20

// group parses and checks Group.
func (c Config) group() (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(c.Group)
	if err != nil {
		return ap, fmt.Errorf("link: group %q: want an IPv4 multicast address and port such as 239.77.0.1:47000: %w", c.Group, err)
	}
	if !ap.Addr().Is4() || !ap.Addr().IsMulticast() {
		return ap, fmt.Errorf("link: group %q: %s is not an IPv4 multicast address (224.0.0.0/4)", c.Group, ap.Addr())
	}
	if ap.Port() == 0 {
		return ap, fmt.Errorf("link: group %q: port 0", c.Group)
	}
	return ap, nil
}

// iface finds the interface Iface names, or chooses one.
func (c Config) iface() (*net.Interface, error) {
	if c.Iface != "" {
		ifi, err := net.InterfaceByName(c.Iface)
		if err != nil {
			return nil, fmt.Errorf("link: interface %q: %w", c.Iface, err)
		}
		if ifi.Flags&net.FlagMulticast == 0 {
			return nil, fmt.Errorf("link: interface %q has no MULTICAST flag (ip link set %s multicast on)", c.Iface, c.Iface)
		}
		return ifi, nil
	}
	return Loopback()
}

// Loopback returns the loopback interface if it is up with the MULTICAST
// flag, or an error that says how to make it so.
func Loopback() (*net.Interface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("link: list interfaces: %w", err)
	}
	const want = net.FlagUp | net.FlagMulticast
	for i := range ifs {
		if ifs[i].Flags&net.FlagLoopback == 0 {
			continue
		}
		if ifs[i].Flags&want == want {
			return &ifs[i], nil
		}
		return nil, fmt.Errorf("link: %s has no multicast: as root run `ip link set %s multicast on; ip route add 224.0.0.0/4 dev %s`, or name an interface with --iface (with --ttl 1 for several machines)", ifs[i].Name, ifs[i].Name, ifs[i].Name)
	}
	return nil, fmt.Errorf("link: no loopback interface; name one with --iface")
}
