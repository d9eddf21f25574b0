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
}

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
