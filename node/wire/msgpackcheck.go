package wire

import (
	"encoding/binary"
	"fmt"
)

// MaxDepth is how deeply arrays and maps may nest in a message body; the
// message itself (a map of fields) is depth 1.
const MaxDepth = 8

// CheckMsgpack walks the msgpack value in b without decoding it and
// rejects, with ErrBody, anything the msgpack library would turn into a
// large allocation or deep recursion: an array, map, string, binary or
// extension whose declared length exceeds the bytes that remain (every
// array element and every map key and value needs at least one byte),
// nesting deeper than MaxDepth, a reserved type byte, or bytes after the
// value. msgpack v5.4.1 sizes slices from the declared length before
// reading them (upstream issue 401): ten bytes can otherwise ask for
// gigabytes. The walk is linear in len(b) and does not allocate.
func CheckMsgpack(b []byte) error {
	rest, err := skipValue(b, 1)
	if err != nil {
		return fmt.Errorf("%w: offset %d: %w", ErrBody, len(b)-len(rest), err)
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: %d bytes after the value", ErrBody, len(rest))
	}
	return nil
}

// scanError is a CheckMsgpack failure; its detail is fixed text so that a
// hostile body costs no formatting beyond the one wrap.
type scanError string

func (e scanError) Error() string { return string(e) }

const (
	errTruncated = scanError("truncated")
	errTooLong   = scanError("declared length exceeds the bytes remaining")
	errTooDeep   = scanError("nesting deeper than the limit")
	errReserved  = scanError("reserved type byte 0xc1")
)

// skipValue returns b after the one value it starts with; it keeps the
// remaining input on error so that the caller can name the offset.
func skipValue(b []byte, depth int) ([]byte, error) {
	if len(b) == 0 {
		return b, errTruncated
	}
	c := b[0]
	rest := b[1:]
	switch {
	case c <= 0x7f || c >= 0xe0: // positive and negative fixint
		return rest, nil
	case c <= 0x8f: // fixmap
		return skipItems(rest, 2*uint64(c&0x0f), depth)
	case c <= 0x9f: // fixarray
		return skipItems(rest, uint64(c&0x0f), depth)
	case c <= 0xbf: // fixstr
		return skipBytes(rest, uint64(c&0x1f))
	}
	switch c {
	case 0xc0, 0xc2, 0xc3: // nil, false, true
		return rest, nil
	case 0xc1:
		return b, errReserved
	case 0xc4, 0xd9: // bin8, str8
		return skipSized(rest, 1, 0)
	case 0xc5, 0xda: // bin16, str16
		return skipSized(rest, 2, 0)
	case 0xc6, 0xdb: // bin32, str32
		return skipSized(rest, 4, 0)
	case 0xc7: // ext8: length, type, data
		return skipSized(rest, 1, 1)
	case 0xc8: // ext16
		return skipSized(rest, 2, 1)
	case 0xc9: // ext32
		return skipSized(rest, 4, 1)
	case 0xca: // float32
		return skipBytes(rest, 4)
	case 0xcb: // float64
		return skipBytes(rest, 8)
	case 0xcc, 0xd0: // uint8, int8
		return skipBytes(rest, 1)
	case 0xcd, 0xd1: // uint16, int16
		return skipBytes(rest, 2)
	case 0xce, 0xd2: // uint32, int32
		return skipBytes(rest, 4)
	case 0xcf, 0xd3: // uint64, int64
		return skipBytes(rest, 8)
	case 0xd4: // fixext1: type and 1 byte
		return skipBytes(rest, 2)
	case 0xd5: // fixext2
		return skipBytes(rest, 3)
	case 0xd6: // fixext4
		return skipBytes(rest, 5)
	case 0xd7: // fixext8
		return skipBytes(rest, 9)
	case 0xd8: // fixext16
		return skipBytes(rest, 17)
	case 0xdc: // array16
		n, rest, err := readLen(rest, 2)
		if err != nil {
			return rest, err
		}
		return skipItems(rest, n, depth)
	case 0xdd: // array32
		n, rest, err := readLen(rest, 4)
		if err != nil {
			return rest, err
		}
		return skipItems(rest, n, depth)
	case 0xde: // map16
		n, rest, err := readLen(rest, 2)
		if err != nil {
			return rest, err
		}
		return skipItems(rest, 2*n, depth)
	default: // 0xdf map32
		n, rest, err := readLen(rest, 4)
		if err != nil {
			return rest, err
		}
		return skipItems(rest, 2*n, depth)
	}
}

// readLen reads a big-endian length of size 1, 2 or 4 bytes.
func readLen(b []byte, size int) (uint64, []byte, error) {
	if len(b) < size {
		return 0, b, errTruncated
	}
	switch size {
	case 1:
		return uint64(b[0]), b[1:], nil
	case 2:
		return uint64(binary.BigEndian.Uint16(b)), b[2:], nil
	}
	return uint64(binary.BigEndian.Uint32(b)), b[4:], nil
}

// skipSized skips a length-prefixed str, bin or ext: the length, extra
// bytes (the ext type), then the data.
func skipSized(b []byte, size int, extra uint64) ([]byte, error) {
	n, rest, err := readLen(b, size)
	if err != nil {
		return rest, err
	}
	return skipBytes(rest, n+extra)
}

func skipBytes(b []byte, n uint64) ([]byte, error) {
	if n > uint64(len(b)) {
		return b, errTooLong
	}
	return b[n:], nil
}

// skipItems skips the n values of a container at depth (the outermost is
// 1), checking n against the bytes remaining before walking any of them.
func skipItems(b []byte, n uint64, depth int) ([]byte, error) {
	if n > uint64(len(b)) {
		return b, errTooLong
	}
	if depth > MaxDepth {
		return b, errTooDeep
	}
	var err error
	for i := uint64(0); i < n; i++ {
		if b, err = skipValue(b, depth+1); err != nil {
			return b, err
		}
	}
	return b, nil
}
