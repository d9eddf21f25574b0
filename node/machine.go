package node

import (
	"net"
	"net/netip"
	"os"
	"strings"
)

// machineLoad is the machine's load average over a minute and the
// threads runnable now, from Linux's /proc/loadavg; empty where it
// cannot be read.
func machineLoad() [2]string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return [2]string{}
	}
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return [2]string{}
	}
	run, _, _ := strings.Cut(f[3], "/")
	return [2]string{f[0], run}
}

// MachineLoad is "load average L, N runnable" (machineLoad), or "".
func MachineLoad() string {
	l := machineLoad()
	if l[0] == "" {
		return ""
	}
	return "load average " + l[0] + ", " + l[1] + " runnable"
}

// ifaceAddr is the first IPv4 address of ifi, the source of the
// multicast frames sent on it; zero if none.
func ifaceAddr(ifi *net.Interface) netip.Addr {
	if ifi == nil {
		return netip.Addr{}
	}
	as, err := ifi.Addrs()
	if err != nil {
		return netip.Addr{}
	}
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap().Is4() {
				return ip.Unmap()
			}
		}
	}
	return netip.Addr{}
}
