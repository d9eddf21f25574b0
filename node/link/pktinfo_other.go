//go:build !linux

package link

import "net/netip"

// pktinfo is Linux only: elsewhere ipv4.ControlMessage.Parse reads the
// destination (IP_RECVDSTADDR, IP_RECVIF on the BSDs).
func pktinfo([]byte) (netip.Addr, int, bool) { return netip.Addr{}, 0, false }
