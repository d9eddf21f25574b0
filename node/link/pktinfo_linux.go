package link

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
	"syscall"
)

// pktinfo reads the IP_PKTINFO control message in oob: the datagram's
// destination address (in_pktinfo.ipi_addr) and the index of the
// interface it arrived on. ok is false if oob holds none, or is malformed.
func pktinfo(oob []byte) (dst netip.Addr, ifindex int, ok bool) {
	// struct cmsghdr { size_t len; int level; int type; } then the data,
	// aligned to size_t, and the next header aligned the same.
	const word = bits.UintSize / 8
	align := func(n int) int { return (n + word - 1) &^ (word - 1) }
	ne := binary.NativeEndian
	for len(oob) >= syscall.SizeofCmsghdr {
		var n int
		if word == 8 {
			n = int(min(ne.Uint64(oob), uint64(len(oob))+1))
		} else {
			n = int(ne.Uint32(oob))
		}
		if n < syscall.SizeofCmsghdr || n > len(oob) {
			return netip.Addr{}, 0, false
		}
		level, typ := int32(ne.Uint32(oob[word:])), int32(ne.Uint32(oob[word+4:]))
		if level == syscall.IPPROTO_IP && typ == syscall.IP_PKTINFO {
			// struct in_pktinfo { int ipi_ifindex; struct in_addr
			// ipi_spec_dst, ipi_addr; }
			data := oob[align(syscall.SizeofCmsghdr):n]
			if len(data) < syscall.SizeofInet4Pktinfo {
				return netip.Addr{}, 0, false
			}
			return netip.AddrFrom4([4]byte(data[8:12])), int(int32(ne.Uint32(data))), true
		}
		if align(n) >= len(oob) {
			break
		}
		oob = oob[align(n):]
	}
	return netip.Addr{}, 0, false
}
