package safefs

import "golang.org/x/sys/unix"

// dirFlags open a directory only to resolve names in it (O_PATH needs no
// read permission on it).
const dirFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC
