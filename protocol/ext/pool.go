package ext

import (
	"strings"
	"sync"
	"time"

	"manetlab/protocol"
)

// pool keeps the programs of ended processes for reuse when
// protocol.params.reuse is set: a program that forgets everything at
// init can serve a later incarnation, or another run of the same
// scenario, without starting again. The explorer replays every state
// from the start and the studio rewinds by replaying: starting an
// interpreter per node and state costs far more than the replay.
//
// fresh holds programs started ahead (Spec.Prepare) and never given an
// event: the driver is about to boot that many nodes, and interpreters
// that start together start in parallel instead of one after another
// (each node's init waits for its program).
var pool = struct {
	sync.Mutex
	idle  map[string][]*child
	fresh map[string][]*child
}{idle: map[string][]*child{}, fresh: map[string][]*child{}}

// maxIdle bounds the programs kept per command line.
const maxIdle = 64

func poolKey(argv []string, timeout time.Duration) string {
	return strings.Join(argv, "\x00") + "\x00" + timeout.String()
}

// take returns a program for argv from the pool: an idle one when reuse
// allows, else one started ahead; nil when there is none.
func take(argv []string, timeout time.Duration, reuse bool) *child {
	pool.Lock()
	defer pool.Unlock()
	k := poolKey(argv, timeout)
	if reuse {
		if c := pop(pool.idle, k); c != nil {
			return c
		}
	}
	return pop(pool.fresh, k)
}

// pop takes the oldest program of m[k], or nil.
func pop(m map[string][]*child, k string) *child {
	l := m[k]
	if len(l) == 0 {
		return nil
	}
	m[k] = l[1:]
	return l[0]
}

// prepare starts programs ahead until count are waiting for argv (Spec.Prepare).
func prepare(params protocol.Params, count int) {
	s, err := parse(params, nil, 0)
	if err != nil {
		return
	}
	pool.Lock()
	defer pool.Unlock()
	k := poolKey(s.cmd, s.timeout)
	have := len(pool.fresh[k])
	if s.reuse {
		have += len(pool.idle[k])
	}
	for range min(count, maxIdle) - have {
		c, err := startChild(s.cmd, s.timeout)
		if err != nil {
			return // the node's own start reports it
		}
		pool.fresh[k] = append(pool.fresh[k], c)
	}
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
