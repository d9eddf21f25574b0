package node

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math/bits"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// Reasons are the labels of rejected datagrams: the wire decoder's
// (wire.Reason) and the node's own. Every label is always present in
// Stats.Rejected, zero or not, so scripts need not guess.
var Reasons = []string{
	// wire.Reason labels: the datagram did not decode.
	"short", "magic", "version", "flags", "type", "length", "field",
	"hmac", "no-hmac", "code", "body", "other",
	// The node's own checks, in pipeline order.
	"run",       // a frame of another run on the same group
	"own",       // a hosted node's own frame, looped back
	"sender",    // From (or a flood's origin, or a location's node) is no member of the scenario
	"duplicate", // a (sender, sequence) already seen, or older than the window
	"range",     // the radio model: out of range at the current positions
	"loss",      // the radio model: lost by the loss model
	"value",     // a body float field NaN, ±Inf, -0 or outside the scenario's values (wire.Bounds)
	"member",    // a body NodeID field naming no member of the scenario (wire.Bounds)
	"clock",     // a clock stamp (or location time) further ahead than Options.MaxOffset
	"stale",     // stamped before this process started, less the maximum offset: a replay after a restart
	"location",  // a location past the run's end or farther than the mobility model can move the node
	// The DCF medium's (radio.mac dcf):
	"air",         // an air section where the medium has none, none where it has, or an airtime not the scenario's
	"collision",   // the radio model: other frames on the air spoiled it
	"half-duplex", // the radio model: the receiver was transmitting
	// A fault by hand (Control, OpCut):
	"cut", // the receiver's link to the sender was cut
}

// Stats are a node process's counters, shared by the nodes it hosts.
type Stats struct {
	// Datagrams the sockets returned.
	Received uint64
	// Delivered counts messages handed to a protocol (one per receiver).
	Delivered uint64
	// Sent counts datagrams transmitted, retransmissions, acks and hellos
	// included.
	Sent uint64
	// Rejected counts dropped datagrams by reason (see Reasons). A frame
	// heard by several hosted nodes may count once per node for the radio
	// reasons ("own", "range", "loss", "collision", "half-duplex").
	Rejected map[string]uint64
	// Air counts the frames of the DCF medium this process put on the
	// air at its hosted nodes; AirLag is how late their datagrams
	// arrived after the start their senders stamped: the median and the
	// 90th percentile, rounded up to a power of two microseconds
	// (docs/node.md, "The DCF medium in real processes"). AirSkewed
	// counts those judged by their arrival (further than AirSkew).
	Air, AirSkewed uint64
	AirLag         [2]time.Duration
	// Dilation is the run clock's (Options.Dilation; 1: none). AirLag is
	// in the run clock's time: the host's lag divided by it.
	Dilation int
	// RefusedFrom counts, per member that sent them, the frames refused
	// for a reason that says they do not get through from that member
	// although the radio model may carry them (RefusedReasons): a key
	// that is not the run's, a clock too far ahead, a body or air
	// section this node cannot accept. For the HMAC reasons the sender is
	// the one the frame claims. Members with none are left out.
	RefusedFrom map[protocol.NodeID]uint64
	// RefusedBy counts the same frames per member, reason and the
	// address they came from, and the frames of a member refused as of
	// another run ("run": another --run name or --start; left out of
	// RefusedFrom, as frames of another run sharing the group are no
	// sign of a lost link): what the analysis names a node's, or an
	// address's, refused frames by (docs/analysis.md). Frames failing
	// the HMAC check ("hmac", "no-hmac") prove no sender: they are
	// counted with From 0, by address alone.
	RefusedBy map[Refusal]uint64
	// Addr is the address this process's own frames come from, as the
	// source of the first of them looped back to it (else its
	// interface's first IPv4 address; zero if none): the analysis tells
	// a node's frames from frames claiming its ID by it.
	Addr netip.Addr
	// Host names the machine (Options.Host; empty: not given).
	Host string
	// LateStart, when not zero, is how long after the run's start the
	// start reached this process (Options.StartLater): it was ready, but
	// the machine did not run it in time; StartLoad is the machine's load
	// average and runnable threads then (Linux's /proc/loadavg; empty
	// elsewhere). The analysis names its nodes late with these figures
	// (docs/analysis.md, "Cross-host problems").
	LateStart time.Duration
	StartLoad [2]string
}

// RefusedReasons are the reasons counted by sender in Stats.RefusedFrom.
// Left out: the radio model's (own, range, loss, collision, half-duplex),
// which the ground truth models; duplicate, a copy of what got through;
// stale, a replay (a sender's current frames pass); run, sender and
// location, no member of this run sent them; and the reasons of a
// header that does not decode.
var RefusedReasons = []string{"hmac", "no-hmac", "clock", "code", "body", "length", "field", "value", "member", "air"}

// String formats the counters on one line, as the trace's stats event and
// the log carry them: "received=N delivered=N sent=N short=N ...", zero
// reasons left out.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "received=%d delivered=%d sent=%d", s.Received, s.Delivered, s.Sent)
	for _, r := range Reasons {
		if n := s.Rejected[r]; n > 0 {
			fmt.Fprintf(&b, " %s=%d", r, n)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.RefusedFrom)) {
		if n := s.RefusedFrom[id]; n > 0 {
			fmt.Fprintf(&b, " %s%d=%d", RefusedFromPrefix, id, n)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(s.RefusedBy), Refusal.compare) {
		if n := s.RefusedBy[k]; n > 0 {
			fmt.Fprintf(&b, " %s", k.key(n))
		}
	}
	if s.Addr.IsValid() {
		fmt.Fprintf(&b, " %s=%s", trace.StatsAddr, s.Addr)
	}
	if s.Host != "" && !strings.ContainsAny(s.Host, " =\t\n") {
		fmt.Fprintf(&b, " %s=%s", trace.StatsHost, s.Host)
	}
	if s.Air > 0 {
		fmt.Fprintf(&b, " air-frames=%d air-skewed=%d air-lag-p50-us=%d air-lag-p90-us=%d",
			s.Air, s.AirSkewed, s.AirLag[0].Microseconds(), s.AirLag[1].Microseconds())
	}
	if s.Dilation > 1 {
		fmt.Fprintf(&b, " dilation=%d", s.Dilation)
	}
	if s.LateStart > 0 {
		fmt.Fprintf(&b, " %s=%d", trace.StatsLateStart, s.LateStart.Milliseconds())
		if s.StartLoad[0] != "" {
			fmt.Fprintf(&b, " %s=%s %s=%s", trace.StatsStartLoad, s.StartLoad[0], trace.StatsStartRunnable, s.StartLoad[1])
		}
	}
	return b.String()
}

// RefusedFromPrefix names a count of Stats.RefusedFrom in the stats
// line: "refused-from-3=12" (docs/trace.md).
const RefusedFromPrefix = trace.StatsRefusedFrom

// counters are updated by the reader goroutines and the loop alike.
type counters struct {
	received, delivered, sent atomic.Uint64
	rejected                  map[string]*atomic.Uint64 // fixed keys: read-only map
	// refused[i] counts the frames of member ids[i] refused for one of
	// RefusedReasons.
	ids       []protocol.NodeID
	refused   []atomic.Uint64
	refMu     sync.Mutex
	byReason  map[Refusal]uint64 // Stats.RefusedBy
	addr      netip.Addr         // Stats.Addr, under refMu
	airSkewed atomic.Uint64
	// airLag[i] counts DCF frames that arrived less than 2^i µs after
	// their stamped start (and at least 2^(i-1)); the last, later ones.
	airLag [24]atomic.Uint64
}

// Refusal is frames refused for one reason, come from one address
// (zero: not known), claiming one member (0: frames that prove no
// sender, failing the HMAC check).
type Refusal struct {
	From   protocol.NodeID
	Reason string
	Addr   netip.Addr
}

// key is the refusal's count n in the stats line:
// refused-REASON-from-ID-at-ADDR=N, refused-REASON-at-ADDR=N (no sender
// proved), refused-REASON-from-ID=N (no address known).
func (r Refusal) key(n uint64) string {
	k := trace.StatsRefusedPrefix + r.Reason
	if r.From != 0 {
		k += fmt.Sprintf("-from-%d", r.From)
	}
	if r.Addr.IsValid() {
		k += "-at-" + r.Addr.String()
	}
	return fmt.Sprintf("%s=%d", k, n)
}

// compare orders refusals by member, then reason (Reasons' order), then
// address.
func (r Refusal) compare(o Refusal) int {
	if c := cmp.Compare(r.From, o.From); c != 0 {
		return c
	}
	if c := cmp.Compare(slices.Index(Reasons, r.Reason), slices.Index(Reasons, o.Reason)); c != 0 {
		return c
	}
	return r.Addr.Compare(o.Addr)
}

// ownAddr notes the source address of a frame of this process's own,
// looped back: the first one is Stats.Addr.
func (c *counters) ownAddr(a netip.Addr) {
	if !a.IsValid() {
		return
	}
	c.refMu.Lock()
	if !c.addr.IsValid() {
		c.addr = a
	}
	c.refMu.Unlock()
}

// refusedBy counts a frame claiming member from (0: none proved), come
// from src, refused for reason (a rare path: a map under a lock, holding
// only the keys that occur).
func (c *counters) refusedBy(from protocol.NodeID, reason string, src netip.Addr) {
	c.refMu.Lock()
	if c.byReason == nil {
		c.byReason = map[Refusal]uint64{}
	}
	c.byReason[Refusal{from, reason, src}]++
	c.refMu.Unlock()
}

// lag counts a DCF frame that arrived d after its stamped start.
func (c *counters) lag(d time.Duration) {
	i := 0
	if us := d.Microseconds(); us > 0 {
		i = min(bits.Len64(uint64(us)), len(c.airLag)-1)
	}
	c.airLag[i].Add(1)
}

// newCounters makes the counters of a process of a run of members ids,
// indexed as the mobility model indexes them.
func newCounters(ids []protocol.NodeID) *counters {
	c := &counters{rejected: map[string]*atomic.Uint64{}, ids: ids, refused: make([]atomic.Uint64, len(ids))}
	for _, r := range Reasons {
		c.rejected[r] = new(atomic.Uint64)
	}
	return c
}

func (c *counters) snapshot() Stats {
	s := Stats{Received: c.received.Load(), Delivered: c.delivered.Load(), Sent: c.sent.Load(), Rejected: map[string]uint64{}}
	for r, n := range c.rejected {
		s.Rejected[r] = n.Load()
	}
	var lag [len(c.airLag)]uint64
	for i := range lag {
		lag[i] = c.airLag[i].Load()
		s.Air += lag[i]
	}
	s.AirSkewed = c.airSkewed.Load()
	for i := range c.refused {
		if n := c.refused[i].Load(); n > 0 {
			if s.RefusedFrom == nil {
				s.RefusedFrom = map[protocol.NodeID]uint64{}
			}
			s.RefusedFrom[c.ids[i]] += n
		}
	}
	c.refMu.Lock()
	if len(c.byReason) > 0 {
		s.RefusedBy = maps.Clone(c.byReason)
	}
	s.Addr = c.addr
	c.refMu.Unlock()
	for q, frac := range []float64{0.5, 0.9} {
		var seen uint64
		for i, n := range lag {
			seen += n
			if n > 0 && float64(seen) >= frac*float64(s.Air) {
				s.AirLag[q] = time.Duration(1<<i) * time.Microsecond
				break
			}
		}
	}
	return s
}

// rateLog writes at most one line per reason per period, with the number
// of lines it held back, so that a flood of garbage cannot flood the log.
type rateLog struct {
	w      io.Writer
	period time.Duration
	mu     sync.Mutex
	last   map[string]time.Time
	held   map[string]int
}

func newRateLog(w io.Writer, period time.Duration) *rateLog {
	return &rateLog{w: w, period: period, last: map[string]time.Time{}, held: map[string]int{}}
}

func (l *rateLog) logf(reason, format string, args ...any) {
	l.write(reason, "dropped ("+reason+")", format, args...)
}

// notef logs what is not a drop, at the same limited rate per reason.
func (l *rateLog) notef(reason, format string, args ...any) {
	l.write(reason, reason, format, args...)
}

func (l *rateLog) write(reason, label, format string, args ...any) {
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(l.last[reason]) < l.period {
		l.held[reason]++
		return
	}
	l.last[reason] = now
	more := ""
	if n := l.held[reason]; n > 0 {
		more = fmt.Sprintf(" (and %d more since the last line)", n)
		l.held[reason] = 0
	}
	fmt.Fprintf(l.w, "node: %s: %s%s\n", label, fmt.Sprintf(format, args...), more)
}
