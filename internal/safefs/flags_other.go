//go:build unix && !linux

package safefs

import "golang.org/x/sys/unix"

// dirFlags open a directory only to resolve names in it.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
