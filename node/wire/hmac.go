package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"sync"
)

// macState is a keyed HMAC kept for reuse: hmac.New allocates several
// objects, which would dominate the cost of a small frame.
type macState struct {
	key []byte
	h   hash.Hash
	sum [sha256.Size]byte
}

var macPool = sync.Pool{New: func() any { return new(macState) }}

func getMAC(key []byte) *macState {
	m := macPool.Get().(*macState)
	if m.h == nil || !bytes.Equal(m.key, key) {
		m.key = append(m.key[:0], key...)
		m.h = hmac.New(sha256.New, m.key)
	} else {
		m.h.Reset()
	}
	return m
}

// appendMAC appends HMAC-SHA256(key, msg) to dst. msg may alias dst.
func appendMAC(dst, key, msg []byte) []byte {
	m := getMAC(key)
	m.h.Write(msg)
	dst = m.h.Sum(dst)
	macPool.Put(m)
	return dst
}

// checkMAC reports whether mac is HMAC-SHA256(key, msg), in constant time.
func checkMAC(key, msg, mac []byte) bool {
	m := getMAC(key)
	m.h.Write(msg)
	ok := hmac.Equal(m.h.Sum(m.sum[:0]), mac)
	macPool.Put(m)
	return ok
}
