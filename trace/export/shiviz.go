package export

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"strconv"

	"manetlab/protocol"
	"manetlab/trace"
)

// ShiVizRegex is the parsing expression written on the first line of a
// ShiViz log: ShiViz's default, an event line then "host {clock}".
const ShiVizRegex = `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`

// HostName is how a node is named in a ShiViz log.
func HostName(id protocol.NodeID) string { return "node" + strconv.FormatUint(uint64(id), 10) }

// vclock is a sparse vector clock.
type vclock map[protocol.NodeID]uint64

// MaxShiVizHosts is the most nodes ShiViz exports without an explicit
// --nodes: beyond it the clocks grow quadratically (a 1,000-node run of a
// million events took 3.5 minutes and 5.9 GB) and ShiViz cannot draw them.
const MaxShiVizHosts = 64

// ShiViz writes the node events of the run in dirs as a ShiViz log: the
// regex line, an empty delimiter line, then two lines per event. Vector
// clocks follow process order and send->recv edges over the whole run,
// but count only the selected events, so every host's own entry starts
// at 1 and rises by exactly 1 per written event of that host, and
// happened-before between written events is kept even through events
// left out. Run-file events are not written (they belong to no process).
//
// The events come one at a time from the merge: what is held is each
// node's clock and, per send, a snapshot of its sender's clock, shared by
// the sends between two changes of that clock.
func ShiViz(dirs []string, w io.Writer, opt Options) (*Report, error) {
	rep := &Report{}
	f := newFilter(opt)
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "%s\n\n", ShiVizRegex)
	type sent struct {
		vc   vclock // never changed once taken
		kept bool
	}
	type host struct {
		vc   vclock
		snap vclock // vc as a send took it, while vc has not changed
	}
	cur := map[protocol.NodeID]*host{}
	m := newMatcher[sent]()
	hosts := map[protocol.NodeID]bool{}
	// Every node with an event, counted on when there are too many to
	// write (nothing more is written).
	nodes := map[protocol.NodeID]bool{}
	tooMany := false
	var line []byte
	err := each(dirs, opt, rep, nil, func(e *trace.Event, runFile bool) {
		if runFile {
			return
		}
		if len(opt.Nodes) == 0 && !nodes[e.Node] {
			nodes[e.Node] = true
			tooMany = tooMany || len(nodes) > MaxShiVizHosts
		}
		if tooMany || e.Ev == trace.EvHeader {
			return
		}
		h := cur[e.Node]
		if h == nil {
			h = &host{vc: vclock{}}
			cur[e.Node] = h
		}
		vc := h.vc
		keep := f.keep(e)
		if e.Ev == trace.EvRecv {
			if s, ok := m.recv(e); ok {
				for k, v := range s.vc {
					if v > vc[k] {
						vc[k] = v
						h.snap = nil
					}
				}
				if keep && s.kept {
					rep.Edges++
				}
			}
		}
		if keep {
			vc[e.Node]++
			h.snap = nil
			hosts[e.Node] = true
			rep.Events++
			line = appendDescription(line[:0], e)
			line = append(line, '\n')
			line = appendClock(append(append(line, HostName(e.Node)...), ' '), e.Node, vc)
			line = append(line, '\n')
			bw.Write(line)
		}
		if isSend(e) {
			if h.snap == nil {
				h.snap = maps.Clone(vc)
			}
			m.send(e, sent{h.snap, keep})
		}
	})
	if err != nil {
		return nil, err
	}
	if tooMany {
		return nil, fmt.Errorf("shiviz: the run has %d nodes; ShiViz draws a few dozen hosts at most and every event would carry a %d-entry clock: choose up to %d with --nodes (e.g. --nodes 1-20), and a window with --from/--to", len(nodes), len(nodes), MaxShiVizHosts)
	}
	rep.Hosts = len(hosts)
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("writing the ShiViz log: %w", err)
	}
	return rep, nil
}

// appendClock writes vc as JSON: the host's own entry first, then the
// others by node ID; zero entries are left out.
func appendClock(dst []byte, self protocol.NodeID, vc vclock) []byte {
	dst = append(dst, `{"`...)
	dst = append(dst, HostName(self)...)
	dst = append(dst, `":`...)
	dst = strconv.AppendUint(dst, vc[self], 10)
	for _, id := range sortedIDs(vc) {
		if id == self || vc[id] == 0 {
			continue
		}
		dst = append(dst, `, "`...)
		dst = append(dst, HostName(id)...)
		dst = append(dst, `":`...)
		dst = strconv.AppendUint(dst, vc[id], 10)
	}
	return append(dst, '}')
}

// appendDescription writes the event line: the type, its fields as
// name=value, the time in seconds and the source file:line.
func appendDescription(dst []byte, e *trace.Event) []byte {
	dst = append(dst, e.Ev...)
	if e.Kind != "" {
		dst = append(dst, ' ')
		dst = append(dst, e.Kind...)
	}
	num := func(name string, v uint64) {
		if v != 0 {
			dst = append(dst, ' ')
			dst = append(dst, name...)
			dst = append(dst, '=')
			dst = strconv.AppendUint(dst, v, 10)
		}
	}
	num("from", uint64(e.From))
	num("to", uint64(e.To))
	num("seq", e.Seq)
	num("origin", uint64(e.Origin))
	num("oseq", e.OSeq)
	num("leader", uint64(e.Leader))
	num("peer", uint64(e.Peer))
	if e.Value != nil {
		dst = append(dst, " value="...)
		dst = strconv.AppendFloat(dst, *e.Value, 'g', -1, 64)
	}
	if e.Epoch != "" {
		dst = append(dst, " epoch="...)
		dst = strconv.AppendQuote(dst, e.Epoch)
	}
	if e.Reason != "" {
		dst = append(dst, " reason="...)
		dst = append(dst, e.Reason...)
	}
	if e.Text != "" {
		dst = append(dst, " text="...)
		dst = strconv.AppendQuote(dst, e.Text)
	}
	dst = append(dst, " t="...)
	dst = strconv.AppendFloat(dst, float64(e.T)/1e9, 'f', 6, 64)
	dst = append(dst, "s ["...)
	dst = append(dst, e.Src...)
	dst = append(dst, ']')
	// strconv.Quote leaves no newline; the kind and reason come from
	// the trace and could hold one.
	for i, c := range dst {
		if c == '\n' || c == '\r' {
			dst[i] = ' '
		}
	}
	return dst
}
