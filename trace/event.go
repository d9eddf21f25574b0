// Package trace is the trace format: the event schema, a writer that loses
// at most the last line on a crash, and a reader that tolerates damage and
// names file:line for what it cannot read. docs/trace.md documents it.
//
// It is the root of the trace aggregator: it imports only protocol; the
// drivers write through it, and beneath it live the aggregator's parts:
// analysis (merge, checks, metrics), report (the run summary), htmlreport
// (the HTML page), export (ShiViz, NetAnim) and collect (streaming traces
// over TCP). A new trace event type goes here; a new check or metric goes in
// trace/analysis.
package trace

import "manetlab/protocol"

// Schema is the version of the trace format written in every header.
const Schema = 1

// Event is one line of a trace file. Fields irrelevant to an event's type
// are omitted from the JSON.
type Event struct {
	// T is the driver's time of the event in nanoseconds since the start of
	// the run (virtual time in sim).
	T int64 `json:"t"`
	// Wall is the local wall clock in Unix nanoseconds (real driver only).
	Wall int64 `json:"wall,omitempty"`
	// HLC is the hybrid logical clock of the event (real driver only).
	HLC *HLC `json:"hlc,omitempty"`
	// Node is the node the event happened at (0 in the run file for
	// run-wide events).
	Node protocol.NodeID `json:"node"`
	// Ev is the event type, one of the Ev* constants.
	Ev string `json:"ev"`

	// Message events.
	Kind   string          `json:"kind,omitempty"`   // message kind
	From   protocol.NodeID `json:"from,omitempty"`   // frame sender (recv, drop)
	To     protocol.NodeID `json:"to,omitempty"`     // destination; 0 = broadcast
	Seq    uint64          `json:"seq,omitempty"`    // sender's frame sequence number
	Origin protocol.NodeID `json:"origin,omitempty"` // multi-hop: originator
	OSeq   uint64          `json:"oseq,omitempty"`   // multi-hop: originator's sequence
	Hops   int             `json:"hops,omitempty"`   // multi-hop: hops travelled
	Bytes  int             `json:"bytes,omitempty"`  // encoded size of the message body
	Reason string          `json:"reason,omitempty"` // drop: "range", "loss", "crashed", ...

	// Protocol notes, neighbour and fault events.
	Leader protocol.NodeID `json:"leader,omitempty"`
	Value  *float64        `json:"value,omitempty"`
	Epoch  string          `json:"epoch,omitempty"`
	Peer   protocol.NodeID `json:"peer,omitempty"` // neighbour-up/down
	Text   string          `json:"text,omitempty"`
	Pos    *[3]float64     `json:"pos,omitempty"` // position events

	// Header fields (EvHeader only).
	Schema   int    `json:"schema,omitempty"`
	Run      string `json:"run,omitempty"`
	Driver   string `json:"driver,omitempty"` // "sim" or "node"
	Protocol string `json:"protocol,omitempty"`
	Scenario string `json:"scenario,omitempty"` // run file: the resolved scenario as YAML
	Seed     uint64 `json:"seed,omitempty"`
	// Host names the machine a real node ran on, so that the aggregator
	// can estimate one clock offset per machine rather than per node.
	Host string `json:"host,omitempty"`
	// ScenarioHash identifies the resolved scenario a real node ran (and,
	// in a run file, the one it records): a node whose hash differs
	// from the run file's ran another scenario (docs/trace.md).
	ScenarioHash string `json:"scenario_hash,omitempty"`

	// Src is where a merged event came from ("node-3.jsonl:42"); only
	// `manetlab trace merge` writes it, so merged output points back to
	// the original files.
	Src string `json:"src,omitempty"`
}

// HLC is a hybrid logical clock reading: wall nanoseconds and a logical
// counter.
type HLC struct {
	Wall    int64  `json:"w"`
	Logical uint32 `json:"l"`
}

// Event types. Add, never rename: readers and checkers match on them.
const (
	EvHeader   = "header"   // first line of every file
	EvSend     = "send"     // a frame left this node
	EvRecv     = "recv"     // a frame was delivered to the protocol
	EvRelay    = "relay"    // a multi-hop frame was forwarded
	EvDrop     = "drop"     // a frame reached this node's radio but was not delivered
	EvAck      = "ack"      // a link acknowledgement sent for the unicast (To, Seq) just heard
	EvRetx     = "retx"     // a unicast frame (To, Seq) transmitted again, unacknowledged
	EvRREQ     = "rreq"     // an AODV route request for To (from Origin, id OSeq) left this node
	EvRREP     = "rrep"     // an AODV route reply (route to To, for Origin) left this node
	EvRERR     = "rerr"     // an AODV route error (Hops: destinations listed) left this node
	EvStart    = "start"    // the process started (boot or recovery)
	EvCrash    = "crash"    // the node crashed (fault schedule)
	EvRecover  = "recover"  // the node came back
	EvCut      = "cut"      // a fault by hand (run file): Node's radio no longer hears Peer
	EvHeal     = "heal"     // the end of a cut: Node hears Peer again
	EvNbrUp    = "nbr-up"   // neighbour discovery heard Peer
	EvNbrDown  = "nbr-down" // neighbour discovery lost Peer
	EvCommand  = "command"  // a workload command (Text) was given
	EvPosition = "position" // the node was at Pos
	EvEnd      = "end"      // the run ended cleanly
	EvStats    = "stats"    // a real node's counters at the end (Text: "name=count ...")
	// EvQuiet (run file, simulator only, at the end just before end):
	// the run was quiescent from Value (seconds) to its end, and nothing
	// was left to happen: no
	// protocol message in flight or queued, no protocol timer armed, no
	// fault or command scheduled later (docs/trace.md).
	EvQuiet = "quiet"
	// StatsRefusedFrom begins a stats count of the frames refused from
	// one member: "refused-from-3=12" (docs/trace.md).
	StatsRefusedFrom = "refused-from-"
	// StatsRefusedPrefix begins a stats count of the frames refused from
	// one member for one reason, from one address:
	// "refused-clock-from-3-at-10.77.0.3=12", or from one address alone
	// (frames that prove no sender): "refused-no-hmac-at-10.77.0.9=411"
	// (docs/trace.md).
	StatsRefusedPrefix = "refused-"
	// StatsLateStart is the stats count of how many milliseconds after
	// the run's start the start reached a node's process (the launcher's
	// readiness handshake: the process was ready, the machine did not run
	// it in time), with the machine's load average and runnable threads
	// then: "late-start-ms=2310 load-at-start=14.20 runnable-at-start=9".
	StatsLateStart = "late-start-ms"
	// StatsAddr is the address a real node's own frames leave from, in
	// its stats: "addr=10.77.0.3".
	StatsAddr = "addr"
	// StatsHost names the machine a real node ran on, when run --hosts
	// named it: "host=h3".
	StatsHost          = "host"
	StatsStartLoad     = "load-at-start"
	StatsStartRunnable = "runnable-at-start"
	// Protocol notes use the protocol.NoteKind names: "leader",
	// "election-start", "election-end", "cs-request", "cs-enter",
	// "cs-exit", "info", "parent".
)
