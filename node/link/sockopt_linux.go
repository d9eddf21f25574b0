package link

import "syscall"

// ipMulticastAll is IP_MULTICAST_ALL from <linux/in.h>, which the syscall
// package does not define. Its default of 1 lets a socket bound to the
// wildcard address receive every group any socket on the host joined.
const ipMulticastAll = 49

// soReusePort is SO_REUSEPORT from <asm-generic/socket.h> (mips and sparc,
// which differ, are not supported); the syscall package lacks it on amd64.
const soReusePort = 15

// soRcvbufForce is SO_RCVBUFFORCE from <asm-generic/socket.h>: SO_RCVBUF
// past net.core.rmem_max, for a process with CAP_NET_ADMIN.
const soRcvbufForce = 33

// setReadBuffer asks for a receive buffer of n bytes: SO_RCVBUF, which
// the kernel caps at net.core.rmem_max, then SO_RCVBUFFORCE if that was
// not enough and the process may. It is never an error to get less.
func setReadBuffer(fd uintptr, n int) {
	syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
	// The kernel doubles what it is given, for its bookkeeping.
	if got, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF); err == nil && got < 2*n {
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, soRcvbufForce, n)
	}
}

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
