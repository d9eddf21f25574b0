package link

import "syscall"

// ipMulticastAll is IP_MULTICAST_ALL from <linux/in.h>, which the syscall
// package does not define. Its default of 1 lets a socket bound to the
// wildcard address receive every group any socket on the host joined.
const ipMulticastAll = 49

// soReusePort is SO_REUSEPORT from <asm-generic/socket.h> (mips and sparc,
// which differ, are not supported); the syscall package lacks it on amd64.
const soReusePort = 15

// setSockopts lets several processes share the group's port and stops the
// socket hearing groups it did not join.
func setSockopts(fd uintptr) error {
	if err := syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return &optError{"SO_REUSEADDR", err}
	}
	if err := syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soReusePort, 1); err != nil {
		return &optError{"SO_REUSEPORT", err}
	}
	if err := syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipMulticastAll, 0); err != nil {
		return &optError{"IP_MULTICAST_ALL", err}
	}
	return nil
}
