package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"manetlab/protocol"
)

// Decode parses the frame in b into f, overwriting every field. With a
// non-empty key the frame must carry a valid HMAC (ErrNoHMAC, ErrHMAC);
// without one, a trailer is skipped unverified and f.Signed reports it.
// The HMAC is checked before any field past the flags is read. f.Body
// aliases b. Decode never panics; its errors wrap one of the Err values,
// and Reason names them. It does not check the run: the caller compares
// f.Run with its own.
func Decode(b []byte, key []byte, f *Frame) error {
	*f = Frame{}
	if len(b) < HeaderSize {
		return fmt.Errorf("%w: %d bytes, header needs %d", ErrShort, len(b), HeaderSize)
	}
	if len(b) > MaxFrame {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrLength, len(b), MaxFrame)
	}
	if string(b[0:4]) != Magic {
		return fmt.Errorf("%w: % x", ErrMagic, b[0:4])
	}
	if b[4] != Version {
		return fmt.Errorf("%w: %d, want %d", ErrVersion, b[4], Version)
	}
	flags := b[5]
	if flags&^knownFlags != 0 || b[7] != 0 {
		return fmt.Errorf("%w: flags %#02x reserved %#02x", ErrFlags, flags, b[7])
	}
	if flags&FlagHMAC != 0 {
		if len(b) < HeaderSize+HMACSize {
			return fmt.Errorf("%w: %d bytes, header and HMAC need %d", ErrShort, len(b), HeaderSize+HMACSize)
		}
		n := len(b) - HMACSize
		if len(key) > 0 && !checkMAC(key, b[:n], b[n:]) {
			return ErrHMAC
		}
		b = b[:n]
		f.Signed = true
	} else if len(key) > 0 {
		return ErrNoHMAC
	}

	f.Type = Type(b[6])
	if !f.Type.Valid() {
		return fmt.Errorf("%w: %d", ErrType, b[6])
	}
	f.AckRequired = flags&FlagAckRequired != 0
	f.Run = binary.BigEndian.Uint64(b[8:])
	f.From = protocol.NodeID(binary.BigEndian.Uint32(b[16:]))
	f.To = protocol.NodeID(binary.BigEndian.Uint32(b[20:]))
	f.Seq = binary.BigEndian.Uint64(b[24:])
	f.Clock.Wall = int64(binary.BigEndian.Uint64(b[32:]))
	f.Clock.Logical = binary.BigEndian.Uint32(b[40:])
	p := b[HeaderSize:]

	var need int
	switch f.Type {
	case TypeAck:
		need = ackSize
	case TypeFlood, TypeData:
		need = floodSize
	case TypeLocation:
		need = locationSize
	case TypeRREQ:
		need = rreqSize
	case TypeRREP, TypeAODVHello:
		need = rrepSize
	case TypeRERR:
		need = rerrSize
		if len(p) >= rerrSize {
			n := int(p[0])
			if n == 0 || n > MaxUnreachable {
				return fmt.Errorf("%w: rerr lists %d destinations, must be 1 to %d", ErrField, n, MaxUnreachable)
			}
			need += unreachableSize * n
		}
	}
	if len(p) < need {
		return fmt.Errorf("%w: %s section needs %d bytes, has %d", ErrShort, f.Type, need, len(p))
	}
	switch f.Type {
	case TypeAck:
		f.AckSeq = binary.BigEndian.Uint64(p)
	case TypeFlood, TypeData:
		f.Origin = protocol.NodeID(binary.BigEndian.Uint32(p))
		f.OriginSeq = binary.BigEndian.Uint64(p[4:])
		f.Hops, f.HopLimit = p[12], p[13]
		f.Final = protocol.NodeID(binary.BigEndian.Uint32(p[14:]))
	case TypeRREQ:
		f.Origin = protocol.NodeID(binary.BigEndian.Uint32(p))
		f.OriginSeq = binary.BigEndian.Uint64(p[4:])
		f.OrigSeq = binary.BigEndian.Uint32(p[12:])
		f.Final = protocol.NodeID(binary.BigEndian.Uint32(p[16:]))
		f.DestSeq = binary.BigEndian.Uint32(p[20:])
		f.Hops, f.TTL = p[24], p[25]
	case TypeRREP, TypeAODVHello:
		f.Origin = protocol.NodeID(binary.BigEndian.Uint32(p))
		f.Final = protocol.NodeID(binary.BigEndian.Uint32(p[4:]))
		f.DestSeq = binary.BigEndian.Uint32(p[8:])
		f.LifetimeMS = binary.BigEndian.Uint32(p[12:])
		f.Hops = p[16]
	case TypeRERR:
		f.Unreachable = make([]Unreachable, p[0])
		for i := range f.Unreachable {
			e := p[rerrSize+unreachableSize*i:]
			f.Unreachable[i] = Unreachable{Dest: protocol.NodeID(binary.BigEndian.Uint32(e)), Seq: binary.BigEndian.Uint32(e[4:])}
		}
	case TypeLocation:
		f.Loc.Node = protocol.NodeID(binary.BigEndian.Uint32(p))
		f.Loc.X = math.Float64frombits(binary.BigEndian.Uint64(p[4:]))
		f.Loc.Y = math.Float64frombits(binary.BigEndian.Uint64(p[12:]))
		f.Loc.Z = math.Float64frombits(binary.BigEndian.Uint64(p[20:]))
		f.Loc.Time = int64(binary.BigEndian.Uint64(p[28:]))
	}
	p = p[need:]

	if f.Type.HasBody() {
		if len(p) < dataSize {
			return fmt.Errorf("%w: %s frame needs a %d-byte code and length, has %d", ErrShort, f.Type, dataSize, len(p))
		}
		f.Code = binary.BigEndian.Uint16(p)
		n := int(binary.BigEndian.Uint16(p[2:]))
		p = p[dataSize:]
		if n > MaxBody {
			return fmt.Errorf("%w: body declares %d bytes, at most %d", ErrLength, n, MaxBody)
		}
		if len(p) < n {
			return fmt.Errorf("%w: body declares %d bytes, has %d", ErrShort, n, len(p))
		}
		f.Body, p = p[:n:n], p[n:]
	}
	if flags&FlagAir != 0 {
		if len(p) < AirSize {
			return fmt.Errorf("%w: air section needs %d bytes, has %d", ErrShort, AirSize, len(p))
		}
		f.Air.Start = time.Duration(binary.BigEndian.Uint64(p))
		f.Air.Airtime = time.Duration(binary.BigEndian.Uint32(p[8:]))
		if f.Air.Airtime == 0 {
			return fmt.Errorf("%w: air section with no airtime", ErrField)
		}
		p = p[AirSize:]
	}
	if len(p) != 0 {
		return fmt.Errorf("%w: %d bytes after the %s frame", ErrLength, len(p), f.Type)
	}
	return f.check()
}

// Claimed reads what a datagram's header claims, without the HMAC check
// Decode makes first: its type, run and sender. For counting refused
// frames by the sender they name (docs/node.md, "Counters"); nothing
// vouches for them. ok is false when b is no frame of this version.
func Claimed(b []byte) (t Type, run uint64, from protocol.NodeID, ok bool) {
	if len(b) < HeaderSize || string(b[0:4]) != Magic || b[4] != Version {
		return 0, 0, 0, false
	}
	return Type(b[6]), binary.BigEndian.Uint64(b[8:]), protocol.NodeID(binary.BigEndian.Uint32(b[16:])), true
}
