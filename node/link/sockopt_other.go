//go:build unix && !linux

package link

import "syscall"

// setReadBuffer asks for a receive buffer of n bytes; the system may
// give less.
func setReadBuffer(fd uintptr, n int) {
	syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}

// setSockopts lets several processes share the group's port. Without
// IP_MULTICAST_ALL (Linux only), Recv's destination filter alone keeps
// other groups out.
func setSockopts(fd uintptr) error {
	if err := syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return &optError{"SO_REUSEADDR", err}
	}
	if err := syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEPORT, 1); err != nil {
		return &optError{"SO_REUSEPORT", err}
	}
	return nil
}
