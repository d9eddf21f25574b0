package hosts

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// linkMarker separates `ip -o -4 addr show`'s lines from `ip -o link
// show`'s in the check's output.
const linkMarker = "--links--"

// links reads `ip -o link show` lines: every interface's flags.
func links(lines []string) map[string][]string {
	out := map[string][]string{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 3 || !strings.HasSuffix(f[1], ":") || !strings.HasPrefix(f[2], "<") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		out[name] = strings.Split(strings.Trim(f[2], "<>"), ",")
	}
	return out
}

// ifaceNets reads, in `ip -o -4 addr show` lines, the IPv4 addresses
// (with their prefixes) of interface name.
func ifaceNets(lines []string, name string) []netip.Prefix {
	var out []netip.Prefix
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 4 || f[2] != "inet" {
			continue
		}
		if n, _, _ := strings.Cut(f[1], "@"); n != name {
			continue
		}
		if p, err := netip.ParsePrefix(f[3]); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// checkIface says what is wrong with interface name of a host for a
// run's nodes: missing, down, without multicast or without an IPv4
// address; nil if nothing.
func checkIface(name string, ls map[string][]string, nets []netip.Prefix) error {
	flags, ok := ls[name]
	switch {
	case !ok:
		return fmt.Errorf("interface %s: no such interface there (it has %s): name one of them (iface=IF in the host list, or --iface)", name, strings.Join(slices.Sorted(func(yield func(string) bool) {
			for n := range ls {
				if !yield(n) {
					return
				}
			}
		}), ", "))
	case !slices.Contains(flags, "UP"):
		return fmt.Errorf("interface %s is down (flags %s): ip link set %s up", name, strings.Join(flags, ","), name)
	case !slices.Contains(flags, "MULTICAST"):
		return fmt.Errorf("interface %s has no MULTICAST flag: ip link set %s multicast on", name, name)
	case len(nets) == 0:
		return fmt.Errorf("interface %s has no IPv4 address: the nodes there could reach no other host", name)
	}
	return nil
}

// checkNetworks says, for every host whose interface cannot reach the
// others', why: its address is on no network of another host's
// interface (each address in a prefix of the other's), or it is the
// same address as another's (a NAT interface, as every Vagrant box's
// first one is: 10.0.2.15 on each). One host alone is not checked.
func checkNetworks(ss []*session) []string {
	if len(ss) < 2 {
		return nil
	}
	var bad []string
	for _, x := range ss {
		var same []string
		shares := false
		for _, y := range ss {
			if y == x {
				continue
			}
			for _, a := range x.info.nets {
				for _, b := range y.info.nets {
					switch {
					case a.Addr() == b.Addr():
						same = append(same, fmt.Sprintf("%s's %s", y.c.host.Target, y.info.iface))
					case a.Contains(b.Addr()) || b.Contains(a.Addr()):
						shares = true
					}
				}
			}
		}
		switch {
		case len(same) > 0:
			bad = append(bad, fmt.Sprintf("host %s: its interface %s has the address %s, as %s has: a NAT interface (a Vagrant box's first), which cannot reach the other hosts: name the one on the hosts' shared network (iface=IF in the host list)",
				x.c.host.Target, x.info.iface, x.info.nets[0].Addr(), strings.Join(same, ", ")))
		case !shares:
			bad = append(bad, fmt.Sprintf("host %s: its interface %s (%s) is on no network of the other hosts' interfaces: its nodes could not hear theirs; name the interface on the hosts' shared network (iface=IF in the host list)",
				x.c.host.Target, x.info.iface, prefixes(x.info.nets)))
		}
	}
	return bad
}

func prefixes(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}
