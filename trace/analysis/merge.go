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
	rep, ok, err := streamMerge(dirs, w)
	if ok || err != nil {
		return rep, err
	}
	return mergeInMemory(dirs, w)
}

// mergeInMemory is Merge holding every event: the reference that
// streamMerge follows, and what merges the layouts it does not stream.
func mergeInMemory(dirs []string, w io.Writer) (*MergeReport, error) {
	r, err := load(dirs, loadOptions{lines: true, multi: true})
	if err != nil {
		return nil, err
	}
	g := buildGraph(r)
	rep := &MergeReport{Run: r.header.Run, Files: len(r.files), Duplicates: r.duplicates,
		Matched: g.matched, Unmatched: g.unmatched}
	bw := bufio.NewWriterSize(w, 1<<20)
	line := writeHeader(bw, r)
	prefixes := srcPrefixes(r)
	var werr error
	st := g.order(func(x ref) {
		if werr != nil {
			return
		}
		e := g.ev(x)
		// Src is the encoder's last field, so appending it before the
		// closing brace is exactly what AppendJSON would write.
		line = append(line[:0], r.arena[e.off:e.off+int64(e.n)-1]...)
		line = append(line, prefixes[e.file]...)
		line = strconv.AppendInt(line, int64(e.line), 10)
		line = append(line, '"', '}', '\n')
		if _, err := bw.Write(line); err != nil {
			werr = err
		}
		rep.Events++
	})
	if werr == nil {
		werr = bw.Flush()
	}
	if werr != nil {
		return nil, fmt.Errorf("writing the merged trace: %w", werr)
	}
	rep.Repaired, rep.CyclesBroken = st.Repaired, st.Broken
	rep.Offsets, rep.HostOffsets = offsets(r, g)
	rep.Problems = problemStrings(r.problems)
	return rep, nil
}

// writeHeader writes the merged trace's first line, the run's header,
// and returns the line's buffer for reuse.
func writeHeader(bw *bufio.Writer, r *run) []byte {
	hdr := r.header
	hdr.Src = r.headerFile + ":1"
	line := append(trace.AppendJSON(nil, &hdr), '\n')
	bw.Write(line)
	return line
}

// srcPrefixes are, per file, the start of the "src" field merged lines
// end with.
func srcPrefixes(r *run) [][]byte {
	prefixes := make([][]byte, len(r.files))
	for i, f := range r.files {
		q, _ := json.Marshal(f + ":")
		prefixes[i] = append([]byte(`,"src":`), q[:len(q)-1]...)
	}
	return prefixes
}

// offsets estimates clock offsets per node and per host from the wall
// clocks of matched send/receive pairs.
func offsets(r *run, g *graph) (nodes, hosts []Offset) {
	pairs := newClockPairs()
	for p, pr := range r.procs {
		for i := range pr.evs {
			if s := g.pred[p][i]; s != noRef {
				pairs.add(r, g.ev(s), &pr.evs[i])
			}
		}
	}
	return pairs.estimate(r)
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
