package trace

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// ZstdFrames is the length of the whole zstd frames at the start of b,
// the bytes of a compressed trace file read so far (trace.compress:
// zstd writes every chunk as a frame of its own): 0 while the first is
// still being written. A follower of a growing file decompresses those
// (DecodeZstd) and keeps the rest until more comes. An error says b
// does not hold zstd frames (RFC 8878, section 3.1.1).
func ZstdFrames(b []byte) (int, error) {
	whole := 0
	for whole < len(b) {
		n, err := frameLen(b[whole:])
		if err != nil || n == 0 {
			return whole, err
		}
		whole += n
	}
	return whole, nil
}

// frameLen is the length of the zstd frame at the start of b, or 0 when
// b ends before it does.
func frameLen(b []byte) (int, error) {
	if len(b) < 5 {
		return 0, nil
	}
	if !IsZstd(b) {
		return 0, fmt.Errorf("not a zstd frame (magic % x)", b[:4])
	}
	fhd := b[4]
	single := fhd>>5&1 == 1
	n := 5
	if !single {
		n++ // the window descriptor
	}
	n += []int{0, 1, 2, 4}[fhd&3] // the dictionary ID
	fcs := []int{0, 2, 4, 8}[fhd>>6]
	if fcs == 0 && single {
		fcs = 1
	}
	n += fcs
	for {
		if len(b) < n+3 {
			return 0, nil
		}
		h := uint32(b[n]) | uint32(b[n+1])<<8 | uint32(b[n+2])<<16
		size := int(h >> 3)
		if h>>1&3 == 1 { // RLE: one byte, repeated
			size = 1
		}
		n += 3 + size
		if h&1 == 1 { // the last block
			break
		}
	}
	if fhd>>2&1 == 1 {
		n += 4 // the content checksum
	}
	if len(b) < n {
		return 0, nil
	}
	return n, nil
}

// zstdDecoder decompresses whole frames, made at its first use; its
// DecodeAll may be called by many goroutines at once.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil)
	if err != nil {
		panic(err) // only for invalid options
	}
	return d
})

// DecodeZstd appends to dst the decompressed bytes of the whole zstd
// frames src (ZstdFrames).
func DecodeZstd(dst, src []byte) ([]byte, error) {
	return zstdDecoder().DecodeAll(src, dst)
}
