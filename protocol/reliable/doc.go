// Package reliable is a reliable FIFO channel between any two nodes of a
// run, as a state machine that a protocol embeds: sequence numbers,
// cumulative acknowledgements and retransmission with exponential backoff
// over Env.Deliver, which is multi-hop and best effort (frames may be lost,
// duplicated or reordered).
//
// The embedding protocol builds one Channel in New, calls Start on
// protocol.Start, sends with Send, and passes every event to the channel's
// Step first: the channel handles its own messages (Data and Ack) and
// timers and returns what became deliverable and which peers stopped
// answering; every other event comes back with ok=false.
//
// A peer that does not acknowledge after Config.Retries retransmissions is
// reported in Output.Unreachable with the messages it never acknowledged,
// and the session with it ends; the next Send to it opens a new session.
// Delivery is exactly once and in order within a session. Messages a
// Failure returns may have arrived even so (only their acknowledgement was
// lost), so a protocol that resends them may duplicate them.
//
// Crash and recovery: a recovered node is a fresh Process whose channel
// starts with a larger incarnation (Env.Now at Start); receivers then drop
// what they held from its previous life. A receiver that recovered has no
// state for its senders' sessions and picks a session up where the sender's
// unacknowledged messages begin (Data.Base): what the previous incarnation
// acknowledged was lost with it.
//
// The package imports only manetlab/protocol and the standard library; it
// is deterministic (no goroutines, no clock but Env.Now, no maps iterated).
package reliable
