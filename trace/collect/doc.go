// Package collect gathers the traces of nodes running on other machines
// over TCP while they run: a Collector listens and appends each node's
// lines to DIR/node-<id>.jsonl; a Streamer, beside a node, sends its local
// trace file. The local file stays the source of truth: the Streamer only
// reads it, and on every (re)connection the Collector says how many bytes
// of it it already holds, so a dropped connection or a restarted collector
// resumes exactly where it stopped, losing and doubling nothing.
//
// The protocol (docs/collect.md), one TCP connection per node file:
//
//	server: {"proto":"manetlab-trace/2","nonce":"<hex>","auth":"hmac-sha256"}\n   (no auth: no key)
//	        (or {"proto":"manetlab-trace/2","error":"why"}\n and close: refused before any hello, e.g. a keyless collector and a peer not on loopback)
//	client: {"proto":"manetlab-trace/2","run":"q1","node":3,"host":"h","size":1234,"nonce":"<hex>","mac":"<hex>"}\n
//	server: {"offset":1000,"mac":"<hex>"}\n   (or {"error":"why","retry":true|false}\n and close)
//	client: the bytes of its local file from offset 1000 on, as they are written
//	client: half-closes when it has sent everything it wants to
//	server: {"offset":N,"mac":"<hex>"}\n once it has written everything it received, and closes
//	        ({"offset":N,"idle":true,...} when it closes an idle stream: the client reconnects when it has more)
//
// With a key (the run's, as for the frames) both macs are HMAC-SHA256 over
// the run, the node, both nonces (and the offset, for the server's):
// the collector accepts only nodes that hold the key, a recorded
// handshake cannot be replayed, and the node knows the offset comes from
// a collector that holds it too. Without a key the collector accepts
// loopback peers only. docs/security.md gives the threat model.
//
// The collector appends only complete lines (a line cut by a dropped
// connection is discarded and resent), so its file is always a prefix of
// the node's file, ending at a line boundary. It holds one stream per
// node of the run's membership, refuses others, caps the connections,
// the line length and the time without a complete line, and closes a
// node's file when its stream ends.
//
// It imports only trace and protocol; the node driver imports it to stream
// its trace.
package collect

// Proto names the protocol version in the greeting and the hello.
const Proto = "manetlab-trace/2"

// AuthHMAC is the greeting's auth value when the collector has a key.
const AuthHMAC = "hmac-sha256"

// greeting is the collector's first line: its challenge, or (Error) why
// it refuses the client before any hello: the client reports the reason
// rather than taking the collector for something else. A greeting of an
// older collector's refusal, a bare reply without proto, carries the
// same error field.
type greeting struct {
	Proto string `json:"proto"`
	Nonce string `json:"nonce"`
	Auth  string `json:"auth,omitempty"`
	Error string `json:"error,omitempty"`
}

// hello is the client's answer to the greeting.
type hello struct {
	Proto string `json:"proto"`
	Run   string `json:"run"`
	Node  uint32 `json:"node"`
	Host  string `json:"host,omitempty"`
	// Size is the length of the client's local file when it connects;
	// informative (the collector logs it).
	Size  int64  `json:"size"`
	Nonce string `json:"nonce,omitempty"`
	MAC   string `json:"mac,omitempty"`
}

// reply is the collector's answer: the offset to resume from, or why the
// client is refused (Retry: the refusal is temporary, such as another
// live stream for the node or no free connection).
type reply struct {
	Offset int64  `json:"offset"`
	Error  string `json:"error,omitempty"`
	Retry  bool   `json:"retry,omitempty"`
	Idle   bool   `json:"idle,omitempty"`
	MAC    string `json:"mac,omitempty"`
}
