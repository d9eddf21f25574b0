package node

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"manetlab/protocol"
)

// The store file (node-<id>.store) holds one node's stable storage; all
// integers are big-endian:
//
//	magic   8 bytes  "mlstore" then the format version, 1
//	length  uint32   N, the bytes of the body
//	body    N bytes:
//	  run    uint32 length, then the run name
//	  node   uint32, the node's ID
//	  count  uint32, the entries
//	  count entries, keys strictly ascending:
//	    key    uint32 length, then the key
//	    value  uint32 length, then the value
//	crc     uint32   CRC-32C (Castagnoli) of magic, length and body
//
// The file is exactly 16+N bytes. Every length is checked against the
// bytes that remain before anything is sliced or allocated.
const storeMagic = "mlstore\x01"

var storeCRC = crc32.MakeTable(crc32.Castagnoli)

// storeHeadLen and storeTailLen frame the body: magic and length before,
// checksum after.
const (
	storeHeadLen = len(storeMagic) + 4
	storeTailLen = 4
)

// encodeStore returns the store file for node id of run holding m.
func encodeStore(run string, id protocol.NodeID, m map[string][]byte) []byte {
	keys := make([]string, 0, len(m))
	size := storeHeadLen + 12 + len(run) + storeTailLen
	for k, v := range m {
		keys = append(keys, k)
		size += 8 + len(k) + len(v)
	}
	slices.Sort(keys)
	b := make([]byte, 0, size)
	b = append(b, storeMagic...)
	b = binary.BigEndian.AppendUint32(b, uint32(size-storeHeadLen-storeTailLen))
	b = binary.BigEndian.AppendUint32(b, uint32(len(run)))
	b = append(b, run...)
	b = binary.BigEndian.AppendUint32(b, uint32(id))
	b = binary.BigEndian.AppendUint32(b, uint32(len(keys)))
	for _, k := range keys {
		b = binary.BigEndian.AppendUint32(b, uint32(len(k)))
		b = append(b, k...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(m[k])))
		b = append(b, m[k]...)
	}
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, storeCRC))
}

// decodeStore reads a store file. Its errors say what is wrong in a few
// words ("bad checksum", "truncated: 12 of 40 bytes").
func decodeStore(b []byte) (run string, id protocol.NodeID, m map[string][]byte, err error) {
	name := storeMagic[:len(storeMagic)-1]
	if len(b) < len(storeMagic) && bytes.HasPrefix([]byte(name), b) {
		return "", 0, nil, fmt.Errorf("truncated: %d bytes", len(b))
	}
	if !bytes.HasPrefix(b, []byte(name)) || len(b) < len(storeMagic) {
		return "", 0, nil, errors.New("not a store file (bad magic)")
	}
	if v := b[len(storeMagic)-1]; v != storeMagic[len(storeMagic)-1] {
		return "", 0, nil, fmt.Errorf("store format version %d, this node reads 1", v)
	}
	if len(b) < storeHeadLen+storeTailLen {
		return "", 0, nil, fmt.Errorf("truncated: %d bytes", len(b))
	}
	n := binary.BigEndian.Uint32(b[len(storeMagic):])
	if want := uint64(storeHeadLen) + uint64(n) + storeTailLen; uint64(len(b)) != want {
		if uint64(len(b)) < want {
			return "", 0, nil, fmt.Errorf("truncated: %d of %d bytes", len(b), want)
		}
		return "", 0, nil, fmt.Errorf("%d bytes after the end", uint64(len(b))-want)
	}
	end := len(b) - storeTailLen
	if crc32.Checksum(b[:end], storeCRC) != binary.BigEndian.Uint32(b[end:]) {
		return "", 0, nil, errors.New("bad checksum")
	}
	r := storeReader{b: b[storeHeadLen:end]}
	run = string(r.bytes(int(r.uint32())))
	id = protocol.NodeID(r.uint32())
	count := r.uint32()
	// An entry takes at least 8 bytes, which bounds the map's size hint.
	if uint64(count) > uint64(len(r.b))/8 {
		return "", 0, nil, fmt.Errorf("%d entries in %d bytes", count, len(r.b))
	}
	m = make(map[string][]byte, count)
	prev := ""
	for i := range count {
		k := string(r.bytes(int(r.uint32())))
		v := r.bytes(int(r.uint32()))
		if r.err != nil {
			break
		}
		if i > 0 && k <= prev {
			return "", 0, nil, fmt.Errorf("key %q out of order", k)
		}
		m[k], prev = bytes.Clone(v), k
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d bytes after the last entry", len(r.b))
	}
	if r.err != nil {
		return "", 0, nil, r.err
	}
	return run, id, m, nil
}

// storeReader takes fields off the front of a store body, and stops with
// an error at the first that does not fit.
type storeReader struct {
	b   []byte
	err error
}

func (r *storeReader) uint32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *storeReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = fmt.Errorf("a field of %d bytes where %d remain", n, len(r.b))
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
