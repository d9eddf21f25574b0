package collect

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// nonceSize is the length of both nonces, in bytes.
const nonceSize = 16

// newNonce returns a fresh random nonce, hex-encoded.
func newNonce() string {
	b := make([]byte, nonceSize)
	rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(b)
}

// validNonce says whether s is a hex nonce of the right size.
func validNonce(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == nonceSize
}

// mac is HMAC-SHA256 under key over a label and the handshake's fields,
// each prefixed with its length (so that no two field lists give the same
// input), hex-encoded. The label separates the client's proof
// ("hello"), the collector's first ("offset") and final ("final")
// answers, so that none can stand for another.
func mac(key []byte, label, run string, node uint32, serverNonce, clientNonce string, offset int64) string {
	m := hmac.New(sha256.New, key)
	for _, s := range []string{Proto, label, run, strconv.FormatUint(uint64(node), 10), serverNonce, clientNonce, strconv.FormatInt(offset, 10)} {
		m.Write(strconv.AppendInt(nil, int64(len(s)), 10))
		m.Write([]byte{':'})
		m.Write([]byte(s))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// macOK compares a received mac with the expected one in constant time.
func macOK(got, want string) bool {
	return hmac.Equal([]byte(got), []byte(want))
}
