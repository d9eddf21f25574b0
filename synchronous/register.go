package synchronous

import "manetlab/protocol/rounds"

// The algorithms register as protocols over the synchronizers:
// sync/timeslice, sync/slow-fast, sync/bfs.
func init() {
	for _, f := range Families() {
		rounds.Register(f)
	}
}
