package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"manetlab/protocol"
)

// Magic opens every frame.
const Magic = "MNET"

// Version is the frame format version this package writes and reads.
const Version = 1

// Flag bits in the header's flags byte. Unknown bits are rejected so that a
// future meaning cannot be silently ignored.
const (
	// FlagHMAC says an HMAC-SHA256 trailer of HMACSize bytes ends the frame.
	FlagHMAC uint8 = 1 << 0
	// FlagAir says an air section of AirSize bytes follows the message
	// (or the type's section): the frame was sent on the DCF medium.
	FlagAir uint8 = 1 << 1
	// FlagAckRequired, on a rrep only, is RFC 3561's A flag: the
	// receiver answers with a rrep-ack.
	FlagAckRequired uint8 = 1 << 2

	knownFlags = FlagHMAC | FlagAir | FlagAckRequired
)

// Sizes of the parts of a frame, in bytes.
const (
	// HeaderSize is the fixed header every frame starts with.
	HeaderSize = 44
	// HMACSize is the length of the optional trailer.
	HMACSize = 32
	// MaxBody bounds a message body so that a frame fits one datagram
	// (1500-byte MTU less IP and UDP headers) with room to spare.
	MaxBody = 1200
	// AirSize is the length of the air section (FlagAir).
	AirSize = 12
	// MaxFrame is the largest frame this package writes or accepts: a flood
	// (or routed data) frame with a full body, an air section and an HMAC.
	MaxFrame = HeaderSize + floodSize + dataSize + MaxBody + AirSize + HMACSize
	// MaxAirtime is the longest airtime the air section carries (its
	// uint32 of nanoseconds, 4.29 s).
	MaxAirtime = time.Duration(math.MaxUint32)
	// MaxUnreachable bounds the destinations of one route error, so that
	// a rerr frame stays far below MaxFrame (a signed one with 64 is 589
	// bytes). RFC 3561's count field would allow 255; a node that loses
	// more routes at once sends several route errors.
	MaxUnreachable = 64

	dataSize        = 4  // code u16, body length u16
	ackSize         = 8  // acked sequence u64
	floodSize       = 18 // origin u32, origin seq u64, hops u8, hop limit u8, final u32 (also routed data's)
	locationSize    = 36 // node u32, x, y, z f64, time i64
	rreqSize        = 26 // origin u32, rreq id u64, origin seq u32, final u32, dest seq u32, hops u8, ttl u8
	rrepSize        = 17 // origin u32, final u32, dest seq u32, lifetime ms u32, hops u8
	rerrSize        = 1  // count u8, then the entries
	unreachableSize = 8  // dest u32, dest seq u32
)

// Type is a frame's type. The numbers are the protocol: never renumber.
type Type uint8

// The frame types. 13 to 255 are reserved; decoders reject them.
const (
	// TypeHello is a neighbour-discovery beacon; it has no section.
	TypeHello Type = 1
	// TypeBroadcast carries a message to every node in range, unacknowledged.
	TypeBroadcast Type = 2
	// TypeUnicast carries a message to one neighbour (To), which acknowledges it.
	TypeUnicast Type = 3
	// TypeAck acknowledges the unicast frame (To, AckSeq).
	TypeAck Type = 4
	// TypeFlood carries a message across several hops to Final (None: all).
	TypeFlood Type = 5
	// TypeLocation announces a node's position, from the mobility player.
	TypeLocation Type = 6
	// TypeData carries a message one hop along an AODV route towards
	// Final: to the next hop To, which acknowledges it as a unicast.
	TypeData Type = 7
	// TypeRREQ is an AODV route request for Final, broadcast and relayed.
	TypeRREQ Type = 8
	// TypeRREP is an AODV route reply, sent hop by hop to To towards the
	// requester Origin and acknowledged as a unicast.
	TypeRREP Type = 9
	// TypeRERR is an AODV route error, broadcast to the neighbours.
	TypeRERR Type = 10
	// TypeAODVHello is an AODV hello (RFC 3561 6.9): a route reply for its
	// sender (Origin = Final = From), broadcast one hop; the rrep section.
	TypeAODVHello Type = 11
	// TypeRREPAck acknowledges a rrep that asked for it (RFC 3561 5.4),
	// to its sender To, acknowledged as a unicast; no section.
	TypeRREPAck Type = 12

	lastType = TypeRREPAck
)

var typeNames = [...]string{TypeHello: "hello", TypeBroadcast: "broadcast", TypeUnicast: "unicast", TypeAck: "ack", TypeFlood: "flood",
	TypeLocation: "location", TypeData: "data", TypeRREQ: "rreq", TypeRREP: "rrep", TypeRERR: "rerr", TypeAODVHello: "aodv-hello",
	TypeRREPAck: "rrep-ack"}

// String returns the type's name, or "type(N)" for a reserved one.
func (t Type) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Valid reports whether t is a type this version defines.
func (t Type) Valid() bool { return t >= TypeHello && t <= lastType }

// HasBody reports whether frames of type t carry a message (code and body).
func (t Type) HasBody() bool {
	return t == TypeBroadcast || t == TypeUnicast || t == TypeFlood || t == TypeData
}

// Unreachable is a destination a route error reports, with its
// destination sequence number.
type Unreachable struct {
	Dest protocol.NodeID
	Seq  uint32
}

// LifetimeMillis is a route lifetime as a rrep carries it: whole
// milliseconds, rounded down (a lifetime computed as an expiry less the
// present has a fraction of a millisecond), 0 for a negative one, and
// saturating at math.MaxUint32 (about 49.7 days).
func LifetimeMillis(d time.Duration) uint32 {
	switch ms := d.Milliseconds(); {
	case ms <= 0:
		return 0
	case ms >= math.MaxUint32:
		return math.MaxUint32
	default:
		return uint32(ms)
	}
}

// Lifetime is a rrep's route lifetime.
func (f *Frame) Lifetime() time.Duration { return time.Duration(f.LifetimeMS) * time.Millisecond }

// HLC is a hybrid logical clock timestamp: Wall is the largest physical
// time seen, in Unix nanoseconds; Logical orders events sharing a Wall.
type HLC struct {
	Wall    int64
	Logical uint32
}

// Compare returns -1, 0 or +1 as h is before, equal to or after o.
func (h HLC) Compare(o HLC) int {
	switch {
	case h.Wall < o.Wall:
		return -1
	case h.Wall > o.Wall:
		return 1
	case h.Logical < o.Logical:
		return -1
	case h.Logical > o.Logical:
		return 1
	}
	return 0
}

// Location is a position update carried by a TypeLocation frame.
type Location struct {
	Node    protocol.NodeID
	X, Y, Z float64 // metres
	// Time is the mobility player's clock for this position, in Unix
	// nanoseconds; receivers keep the newest position of each node.
	Time int64
}

// Frame is one datagram, decoded. Which fields matter depends on Type; the
// others are zero on decode and ignored on encode.
type Frame struct {
	Type Type
	// Run identifies the run (see RunID); receivers drop other runs.
	Run uint64
	// From is the transmitting node: the last hop for a flood.
	From protocol.NodeID
	// To is the link-level destination; None is broadcast. Unicast, ack,
	// data and rrep frames need one; rreq and rerr frames may not have one.
	To protocol.NodeID
	// Seq counts the frames From has sent in this run, from 1.
	Seq uint64
	// Clock is From's hybrid logical clock when it sent the frame.
	Clock HLC
	// Signed reports, after Decode, that the frame had an HMAC trailer
	// (verified when Decode had a key). AppendTo ignores it: the key
	// decides.
	Signed bool

	// AckSeq is the Seq of the unicast frame an ack acknowledges.
	AckSeq uint64

	// Origin and OriginSeq identify a flood for duplicate suppression, and
	// routed data by its originator and the originator's message number.
	// A rreq: its originator and RREQ ID. A rrep: the requester, where
	// the reply goes (no OriginSeq).
	Origin    protocol.NodeID
	OriginSeq uint64
	// Hops is how many hops the flood (data, rreq, rrep) travelled before
	// this transmission (0 from the origin); HopLimit is the most a flood
	// or data frame may travel.
	Hops     uint8
	HopLimit uint8
	// Final is the flood's destination; None floods to every node. Data:
	// the destination; rreq: the destination sought; rrep: the
	// destination the route leads to. Those three need one.
	Final protocol.NodeID

	// TTL is a rreq's time to live, in hops: at least 1 (1 is not
	// relayed).
	TTL uint8
	// OrigSeq is a rreq's originator sequence number.
	OrigSeq uint32
	// DestSeq is the destination sequence number of a rreq (the last
	// known, 0: unknown) or a rrep.
	DestSeq uint32
	// LifetimeMS is a rrep's route lifetime in milliseconds, as RFC 3561
	// carries it.
	LifetimeMS uint32
	// AckRequired is a rrep's A flag (FlagAckRequired).
	AckRequired bool
	// Unreachable are a rerr's destinations, 1 to MaxUnreachable. After
	// Decode it is a new slice.
	Unreachable []Unreachable

	// Code is the message type code (see Codec) of a broadcast, unicast,
	// flood or data frame, and Body its msgpack encoding, at most MaxBody
	// bytes.
	// After Decode, Body aliases the decoded buffer.
	Code uint16
	Body []byte

	// Loc is a location frame's position.
	Loc Location

	// Air is, on the DCF medium (radio.mac dcf), the transmission this
	// frame is: its start and its airtime. The zero Air (no airtime) is
	// none: the frame has no air section (the ideal medium).
	Air Air
}

// Air is a DCF transmission as its sender's clock saw it: each receiver
// decides collisions, and its carrier sense, from these (docs/node.md,
// "The DCF medium in real processes").
type Air struct {
	// Start is when the sender put the frame on the air, in nanoseconds
	// since the run's start (the sender's run clock; never negative).
	Start time.Duration
	// Airtime is how long the frame occupies the air: 1 ns to MaxAirtime
	// when there is an air section.
	Airtime time.Duration
}

// Size returns the encoded length of f, with an HMAC trailer if signed.
func (f *Frame) Size(signed bool) int {
	n := HeaderSize
	switch f.Type {
	case TypeBroadcast, TypeUnicast:
		n += dataSize + len(f.Body)
	case TypeAck:
		n += ackSize
	case TypeFlood, TypeData:
		n += floodSize + dataSize + len(f.Body)
	case TypeLocation:
		n += locationSize
	case TypeRREQ:
		n += rreqSize
	case TypeRREP, TypeAODVHello:
		n += rrepSize
	case TypeRERR:
		n += rerrSize + unreachableSize*len(f.Unreachable)
	}
	if f.Air.Airtime != 0 {
		n += AirSize
	}
	if signed {
		n += HMACSize
	}
	return n
}

// check reports why f may not be sent or accepted, beyond its byte layout.
func (f *Frame) check() error {
	if !f.Type.Valid() {
		return fmt.Errorf("%w: %d", ErrType, uint8(f.Type))
	}
	if f.From == protocol.None && f.Type != TypeLocation {
		// Only the mobility player, which is no node, may send as None.
		return fmt.Errorf("%w: %s frame from node 0", ErrField, f.Type)
	}
	if f.AckRequired && f.Type != TypeRREP {
		return fmt.Errorf("%w: %s frame asking for a rrep-ack", ErrField, f.Type)
	}
	switch f.Type {
	case TypeUnicast, TypeAck, TypeData, TypeRREP, TypeRREPAck:
		if f.To == protocol.None {
			return fmt.Errorf("%w: %s frame without a destination", ErrField, f.Type)
		}
	case TypeRREQ, TypeRERR, TypeAODVHello:
		if f.To != protocol.None {
			return fmt.Errorf("%w: %s frame to node %d, must be broadcast", ErrField, f.Type, f.To)
		}
	}
	switch f.Type {
	case TypeFlood, TypeData:
		if f.Origin == protocol.None {
			return fmt.Errorf("%w: %s from origin 0", ErrField, f.Type)
		}
		if f.Hops > f.HopLimit {
			return fmt.Errorf("%w: %s hop count %d over its limit %d", ErrField, f.Type, f.Hops, f.HopLimit)
		}
		if f.Type == TypeData && f.Final == protocol.None {
			return fmt.Errorf("%w: data frame for node 0", ErrField)
		}
	case TypeRREQ, TypeRREP, TypeAODVHello:
		if f.Origin == protocol.None {
			return fmt.Errorf("%w: %s from origin 0", ErrField, f.Type)
		}
		if f.Final == protocol.None {
			return fmt.Errorf("%w: %s for a route to node 0", ErrField, f.Type)
		}
		if f.Type == TypeRREQ && f.TTL == 0 {
			return fmt.Errorf("%w: rreq with a TTL of 0", ErrField)
		}
	case TypeRERR:
		if len(f.Unreachable) == 0 || len(f.Unreachable) > MaxUnreachable {
			return fmt.Errorf("%w: rerr lists %d destinations, must be 1 to %d", ErrField, len(f.Unreachable), MaxUnreachable)
		}
		for _, u := range f.Unreachable {
			if u.Dest == protocol.None {
				return fmt.Errorf("%w: rerr lists node 0", ErrField)
			}
		}
	case TypeLocation:
		if !finite(f.Loc.X) || !finite(f.Loc.Y) || !finite(f.Loc.Z) {
			return fmt.Errorf("%w: location of node %d is not finite", ErrField, f.Loc.Node)
		}
	}
	if f.Type.HasBody() && len(f.Body) > MaxBody {
		return fmt.Errorf("%w: body of %d bytes, at most %d", ErrLength, len(f.Body), MaxBody)
	}
	if a := f.Air; a != (Air{}) {
		switch {
		case f.Type == TypeLocation:
			return fmt.Errorf("%w: location frame with an air section (the player is not on the medium)", ErrField)
		case a.Airtime <= 0 || a.Airtime > MaxAirtime:
			return fmt.Errorf("%w: airtime %d ns, must be 1 to %d", ErrField, a.Airtime, MaxAirtime)
		case a.Start < 0:
			return fmt.Errorf("%w: air start %d ns, before the run's start", ErrField, a.Start)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// AppendTo appends f's encoding to dst and returns the extended slice. With
// a non-empty key the frame is signed: FlagHMAC is set and HMAC-SHA256(key,
// everything before it) is appended. It fails, leaving dst as it was, when
// f could not be decoded by a receiver (reserved type, unicast to None, a
// body over MaxBody, ...). Appending to a buffer with room allocates
// nothing.
func (f *Frame) AppendTo(dst []byte, key []byte) ([]byte, error) {
	if err := f.check(); err != nil {
		return dst, fmt.Errorf("encode %s frame: %w", f.Type, err)
	}
	start := len(dst)
	var flags uint8
	if len(key) > 0 {
		flags |= FlagHMAC
	}
	if f.Air.Airtime != 0 {
		flags |= FlagAir
	}
	if f.AckRequired {
		flags |= FlagAckRequired
	}
	dst = append(dst, Magic...)
	dst = append(dst, Version, flags, uint8(f.Type), 0)
	dst = binary.BigEndian.AppendUint64(dst, f.Run)
	dst = binary.BigEndian.AppendUint32(dst, uint32(f.From))
	dst = binary.BigEndian.AppendUint32(dst, uint32(f.To))
	dst = binary.BigEndian.AppendUint64(dst, f.Seq)
	dst = binary.BigEndian.AppendUint64(dst, uint64(f.Clock.Wall))
	dst = binary.BigEndian.AppendUint32(dst, f.Clock.Logical)
	switch f.Type {
	case TypeAck:
		dst = binary.BigEndian.AppendUint64(dst, f.AckSeq)
	case TypeFlood, TypeData:
		dst = binary.BigEndian.AppendUint32(dst, uint32(f.Origin))
		dst = binary.BigEndian.AppendUint64(dst, f.OriginSeq)
		dst = append(dst, f.Hops, f.HopLimit)
		dst = binary.BigEndian.AppendUint32(dst, uint32(f.Final))
	case TypeRREQ:
		dst = binary.BigEndian.AppendUint32(dst, uint32(f.Origin))
		dst = binary.BigEndian.AppendUint64(dst, f.OriginSeq)
		dst = binary.BigEndian.AppendUint32(dst, f.OrigSeq)
		dst = binary.BigEndian.AppendUint32(dst, uint32(f.Final))
		dst = binary.BigEndian.AppendUint32(dst, f.DestSeq)
		dst = append(dst, f.Hops, f.TTL)
	case TypeRREP, TypeAODVHello:
		dst = binary.BigEndian.AppendUint32(dst, uint32(f.Origin))
		dst = binary.BigEndian.AppendUint32(dst, uint32(f.Final))
		dst = binary.BigEndian.AppendUint32(dst, f.DestSeq)
		dst = binary.BigEndian.AppendUint32(dst, f.LifetimeMS)
		dst = append(dst, f.Hops)
	case TypeRERR:
		dst = append(dst, uint8(len(f.Unreachable)))
		for _, u := range f.Unreachable {
			dst = binary.BigEndian.AppendUint32(dst, uint32(u.Dest))
			dst = binary.BigEndian.AppendUint32(dst, u.Seq)
		}
	case TypeLocation:
		dst = binary.BigEndian.AppendUint32(dst, uint32(f.Loc.Node))
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(f.Loc.X))
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(f.Loc.Y))
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(f.Loc.Z))
		dst = binary.BigEndian.AppendUint64(dst, uint64(f.Loc.Time))
	}
	if f.Type.HasBody() {
		dst = binary.BigEndian.AppendUint16(dst, f.Code)
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(f.Body)))
		dst = append(dst, f.Body...)
	}
	if f.Air.Airtime != 0 {
		dst = binary.BigEndian.AppendUint64(dst, uint64(f.Air.Start))
		dst = binary.BigEndian.AppendUint32(dst, uint32(f.Air.Airtime))
	}
	if len(key) > 0 {
		dst = appendMAC(dst, key, dst[start:])
	}
	return dst, nil
}
