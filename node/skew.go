package node

import (
	"fmt"
	"os"
	"time"
)

// SkewEnv names the environment variable that skews, for tests only,
// the wall clock a node process (and the player) reads: a duration such
// as "300ms" or "-200ms", as if its host's clock were that far ahead or
// behind. Every wall reading shifts (the run clock's start, the hybrid
// logical clock, the traces' wall, the freshness checks), the monotonic
// time between readings does not. run passes its environment on, so a
// launcher started with it skews every process of its host.
const SkewEnv = "MANETLAB_TEST_CLOCK_OFFSET"

// skew is the test-only clock offset of this process (SkewEnv).
var skew = readSkew()

func readSkew() time.Duration {
	v := os.Getenv(SkewEnv)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "node: %s=%q: %v: no skew\n", SkewEnv, v, err)
		return 0
	}
	return d
}

// wallNow is this host's wall clock, skewed (with its monotonic reading
// shifted alike: sinceWall undoes that).
func wallNow() time.Time { return time.Now().Add(skew) }

// wallNS is wallNow in Unix ns.
func wallNS() int64 { return time.Now().UnixNano() + int64(skew) }

// sinceWall is the time elapsed since a reading of wallNow.
func sinceWall(t time.Time) time.Duration { return time.Since(t) + skew }
