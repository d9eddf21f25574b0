package analysis

import (
	"slices"

	"manetlab/protocol"
)

// Offset is the estimated wall-clock offset of one node (or host) against
// a reference: its clock reads Offset nanoseconds ahead of the
// reference's. The true offset lies within ±Uncertainty if frames take no
// negative time.
type Offset struct {
	Node      protocol.NodeID `json:"node,omitempty"`
	Host      string          `json:"host,omitempty"`
	Reference string          `json:"reference"`
	// Known is false when no chain of frames in both directions links
	// this clock to any other: then nothing can be estimated.
	Known       bool  `json:"known"`
	Offset      int64 `json:"offset_ns"`
	Uncertainty int64 `json:"uncertainty_ns"`
	// Pairs is how many send/receive pairs touched this clock.
	Pairs int `json:"pairs"`
}

// delays collects, for each ordered pair of clocks, the least apparent
// one-way delay (receiver's wall minus sender's wall).
type delays struct {
	min   map[[2]string]int64
	pairs map[string]int
}

func newDelays() *delays {
	return &delays{min: map[[2]string]int64{}, pairs: map[string]int{}}
}

func (d *delays) add(from, to string, delay int64) {
	if from == to {
		return // one clock: nothing to learn
	}
	k := [2]string{from, to}
	if v, ok := d.min[k]; !ok || delay < v {
		d.min[k] = delay
	}
	d.pairs[from]++
	d.pairs[to]++
}

// estimate turns the minimum delays into offsets: for clocks a and b
// linked both ways, b - a = (min_ab - min_ba)/2 with uncertainty
// (min_ab + min_ba)/2. Each group of linked clocks is solved by a
// breadth-first walk from its smallest name, offsets and uncertainties
// adding along the path. names lists every clock, in report order.
func (d *delays) estimate(names []string) map[string]Offset {
	adj := map[string][]string{}
	for k := range d.min {
		a, b := k[0], k[1]
		if _, back := d.min[[2]string{b, a}]; back {
			adj[a] = append(adj[a], b)
		}
	}
	for _, ns := range adj {
		slices.Sort(ns)
	}
	out := map[string]Offset{}
	for _, root := range names {
		if _, done := out[root]; done {
			continue
		}
		out[root] = Offset{Reference: root, Known: len(adj[root]) > 0, Pairs: d.pairs[root]}
		queue := []string{root}
		for len(queue) > 0 {
			a := queue[0]
			queue = queue[1:]
			for _, b := range adj[a] {
				if _, done := out[b]; done {
					continue
				}
				ab, ba := d.min[[2]string{a, b}], d.min[[2]string{b, a}]
				oa := out[a]
				out[b] = Offset{Reference: root, Known: true, Offset: oa.Offset + (ab-ba)/2,
					Uncertainty: oa.Uncertainty + (ab+ba)/2, Pairs: d.pairs[b]}
				queue = append(queue, b)
			}
		}
	}
	return out
}
