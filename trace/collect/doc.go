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
//	client: {"proto":"manetlab-trace/1","run":"q1","node":3,"host":"h","size":1234}\n
//	server: {"offset":1000}\n             (or {"error":"why"}\n and close)
//	client: the bytes of its local file from offset 1000 on, as they are written
//	client: half-closes when it has sent everything it wants to
//	server: {"offset":N}\n once it has written everything it received, and closes
//
// The collector appends only complete lines (a line cut by a dropped
// connection is discarded and resent), so its file is always a prefix of
// the node's file, ending at a line boundary.
//
// It imports only trace and protocol; the node driver imports it to stream
// its trace.
package collect

// Proto names the protocol version in the hello line.
const Proto = "manetlab-trace/1"

// hello is the client's first line.
type hello struct {
	Proto string `json:"proto"`
	Run   string `json:"run"`
	Node  uint32 `json:"node"`
	Host  string `json:"host,omitempty"`
	// Size is the length of the client's local file when it connects;
	// informative (the collector logs it).
	Size int64 `json:"size"`
}

// reply is the collector's answer: the offset to resume from, or why the
// client is refused.
type reply struct {
	Offset int64  `json:"offset"`
	Error  string `json:"error,omitempty"`
}
