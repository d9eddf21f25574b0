// Package wire is the real driver's frame format: a fixed-size big-endian
// header written by hand, a type-specific section, an optional msgpack
// message body, and an optional HMAC-SHA256 trailer. It also holds the
// message-body codec built from a protocol.Spec, the bounded msgpack
// pre-scan that protects the decoder from hostile length headers, and the
// hybrid logical clock stamped on every frame.
//
// docs/wire.md describes the format byte by byte. Decoding never panics:
// every length is checked before slicing, and every rejection carries a
// reason (see Reason) that a driver can use as a counter label.
//
// It imports only protocol (for the message types it encodes) and msgpack.
package wire
