package analysis

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"manetlab/protocol"
	"manetlab/trace"
)

// MergeReport says what Merge wrote and what it found on the way.
type MergeReport struct {
	Run    string `json:"run"`
	Files  int    `json:"files"`
	Events int    `json:"events"`
	// Matched receives (recv and drop) were paired with their send;
	// Unmatched ones have no send in the traces (a lost file or line).
	Matched   int `json:"matched"`
	Unmatched int `json:"unmatched"`
	// Duplicates are events dropped because the same node had already
	// logged the same line.
	Duplicates int `json:"duplicates"`
	// Repaired counts receives whose clock put them before their send;
	// the merge placed them after it. HLC traces should have none.
	Repaired int `json:"repaired"`
	// CyclesBroken counts receive edges ignored to break a causal cycle,
	// which only damaged traces contain.
	CyclesBroken int `json:"cycles_broken"`
	// Offsets estimates each node's wall clock against a reference node;
	// HostOffsets each host's, when node headers name hosts.
	Offsets     []Offset `json:"offsets,omitempty"`
	HostOffsets []Offset `json:"host_offsets,omitempty"`
	// Problems lists damaged input as file:line: message.
	Problems []string `json:"problems,omitempty"`
}

// Merge reads the traces of one run from dirs (several directories when
// the traces were collected from several machines) and writes every event
// of every node to w as JSON lines in one causal order: each node's own
// order is kept and every receive (recv or drop) follows its send. Each
// line is the event as trace.AppendJSON writes it plus a "src" field
// naming the file:line it came from; the first line is the run's header.
// Run ids that differ between directories are an error naming the files;
// damaged lines, duplicates and missing files are reported and the rest
// is merged.
func Merge(dirs []string, w io.Writer) (*MergeReport, error) {
	return streamMerge(dirs, writeTo(w))
}

// writeTo is the sink writing merged lines to w.
func writeTo(w io.Writer) *sink { return &sink{w: bufio.NewWriterSize(w, 1<<20)} }

// MergeEach is Merge handing every merged event to fn instead of writing
// it, in the same order, the run's header first: the event Merge's line
// decodes to (Src naming its file:line), valid only during the call.
func MergeEach(dirs []string, fn func(e *trace.Event)) (*MergeReport, error) {
	return streamMerge(dirs, &sink{fn: fn})
}

// sink takes the merged events: writes them as lines to w, or hands them
// to fn.
type sink struct {
	w        *bufio.Writer
	fn       func(e *trace.Event)
	files    []string // run.files
	prefixes [][]byte // per file, the start of the "src" field lines end with
	line     []byte
	err      error
}

// header starts the output with the run's header.
func (s *sink) header(r *run) {
	s.files = r.files
	hdr := r.header
	hdr.Src = r.headerFile + ":1"
	if s.fn != nil {
		s.fn(&hdr)
		return
	}
	s.line = append(trace.AppendJSON(nil, &hdr), '\n')
	s.w.Write(s.line)
	s.prefixes = make([][]byte, len(r.files))
	for i, f := range r.files {
		q, _ := json.Marshal(f + ":")
		s.prefixes[i] = append([]byte(`,"src":`), q[:len(q)-1]...)
	}
}

// event outputs the event of canonical line canon (AppendJSON's), from
// line of file fi.
func (s *sink) event(canon []byte, fi, line int32) {
	if s.err != nil {
		return
	}
	if s.fn != nil {
		var e trace.Event
		if s.err = trace.Decode(canon, &e); s.err == nil {
			e.Src = s.files[fi] + ":" + strconv.Itoa(int(line))
			s.fn(&e)
		}
		return
	}
	// Src is the encoder's last field, so appending it before the
	// closing brace is exactly what AppendJSON would write.
	l := append(s.line[:0], canon[:len(canon)-1]...)
	l = append(l, s.prefixes[fi]...)
	l = strconv.AppendInt(l, int64(line), 10)
	l = append(l, '"', '}', '\n')
	s.line = l
	_, s.err = s.w.Write(l)
}

// close ends the output.
func (s *sink) close() error {
	if s.err == nil && s.w != nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return fmt.Errorf("writing the merged trace: %w", s.err)
	}
	return nil
}

// clockPairs collects the apparent delays of matched send/receive pairs
// for the offset estimates; the order they come in does not matter.
type clockPairs struct {
	nd, hd *delays
	any    bool
}

func newClockPairs() *clockPairs { return &clockPairs{nd: newDelays(), hd: newDelays()} }

// add counts receive e matched to send se, when both have wall clocks.
func (c *clockPairs) add(r *run, se, e *event) {
	if e.typ != tRecv || e.wall == 0 || se.wall == 0 {
		return
	}
	c.any = true
	d := e.wall - se.wall
	c.nd.add(nodeName(se.node), nodeName(e.node), d)
	if ha, hb := r.hosts[se.node], r.hosts[e.node]; ha != "" && hb != "" {
		c.hd.add(ha, hb, d)
	}
}

// estimate gives the offsets of every node with a usable trace, and of
// every host when there are several.
func (c *clockPairs) estimate(r *run) (nodes, hosts []Offset) {
	nd, hd := c.nd, c.hd
	if !c.any {
		return nil, nil
	}
	ids := r.nodeIDs()
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = nodeName(id)
	}
	est := nd.estimate(names)
	for i, id := range ids {
		o := est[names[i]]
		o.Node = id
		nodes = append(nodes, o)
	}
	var hostNames []string
	seen := map[string]bool{}
	for _, id := range ids {
		if h := r.hosts[id]; h != "" && !seen[h] {
			seen[h] = true
			hostNames = append(hostNames, h)
		}
	}
	if len(hostNames) > 1 {
		hest := hd.estimate(hostNames)
		for _, h := range hostNames {
			o := hest[h]
			o.Host = h
			hosts = append(hosts, o)
		}
	}
	return nodes, hosts
}

// nodeName is how offsets name a node's clock.
func nodeName(id protocol.NodeID) string { return "node " + strconv.FormatUint(uint64(id), 10) }
