package node

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"manetlab/internal/safefs"
	"manetlab/protocol"
	"manetlab/scenario"
)

// Default multicast groups: data frames and the mobility player's
// location frames.
const (
	DefaultGroup   = "239.77.0.1:47000"
	DefaultControl = "239.77.0.2:47001"
)

// LogPeriod is the least time between two log lines for one reason.
const LogPeriod = 5 * time.Second

// Options say what a node process runs and where.
type Options struct {
	// Scenario is the loaded scenario (with --set and --seed applied).
	Scenario *scenario.Scenario
	// IDs are the hosted nodes; each must be a member of the scenario.
	IDs []protocol.NodeID
	// Out is the trace directory: node-<id>.jsonl per hosted node, and
	// its stable storage node-<id>.store.
	Out string
	// Run names the run; every node and the player of a run use the same
	// name (frames of other runs are dropped).
	Run string
	// Start is the run's start, Unix nanoseconds; zero means now.
	// Env.Now() is the time since Start, and the run stops at Start plus
	// the scenario's duration (both dilated: see Dilation).
	Start int64
	// StartLater, when not nil, says the start is not known yet (Start
	// is ignored): Start opens the sockets and trace files and returns,
	// so that the process can say it is ready, and the run begins once a
	// start (Unix ns) comes on the channel, chosen after every process
	// of the run was ready (the launcher's readiness handshake). A
	// channel closed first stops the process, its nodes never booted.
	StartLater <-chan int64
	// Faults, when not nil, takes faults by hand on the hosted nodes
	// once the run has started (a launcher's, on the process's standard
	// input: --control-stdin); each is applied by the loop between two
	// frames and answered on its Done.
	Faults <-chan Control
	// Dilation, when above 1, runs the nodes in dilated time: the run
	// clock (Env.Now, the stack's clock, the air stamps, trace times)
	// advances at 1/Dilation of the host's clock since Start, so every
	// timer fires Dilation times later in wall time and the run lasts
	// Dilation times the scenario's duration; what the host adds (a
	// datagram's arrival lag, the loop's wake-up) shrinks as much in the
	// model's time. Every process of a run, and the player, needs the
	// same. 0 or 1: the host's clock. At most MaxDilation.
	Dilation int
	// Group and Control are the data and location multicast groups
	// (defaults DefaultGroup, DefaultControl).
	Group, Control string
	// Iface is the interface to use ("" lets the link choose); TTL the
	// multicast TTL (0 keeps frames on this host).
	Iface string
	TTL   int
	// Key, when not empty, signs every frame and rejects unsigned or
	// badly signed ones.
	Key []byte
	// MaxOffset is the largest clock offset between the run's machines:
	// frames stamped further ahead of this machine's clock, or stamped
	// before this process started less this much (sent to an earlier
	// life of a restarted node, or replayed from one), are refused, and
	// so are location frames further ahead. Zero means
	// wire.DefaultMaxOffset (500ms); negative turns the checks off.
	MaxOffset time.Duration
	// Log receives rate-limited lines about dropped datagrams and the
	// protocols' Logf output; nil discards them.
	Log io.Writer
	// Debug, when true, also passes protocol Logf lines to Log.
	Debug bool
	// TraceError, when set, is called (from the loop) the first time a
	// hosted node's trace cannot be written; the node CLI prints a
	// TraceErrorPrefix line for the launcher.
	TraceError func(id protocol.NodeID, err error)
	// Host, when not empty, names this machine in the stats (host=NAME):
	// run --hosts gives each host's name, which the analysis names the
	// host's address by.
	Host string
	// TraceSink, when set (host:port), also streams every trace to a
	// `manetlab trace collect` collector (docs/collect.md).
	TraceSink string
}

// ParseIDs reads a list of node IDs and ranges such as "1-50,60,70-80".
func ParseIDs(s string) ([]protocol.NodeID, error) {
	var ids []protocol.NodeID
	seen := map[protocol.NodeID]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 32)
		b := a
		if err == nil && isRange {
			b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 32)
		}
		if err != nil || a == 0 || b < a {
			return nil, fmt.Errorf("ids %q: %q is not a node ID (1 or more) or a range such as 1-50", s, part)
		}
		if b-a >= 1<<20 {
			return nil, fmt.Errorf("ids %q: range %q is too large", s, part)
		}
		for id := a; id <= b; id++ {
			if seen[protocol.NodeID(id)] {
				return nil, fmt.Errorf("ids %q: node %d listed twice", s, id)
			}
			seen[protocol.NodeID(id)] = true
			ids = append(ids, protocol.NodeID(id))
		}
	}
	return ids, nil
}

// MaxKeyFileBytes bounds a key file (a key is 32 bytes, 64 in hex): a
// key file is a regular file of at most this size, never a FIFO or a
// device (/dev/zero would be read forever).
const MaxKeyFileBytes = 64 << 10

// KeyEnv is the environment variable that holds the run's key when no key
// file is given.
const KeyEnv = "MANETLAB_KEY"

// LoadKey returns the run's HMAC key: from the file at path if path is not
// empty, else from the environment variable KeyEnv, else none. Leading
// and trailing white space (a newline left by an editor or echo) is
// removed; what remains is decoded as hexadecimal if it is an even number
// of hex digits, and used as raw bytes otherwise. An empty key from a
// named file is an error, so that a typo never silently turns signing off.
func LoadKey(path string) ([]byte, error) {
	var raw []byte
	src := KeyEnv
	if path != "" {
		b, err := safefs.ReadInput(path, "key file", MaxKeyFileBytes)
		if err != nil {
			return nil, err
		}
		raw, src = b, path
	} else {
		raw = []byte(os.Getenv(KeyEnv))
		if len(raw) == 0 {
			return nil, nil
		}
	}
	k := []byte(strings.TrimSpace(string(raw)))
	if len(k) == 0 {
		return nil, fmt.Errorf("key %s is empty", src)
	}
	if len(k)%2 == 0 {
		if h, err := hex.DecodeString(string(k)); err == nil {
			return h, nil
		}
	}
	return k, nil
}
