package link

import "syscall"

// inode is the socket's inode number, which /proc/net/udp lists.
func (c *Conn) inode() (uint64, error) {
	rc, err := c.udp.SyscallConn()
	if err != nil {
		return 0, err
	}
	var st syscall.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil {
		return 0, err
	}
	return st.Ino, serr
}
