package link

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// KernelDrops returns how many datagrams the kernel dropped for this
// Conn's socket since it was opened, mostly because its receive buffer was
// full: the drops column of /proc/net/udp for the socket's inode. Linux
// only; elsewhere it returns an error.
func (c *Conn) KernelDrops() (uint64, error) {
	ino, err := c.inode()
	if err != nil {
		return 0, fmt.Errorf("link: kernel drops: %w", err)
	}
	b, err := os.ReadFile("/proc/self/net/udp")
	if err != nil {
		return 0, fmt.Errorf("link: kernel drops: %w", err)
	}
	n, ok := udpDrops(b, ino)
	if !ok {
		return 0, fmt.Errorf("link: kernel drops: socket inode %d not in /proc/self/net/udp", ino)
	}
	return n, nil
}

// udpDrops finds the line of socket inode ino in the text of
// /proc/net/udp and returns its drops column (the last).
func udpDrops(table []byte, ino uint64) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(table))
	sc.Scan() // the header
	want := strconv.FormatUint(ino, 10)
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		// sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
		if len(f) < 13 || string(f[9]) != want {
			continue
		}
		n, err := strconv.ParseUint(string(f[len(f)-1]), 10, 64)
		return n, err == nil
	}
	return 0, false
}
