package analysis

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"

	"manetlab/protocol"
	"manetlab/trace"
)

// RoutingMetrics measure how a run's multi-hop messages with a
// destination (a protocol's Env.Deliver) travelled: whether they arrived,
// over how many hops and how fast, and what the routing cost on the air
// (docs/routing.md). Frames count transmissions; messages count what
// protocols asked to send.
type RoutingMetrics struct {
	// Routing is the scenario's routing.protocol ("" when the run file
	// does not say).
	Routing string `json:"routing,omitempty"`
	// Messages were originated, Delivered reached their destination
	// (once each); DeliveryRatio is their ratio.
	Messages      uint64   `json:"messages"`
	Delivered     uint64   `json:"delivered"`
	DeliveryRatio *float64 `json:"delivery_ratio"`
	// DataFrames are the transmissions of those messages: the first and
	// every relay (flood) or forwarding (route); link-layer
	// retransmissions are counted apart (MetricsReport.Link).
	DataFrames             uint64   `json:"data_frames"`
	DataFramesPerDelivered *float64 `json:"data_frames_per_delivered"`
	// Hops is the mean hop count of the deliveries; Latency and
	// LatencyP50 the mean and median seconds from send to delivery (the
	// drivers' clocks: exact in the simulator, within the clock offsets
	// between hosts for real nodes).
	Hops       *float64 `json:"hops"`
	Latency    *float64 `json:"latency"`
	LatencyP50 *float64 `json:"latency_p50"`
	// Control frames of the routing protocol (AODV): route requests (each
	// relay counts), replies (each hop counts) and errors, and their
	// bytes (RFC 3561's message sizes).
	RREQ          uint64 `json:"rreq"`
	RREP          uint64 `json:"rrep"`
	RERR          uint64 `json:"rerr"`
	ControlFrames uint64 `json:"control_frames"`
	ControlBytes  uint64 `json:"control_bytes"`
	// The same by who sent them: requests a discovery's first try
	// (RREQFirst) or a later one (RREQRetries, a wider ring or a retry),
	// the rest relays; replies made by the node sending them (RREPFirst:
	// the destination's, Intermediate and Gratuitous ones), the rest
	// passed on; errors raised by the node (RERRFirst), the rest passed
	// on. Hellos are AODV's hello messages (routing.aodv.neighbors) and
	// RREPAcks its reply acknowledgements (routing.aodv.rrep_ack), apart
	// from the control frames and their bytes.
	RREQFirst        uint64 `json:"rreq_first,omitempty"`
	RREQRetries      uint64 `json:"rreq_retries,omitempty"`
	RREPFirst        uint64 `json:"rrep_first,omitempty"`
	RREPIntermediate uint64 `json:"rrep_intermediate,omitempty"`
	RREPGratuitous   uint64 `json:"rrep_gratuitous,omitempty"`
	RERRFirst        uint64 `json:"rerr_first,omitempty"`
	Hellos           uint64 `json:"hellos,omitempty"`
	RREPAcks         uint64 `json:"rrep_acks,omitempty"`
	// Drops of those messages by reason ("no-route", "buffer").
	Drops map[string]uint64 `json:"drops,omitempty"`
}

// routingEvents are what the routing metrics read.
func routingEvents(ev string) bool {
	switch typeOf(ev) {
	case tSend, tRelay, tRecv, tDrop, tRREQ, tRREP, tRERR:
		return true
	}
	return false
}

// routingFrom tells, when asked (want), whether a run has routing
// metrics to compute (ComputeRouting, a read of its receives) from the
// sends and control frames of the metrics' own read (l's, which reads no
// receives): a run with neither has none, and is not read again. The
// answer is ready once that read is done.
func routingFrom(l *loader, want bool) func() bool {
	if !want || l.one != nil {
		return func() bool { return want }
	}
	any := false
	prev := l.visit
	l.visit = func(id protocol.NodeID, e *trace.Event) {
		if prev != nil {
			prev(id, e)
		}
		if id == protocol.None || any {
			return
		}
		switch typeOf(e.Ev) {
		case tSend:
			any = e.Origin == id && e.OSeq != 0 && e.To != protocol.None
		case tRREQ, tRREP, tRERR:
			any = true
		}
	}
	return func() bool { return any }
}

// ComputeRouting reads the run in dir (src: nil for the disk) and
// measures its multi-hop messages; nil when it has none.
func ComputeRouting(dir string, src trace.Source) (*RoutingMetrics, error) {
	m := &RoutingMetrics{Drops: map[string]uint64{}}
	sent := map[msgKey]int64{} // message -> when sent
	type delivery struct {
		k    msgKey
		t    int64
		hops int
		node protocol.NodeID
	}
	var got []delivery
	// The events are handed over as they are read, none kept: receives
	// are most of a trace.
	r, err := load([]string{dir}, loadOptions{keep: routingEvents, src: src, discard: true, visit: func(id protocol.NodeID, e *trace.Event) {
		if id == protocol.None {
			return
		}
		switch typeOf(e.Ev) {
		case tSend:
			if e.Origin == id && e.OSeq != 0 && e.To != protocol.None {
				sent[msgKey{node: e.Origin, seq: e.OSeq}] = e.T
				m.Messages++
				m.DataFrames++
			}
		case tRelay:
			if e.To != protocol.None {
				m.DataFrames++
			}
		case tRecv:
			if e.Origin != protocol.None && e.OSeq != 0 {
				got = append(got, delivery{msgKey{node: e.Origin, seq: e.OSeq}, e.T, int(max(0, min(e.Hops, 255))), id})
			}
		case tDrop:
			if e.Origin != protocol.None && e.Reason != "" {
				m.Drops[e.Reason]++
			}
		case tRREQ:
			m.RREQ++
			m.ControlBytes += uint64(int32(e.Bytes))
			switch {
			case e.Kind == "retry":
				m.RREQRetries++
			case e.Origin == id && e.Hops == 1:
				m.RREQFirst++
			}
		case tRREP:
			m.countReply(e, id)
		case tRERR:
			m.RERR++
			m.ControlBytes += uint64(int32(e.Bytes))
			if e.Kind != "forward" {
				m.RERRFirst++
			}
		}
	}})
	if err != nil {
		return nil, err
	}
	if sc, err := r.scenario(); err == nil {
		m.Routing = sc.Routing.Protocol
	}
	// Node by node, each in its own order (the combined layout hands them
	// over interleaved): a message's first delivery is the one measured.
	slices.SortStableFunc(got, func(a, b delivery) int { return cmp.Compare(a.node, b.node) })
	m.ControlFrames = m.RREQ + m.RREP + m.RERR
	if m.Messages == 0 && m.ControlFrames == 0 && m.Hellos == 0 && m.RREPAcks == 0 {
		return nil, nil
	}
	seen := map[msgKey]bool{}
	var lat []float64
	var hops int
	for _, d := range got {
		at, ok := sent[d.k]
		if !ok || seen[d.k] {
			continue // a flood to every node, or a copy
		}
		seen[d.k] = true
		m.Delivered++
		hops += d.hops
		lat = append(lat, seconds(d.t-at))
	}
	if m.Messages > 0 {
		m.DeliveryRatio = ptr(float64(m.Delivered) / float64(m.Messages))
	}
	if m.Delivered > 0 {
		m.DataFramesPerDelivered = ptr(float64(m.DataFrames) / float64(m.Delivered))
		m.Hops = ptr(float64(hops) / float64(m.Delivered))
		sum := 0.0
		for _, l := range lat {
			sum += l
		}
		m.Latency = ptr(sum / float64(len(lat)))
		slices.Sort(lat)
		m.LatencyP50 = ptr(lat[len(lat)/2])
	}
	if len(m.Drops) == 0 {
		m.Drops = nil
	}
	return m, nil
}

// countReply counts a rrep event e of node self.
func (m *RoutingMetrics) countReply(e *trace.Event, self protocol.NodeID) {
	switch e.Kind {
	case "hello":
		m.Hellos++
		return
	case "ack":
		m.RREPAcks++
		return
	case "intermediate":
		m.RREPIntermediate++
		m.RREPFirst++
	case "gratuitous":
		m.RREPGratuitous++
		m.RREPFirst++
	default:
		if e.To == self {
			m.RREPFirst++ // the destination's own
		}
	}
	m.RREP++
	m.ControlBytes += uint64(int32(e.Bytes))
}

// WriteText writes the routing metrics as lines of the text report.
func (m *RoutingMetrics) WriteText(w io.Writer) {
	routing := m.Routing
	if routing == "" {
		routing = "unknown"
	}
	fmt.Fprintf(w, "multi-hop messages (routing %s): %d sent, %d delivered", routing, m.Messages, m.Delivered)
	if m.DeliveryRatio != nil {
		fmt.Fprintf(w, " (ratio %.3f)", *m.DeliveryRatio)
	}
	fmt.Fprintf(w, "; %d data frames", m.DataFrames)
	if m.DataFramesPerDelivered != nil {
		fmt.Fprintf(w, " (%.2f per delivered message)", *m.DataFramesPerDelivered)
	}
	if m.Hops != nil {
		fmt.Fprintf(w, "; %.2f hops, latency mean %.1f ms, median %.1f ms", *m.Hops, 1000**m.Latency, 1000**m.LatencyP50)
	}
	fmt.Fprintln(w)
	if m.ControlFrames > 0 {
		fmt.Fprintf(w, "routing control frames (counted apart): %d (%d bytes): %d route requests, %d replies, %d errors\n",
			m.ControlFrames, m.ControlBytes, m.RREQ, m.RREP, m.RERR)
		fmt.Fprintf(w, "routing control by sender: requests %d first tries, %d later tries, %d relayed; replies %d made (%d intermediate, %d gratuitous), %d passed on; errors %d raised, %d passed on\n",
			m.RREQFirst, m.RREQRetries, m.RREQ-m.RREQFirst-m.RREQRetries, m.RREPFirst, m.RREPIntermediate, m.RREPGratuitous,
			m.RREP-m.RREPFirst, m.RERRFirst, m.RERR-m.RERRFirst)
	}
	if m.Hellos > 0 {
		fmt.Fprintf(w, "AODV hellos: %d\n", m.Hellos)
	}
	if m.RREPAcks > 0 {
		fmt.Fprintf(w, "AODV reply acknowledgements: %d\n", m.RREPAcks)
	}
	if len(m.Drops) > 0 {
		fmt.Fprintf(w, "multi-hop messages dropped:")
		for _, k := range slices.Sorted(maps.Keys(m.Drops)) {
			fmt.Fprintf(w, " %s %d", k, m.Drops[k])
		}
		fmt.Fprintln(w)
	}
}
