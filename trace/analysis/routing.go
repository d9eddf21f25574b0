package analysis

import (
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
	// on. Hellos are AODV's hello messages (routing.aodv.neighbors),
	// apart from the control frames and their bytes.
	RREQFirst        uint64 `json:"rreq_first,omitempty"`
	RREQRetries      uint64 `json:"rreq_retries,omitempty"`
	RREPFirst        uint64 `json:"rrep_first,omitempty"`
	RREPIntermediate uint64 `json:"rrep_intermediate,omitempty"`
	RREPGratuitous   uint64 `json:"rrep_gratuitous,omitempty"`
	RERRFirst        uint64 `json:"rerr_first,omitempty"`
	Hellos           uint64 `json:"hellos,omitempty"`
	// Drops of those messages by reason ("no-route", "buffer").
	Drops map[string]uint64 `json:"drops,omitempty"`
}

// routingEvents are what the routing metrics read.
func routingEvents(ev string) bool {
	switch evTypes[ev] {
	case tSend, tRelay, tRecv, tDrop, tRREQ, tRREP, tRERR:
		return true
	}
	return false
}

// ComputeRouting reads the run in dir (src: nil for the disk) and
// measures its multi-hop messages; nil when it has none.
func ComputeRouting(dir string, src trace.Source) (*RoutingMetrics, error) {
	r, err := load([]string{dir}, loadOptions{keep: routingEvents, src: src})
	if err != nil {
		return nil, err
	}
	m := &RoutingMetrics{Drops: map[string]uint64{}}
	if sc, err := r.scenario(); err == nil {
		m.Routing = sc.Routing.Protocol
	}
	sent := map[msgKey]int64{} // message -> when sent
	dest := map[msgKey]protocol.NodeID{}
	type delivery struct {
		k    msgKey
		t    int64
		hops int
	}
	var got []delivery
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			e := &p.evs[i]
			switch e.typ {
			case tSend:
				if e.origin == p.id && e.oseq != 0 && e.to != protocol.None {
					k := msgKey{node: e.origin, seq: e.oseq}
					sent[k], dest[k] = e.t, e.to
					m.Messages++
					m.DataFrames++
				}
			case tRelay:
				if e.to != protocol.None {
					m.DataFrames++
				}
			case tRecv:
				if e.origin != protocol.None && e.oseq != 0 {
					got = append(got, delivery{msgKey{node: e.origin, seq: e.oseq}, e.t, int(e.hops)})
				}
			case tDrop:
				if e.origin != protocol.None && e.text != 0 {
					m.Drops[r.strs.Strs[e.text]]++
				}
			case tRREQ:
				m.RREQ++
				m.ControlBytes += uint64(e.bytes)
				switch {
				case e.kind != 0 && r.strs.Strs[e.kind] == "retry":
					m.RREQRetries++
				case e.origin == p.id && e.hops == 1:
					m.RREQFirst++
				}
			case tRREP:
				m.countReply(e, p.id, r.strs.Strs[e.kind])
			case tRERR:
				m.RERR++
				m.ControlBytes += uint64(e.bytes)
				if e.kind == 0 || r.strs.Strs[e.kind] != "forward" {
					m.RERRFirst++
				}
			}
		}
	}
	m.ControlFrames = m.RREQ + m.RREP + m.RERR
	if m.Messages == 0 && m.ControlFrames == 0 && m.Hellos == 0 {
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

// countReply counts a rrep event e of node self whose kind is kind.
func (m *RoutingMetrics) countReply(e *event, self protocol.NodeID, kind string) {
	switch kind {
	case "hello":
		m.Hellos++
		return
	case "intermediate":
		m.RREPIntermediate++
		m.RREPFirst++
	case "gratuitous":
		m.RREPGratuitous++
		m.RREPFirst++
	default:
		if e.to == self {
			m.RREPFirst++ // the destination's own
		}
	}
	m.RREP++
	m.ControlBytes += uint64(e.bytes)
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
	if len(m.Drops) > 0 {
		fmt.Fprintf(w, "multi-hop messages dropped:")
		for _, k := range slices.Sorted(maps.Keys(m.Drops)) {
			fmt.Fprintf(w, " %s %d", k, m.Drops[k])
		}
		fmt.Fprintln(w)
	}
}
