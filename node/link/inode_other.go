//go:build !linux

package link

import "errors"

// inode is Linux only: other systems have no /proc/net/udp.
func (c *Conn) inode() (uint64, error) {
	return 0, errors.New("no /proc/net/udp on this system")
}
