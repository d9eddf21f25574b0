package netstack

import (
	"math/rand/v2"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// Defaults of Config's link constants.
const (
	// DefaultHopLimit bounds a flood's hops.
	DefaultHopLimit = 32
	// DefaultRetries is how many times a unicast frame is retransmitted
	// before the sender gives up (802.11's short retry limit).
	DefaultRetries = 7
	// DefaultRetrySlack is what the first wait for an acknowledgement
	// adds to the round trip (two radio delays).
	DefaultRetrySlack = time.Millisecond
	// DefaultRelayJitter bounds the random wait before relaying a flood
	// frame, so that neighbours do not all retransmit at the same instant.
	DefaultRelayJitter = time.Millisecond
	// DefaultQueueLimit bounds the frames waiting per unicast link; a
	// protocol that sends faster than the link acknowledges loses the
	// excess (traced as drop reason "queue").
	DefaultQueueLimit = 1024
)

// Config is what every node's stack of a run shares.
type Config struct {
	// IDs maps member index to node ID; Index is its inverse.
	IDs   []protocol.NodeID
	Index map[protocol.NodeID]int32
	// Hello is the period of neighbour discovery's hellos; a neighbour
	// not heard for longer than Timeout is down (checked at each hello).
	Hello, Timeout time.Duration
	// TraceHello traces hellos sent and dropped (trace.hello).
	TraceHello bool
	// HopLimit bounds a flood's hops (at most 255).
	HopLimit int
	// Retries is how many times a unicast frame is retransmitted.
	Retries int
	// RetryBase is the wait for the first acknowledgement; each
	// retransmission doubles it.
	RetryBase time.Duration
	// RelayJitter bounds the random wait before a relay.
	RelayJitter time.Duration
	// QueueLimit bounds the frames waiting on one unicast link.
	QueueLimit int
	// Routing is how Deliver travels: RoutingFlood (a flood per message)
	// or RoutingAODV (routes found on demand, docs/routing.md), with
	// AODV's parameters.
	Routing string
	AODV    AODVConfig
	// MAC is the 802.11 DCF medium (radio.mac dcf); nil: the ideal
	// medium, where Transmit is the frame's whole life on the air.
	MAC *DCF

	// Scratch for the frames and events the stacks hand their driver
	// without keeping them: a Config and its stacks are used from one
	// goroutine, and a Driver keeps neither past the call (without them,
	// every event and frame passed through the interface was allocated).
	ev        trace.Event
	tx        Frame
	macFrames []*Frame // frameCopy's frames, free
}

// NewConfig is the configuration of a run whose members are ids (in
// member index order), with the defaults for a radio of one-hop latency
// delay: the first acknowledgement is awaited for the round trip plus
// DefaultRetrySlack.
func NewConfig(ids []protocol.NodeID, hello, timeout, delay time.Duration, traceHello bool) *Config {
	c := &Config{IDs: ids, Index: make(map[protocol.NodeID]int32, len(ids)),
		Hello: hello, Timeout: timeout, TraceHello: traceHello,
		HopLimit: DefaultHopLimit, Retries: DefaultRetries, RetryBase: 2*delay + DefaultRetrySlack,
		RelayJitter: DefaultRelayJitter, QueueLimit: DefaultQueueLimit, Routing: RoutingFlood, AODV: DefaultAODV()}
	for i, id := range ids {
		c.Index[id] = int32(i)
	}
	return c
}

// HopDelay is protocol.Config.HopDelay: radio.delay (given) on the ideal
// medium, DCF.HopTime on the DCF medium.
func (c *Config) HopDelay(radioDelay time.Duration) time.Duration {
	if c.MAC != nil {
		return c.MAC.HopTime()
	}
	return radioDelay
}

// Driver is how a stack acts on the world. Its methods are called from
// the stack's own methods, on the driver's one thread.
type Driver interface {
	// Now is the driver's time since the start of the run.
	Now() time.Duration
	// Transmit puts f on the air now. f is the stack's: the driver keeps
	// a copy of what it needs, not f.
	Transmit(f *Frame)
	// Encode prepares f.Msg for sending: it sets f.Bytes (and may keep
	// the encoding in f.Code and f.Body). False means the message cannot
	// be sent (the driver logged why) and the stack forgets it.
	Encode(f *Frame) bool
	// Decode makes sure f.Msg is set on a frame heard; false means its
	// body does not decode (the driver counted it), and the stack drops
	// the frame.
	Decode(f *Frame) bool
	// Up hands an event to the node's protocol: a Receive, NeighborUp or
	// NeighborDown.
	Up(ev protocol.Event)
	// SetTimer calls the stack's Timer with t after the given duration,
	// unless the stack was stopped meanwhile.
	SetTimer(after time.Duration, t Timer)
	// Trace writes ev to the node's trace; the driver sets its time and
	// node.
	Trace(ev *trace.Event)
}

// TimerKind says what a stack timer does.
type TimerKind uint8

// Timer kinds.
const (
	TimerHello     TimerKind = iota + 1 // send a hello, time out silent neighbours
	TimerRetx                           // a unicast's acknowledgement is overdue
	TimerRelay                          // forward a flood frame (or a route request), its jitter over
	TimerDiscovery                      // an AODV route discovery's wait for a reply is over (Peer aodvTick: AODV's hello period)
	// The DCF medium's:
	TimerAccess  // the backoff is over: the head of the MAC queue goes on the air (Ref: generation)
	TimerTxEnd   // this node's transmission is over (Ref: generation, 0 for an acknowledgement)
	TimerAckWait // a unicast frame's acknowledgement did not come (Ref: generation)
	TimerAckSend // SIFS after a unicast frame: acknowledge it (Peer, Ref: its sender and sequence number); with Frame, that CTS is sent instead
)

// Timer is a stack timer, handed back to Stack.Timer when it is due.
type Timer struct {
	Kind  TimerKind
	Peer  int32  // TimerRetx: the link's other end; TimerDiscovery: the destination
	Ref   uint64 // TimerRetx: the frame's sequence number; see the kinds
	Frame *Frame // TimerRelay: the frame to send
}

// Neighbor is a node heard from, in a stack's neighbour list.
type Neighbor struct {
	Index int32
	Last  time.Duration // when last heard
}

// Verdict is what became of a frame heard.
type Verdict uint8

// Verdicts.
const (
	Handled   Verdict = iota // used, or dropped as the model says (traced)
	BadBody                  // its body does not decode: nothing done
	Duplicate                // a unicast delivered before (acknowledged again)
)

// Stack is one node's network layer in one life: a node that crashes and
// recovers gets a new one (Init).
type Stack struct {
	cfg     *Config
	d       Driver
	rng     *rand.Rand
	self    int32
	id      protocol.NodeID
	stopped bool
	// The DCF medium at this receiver and its sender: near the head,
	// read at every frame in reach.
	air air
	mac mac

	seq, oseq uint64 // last frame and flood-origin sequence numbers used
	nbrs      []Neighbor
	nbrBuf    [8]Neighbor
	floods    map[int32]*Window    // flood origin -> origin sequences handled
	unicasts  map[int32]*Window    // unicast sender -> sequences delivered
	queues    map[int32]*linkQueue // unicast destination -> queue
	aodv      *aodvState           // AODV's routes and discoveries; nil until used
	down      []int32              // helloTick's scratch
	// sigSpill is the array air.sigs last grew into past sigBuf, kept
	// for the next time it does (frames overlapping at a receiver).
	sigSpill []rxSignal
}

// Init makes s the stack of member self in a new life: no neighbours,
// nothing queued, frame and origin sequence numbers starting after seq
// (a restarted node's must not fall inside what its neighbours' duplicate
// windows remember of its earlier life: drivers give (incarnation-1)<<32).
// rng is the stack's own seeded source.
func (s *Stack) Init(cfg *Config, self int32, d Driver, rng *rand.Rand, seq uint64) {
	*s = Stack{cfg: cfg, d: d, rng: rng, self: self, id: cfg.IDs[self], seq: seq, oseq: seq}
	s.nbrs = s.nbrBuf[:0]
	s.air.sigs = s.air.sigBuf[:0]
	if cfg.MAC != nil {
		s.mac.cw = int32(cfg.MAC.CWMin)
	}
}

// Start begins neighbour discovery: the first hello at a random phase of
// the period, so that nodes started together do not all send at once.
func (s *Stack) Start() {
	phase := time.Duration(s.rng.Int64N(int64(s.cfg.Hello)))
	s.d.SetTimer(phase, Timer{Kind: TimerHello})
	s.startAODV()
}

// Stop ends the stack's life (a crash): it does nothing more.
func (s *Stack) Stop() {
	s.stopped = true
	s.queues, s.nbrs = nil, nil
}

func (s *Stack) now() time.Duration { return s.d.Now() }

// Timer runs a timer the stack set.
func (s *Stack) Timer(t Timer) {
	if s.stopped {
		return
	}
	switch t.Kind {
	case TimerHello:
		s.helloTick()
	case TimerRetx:
		s.retransmit(t.Peer, t.Ref)
	case TimerRelay:
		if t.Ref == rerrSole && t.Frame.Type == RERR {
			s.relayRERR(t.Frame, t.Peer)
			return
		}
		s.relay(t.Frame)
	case TimerDiscovery:
		switch {
		case t.Peer == aodvTick:
			s.aodvTick()
			return
		case t.Peer == aodvPurge:
			if t.Ref == s.routing().purgeGen {
				s.purgeNeighbors()
			}
			return
		}
		s.discoveryTimeout(t.Peer, t.Ref)
	case TimerAccess:
		s.access(t.Ref)
	case TimerTxEnd:
		s.txEnd(t.Ref)
	case TimerAckWait:
		s.ackWait(t.Ref)
	case TimerAckSend:
		if t.Frame != nil {
			s.ctsSend(t.Frame)
		} else {
			s.ackSend(t.Peer, t.Ref)
		}
	}
}

// Broadcast sends m once to every node in range, unacknowledged.
func (s *Stack) Broadcast(m protocol.Message) {
	if s.stopped {
		return
	}
	f := s.scratch(Frame{Type: Broadcast, To: -1, Msg: m})
	if !s.d.Encode(f) {
		return
	}
	s.transmitNew(f, trace.Event{Ev: trace.EvSend, Kind: m.Kind(), Bytes: f.Bytes, Text: f.Says()})
}

// scratch is f in the shared scratch frame, for a frame transmitted at
// once and not kept.
func (s *Stack) scratch(f Frame) *Frame {
	s.cfg.tx = f
	return &s.cfg.tx
}

// emit traces e.
func (s *Stack) emit(e trace.Event) {
	s.cfg.ev = e
	s.d.Trace(&s.cfg.ev)
}

// number makes f a new frame of this node's: its sender and the next
// frame sequence number.
func (s *Stack) number(f *Frame) {
	s.seq++
	f.From, f.Seq = s.self, s.seq
}

// transmitNew numbers a new frame from this node, traces ev (its Seq set;
// nothing when ev.Ev is empty) and transmits the frame.
func (s *Stack) transmitNew(f *Frame, ev trace.Event) {
	s.number(f)
	if ev.Ev != "" {
		ev.Seq = f.Seq
		s.emit(ev)
	}
	s.macSend(f)
}

// Heard handles frame f, which reached this node's radio within the
// propagation model's maximum range with outcome o (radio.Received or
// the reason it was not).
func (s *Stack) Heard(f *Frame, o Outcome) Verdict {
	if s.stopped {
		return Handled
	}
	if o != Received {
		// Drops are traced for what was meant for everyone in range;
		// unicast attempts are retransmitted and not traced.
		if f.Type == Broadcast || f.Type == Flood || f.Type == Hello && s.cfg.TraceHello {
			if f.Type.HasBody() && !s.d.Decode(f) {
				return BadBody
			}
			s.emit(trace.Event{Ev: trace.EvDrop, Kind: f.Kind(), From: s.cfg.IDs[f.From], Seq: f.Seq, Reason: o.DropReason()})
		}
		return Handled
	}
	switch f.Type {
	case Hello:
		s.heardHello(f.From)
	case Ack:
		if s.cfg.MAC != nil {
			s.macAck(f.From, f.AckSeq)
		} else {
			s.acked(f.From, f.AckSeq)
		}
	case Broadcast:
		return s.deliver(f, s.cfg.IDs[f.From], 1)
	case Unicast, Data, RREP, RREPAck:
		return s.heardUnicast(f)
	case Flood:
		return s.floodArrive(f)
	case RREQ:
		s.heardRREQ(f)
	case RERR:
		s.heardRERR(f)
	case AODVHello:
		s.heardAODVHello(f)
	case RTS:
		s.heardRTS(f)
	case CTS:
		s.heardCTS(f)
	}
	return Handled
}

// deliver traces a reception and hands the message to the protocol.
func (s *Stack) deliver(f *Frame, from protocol.NodeID, hops int) Verdict {
	if !s.d.Decode(f) {
		return BadBody
	}
	s.traceRecv(f, from, hops)
	s.d.Up(protocol.Receive{From: from, Hops: hops, Msg: f.Msg})
	return Handled
}

// traceRecv traces the reception of f (decoded), from its origin from.
func (s *Stack) traceRecv(f *Frame, from protocol.NodeID, hops int) {
	ev := trace.Event{Ev: trace.EvRecv, Kind: f.Msg.Kind(), From: s.cfg.IDs[f.From], Seq: f.Seq}
	if f.Type == Flood || f.Type == Data {
		ev.Origin, ev.OSeq, ev.Hops = from, f.OSeq, hops
	}
	s.emit(ev)
}

// Random streams: every node's life draws from its own sources, seeded
// from the scenario's seed, the node's ID and its incarnation (1 for the
// first life), so that both drivers draw the same numbers for the same
// node whatever the other nodes do.
const (
	ProtocolStream = 0              // the protocol's Env.Rand
	StackStream    = 0x6e6574737461 // the stack's (hello phases, relay jitter)
	RadioStream    = 0x726164696f   // the radio's decisions at this receiver
)

// Source is node id's random source of stream in its inc-th life.
func Source(seed, stream uint64, id protocol.NodeID, inc uint32) *rand.Rand {
	return rand.New(rand.NewPCG(seed^stream, uint64(id)<<32|uint64(inc)))
}

// Sourced is storage for a Source that its holder keeps in place (the
// simulator's nodes: a frame's receivers draw from their sources, and a
// source beside the node's state is not one more cache miss away).
type Sourced struct {
	r rand.Rand
	p rand.PCG
}

// Seed makes s Source(seed, stream, id, inc), the same numbers, and
// returns it; s must not move afterwards.
func (s *Sourced) Seed(seed, stream uint64, id protocol.NodeID, inc uint32) *rand.Rand {
	s.p.Seed(seed^stream, uint64(id)<<32|uint64(inc))
	s.r = *rand.New(&s.p)
	return &s.r
}
