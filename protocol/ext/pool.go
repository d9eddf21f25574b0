package ext

import (
	"strings"
	"sync"
	"time"
)

// pool keeps the programs of ended processes for reuse when
// protocol.params.reuse is set: a program that forgets everything at
// init can serve a later incarnation, or another run of the same
// scenario, without starting again. The explorer replays every state
// from the start and the studio rewinds by replaying: starting an
// interpreter per node and state costs far more than the replay.
var pool = struct {
	sync.Mutex
	idle map[string][]*child
}{idle: map[string][]*child{}}

// maxIdle bounds the programs kept per command line.
const maxIdle = 64

func poolKey(argv []string, timeout time.Duration) string {
	return strings.Join(argv, "\x00") + "\x00" + timeout.String()
}

// take returns an idle program for argv, or nil.
func take(argv []string, timeout time.Duration) *child {
	pool.Lock()
	defer pool.Unlock()
	k := poolKey(argv, timeout)
	l := pool.idle[k]
	if len(l) == 0 {
		return nil
	}
	c := l[len(l)-1]
	pool.idle[k] = l[:len(l)-1]
	return c
}

// give keeps c for reuse, or ends it when enough are kept.
func give(c *child) {
	pool.Lock()
	k := poolKey(c.argv, c.timeout)
	if len(pool.idle[k]) < maxIdle {
		pool.idle[k] = append(pool.idle[k], c)
		c = nil
	}
	pool.Unlock()
	if c != nil {
		c.close()
	}
}

// reusable is a pooled program seen by the adapter: closing it gives it
// back instead of ending it.
type reusable struct{ *child }

func (r reusable) close() { give(r.child) }
