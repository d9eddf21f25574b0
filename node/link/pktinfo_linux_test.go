package link

import (
	"net/netip"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/ipv4"
)

// cmsg builds one control message as the kernel lays it out.
func cmsg(level, typ int32, data []byte) []byte {
	b := make([]byte, syscall.CmsgSpace(len(data)))
	h := (*syscall.Cmsghdr)(unsafe.Pointer(&b[0]))
	h.Level, h.Type = level, typ
	h.SetLen(syscall.CmsgLen(len(data)))
	copy(b[syscall.CmsgLen(0):], data)
	return b
}

func pktinfoData(ifindex int32, spec, addr [4]byte) []byte {
	var pi syscall.Inet4Pktinfo
	pi.Ifindex, pi.Spec_dst, pi.Addr = ifindex, spec, addr
	return unsafe.Slice((*byte)(unsafe.Pointer(&pi)), syscall.SizeofInet4Pktinfo)
}

// TestPktinfo: pktinfo reads what ipv4.ControlMessage.Parse reads, finds
// IP_PKTINFO after another message, and refuses what is cut or malformed.
func TestPktinfo(t *testing.T) {
	pi := cmsg(syscall.IPPROTO_IP, syscall.IP_PKTINFO, pktinfoData(7, [4]byte{10, 0, 0, 1}, [4]byte{239, 77, 0, 1}))
	ttl := cmsg(syscall.IPPROTO_IP, syscall.IP_TTL, []byte{64, 0, 0, 0})
	want := netip.MustParseAddr("239.77.0.1")
	for name, oob := range map[string][]byte{"alone": pi, "after IP_TTL": append(append([]byte(nil), ttl...), pi...)} {
		dst, ifi, ok := pktinfo(oob)
		if !ok || dst != want || ifi != 7 {
			t.Errorf("%s: %v %d %v, want %v 7", name, dst, ifi, ok, want)
		}
		var cm ipv4.ControlMessage
		if err := cm.Parse(oob); err != nil || cm.IfIndex != ifi || !cm.Dst.Equal(dst.AsSlice()) {
			t.Errorf("%s: ipv4 reads %v %d (%v)", name, cm.Dst, cm.IfIndex, err)
		}
	}
	short := cmsg(syscall.IPPROTO_IP, syscall.IP_PKTINFO, []byte{1, 2, 3})
	huge := append([]byte(nil), pi...)
	(*syscall.Cmsghdr)(unsafe.Pointer(&huge[0])).SetLen(1 << 30)
	tiny := append([]byte(nil), pi...)
	(*syscall.Cmsghdr)(unsafe.Pointer(&tiny[0])).SetLen(3)
	for name, oob := range map[string][]byte{
		"empty": nil, "cut header": pi[:5], "cut data": pi[:syscall.CmsgLen(4)], "short data": short,
		"length past the end": huge, "length under a header": tiny, "IP_TTL only": ttl,
	} {
		if dst, ifi, ok := pktinfo(oob); ok {
			t.Errorf("%s: read %v %d", name, dst, ifi)
		}
	}
}
