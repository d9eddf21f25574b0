//go:build unix && !linux

package launch

import "syscall"

// rssUnit is the unit of Rusage.Maxrss in bytes: bytes on macOS, where
// the other BSDs use kilobytes; close enough for a statistic.
const rssUnit = 1

func dieWithParent(*syscall.SysProcAttr) {}
