package studio_test

import (
	"fmt"
	"testing"
	"time"

	"manetlab/trace/htmlreport/chromiumtest"
)

// TestMapLabelsNeverOverlap drives the studio on the quickstart (20 nodes,
// some close together), bully (its elections 2→5 and 3→5 in flight
// together) and the 8-node ring, and checks in Chromium, at several
// steps, that no label of the map overlaps another label or a node, or
// is cut by the map's edge; and that the counts against theory are on the
// first screen at 1366×768 (issue 35).
func TestMapLabelsNeverOverlap(t *testing.T) {
	chromiumtest.ForTest(t)
	for _, c := range []struct {
		config string
		sets   []string
		theory bool
		msgs   int // message labels at once, at least
	}{
		{"../configs/quickstart.yaml", nil, false, 0},
		// ideal: every message in flight at once (the DCF medium has
		// one frame on the air at a time).
		{"../configs/bully.yaml", []string{"radio.mac=ideal"}, true, 2},
		{"../configs/ring-chang-roberts.yaml", []string{"radio.mac=ideal"}, true, 2},
	} {
		t.Run(c.config, func(t *testing.T) {
			_, url := serve(t, c.config, c.sets...)
			p := chromiumtest.Open(t, url+"/?token="+token(url), 1366, 768)
			p.WaitFor(`document.body.dataset.ready === "1"`, 30*time.Second)
			// North up, as on the report's map: the node furthest north
			// (largest y) is drawn highest.
			var north bool
			p.Eval(`(() => { const ns = S.nodes.slice().sort((a, b) => b.y - a.y);
				const cy = (id) => +document.querySelector('#map .node[data-id="' + id + '"] circle').getAttribute("cy");
				return ns[0].y === ns[ns.length - 1].y || cy(ns[0].id) < cy(ns[ns.length - 1].id); })()`, &north)
			if !north {
				t.Fatal("the map is not drawn north up")
			}
			labels := 0
			// Then on, through the API, to the first step with as many
			// messages in flight from their origin to their destination
			// as asked (bully: elections 2→5 and 3→5).
			check := func() {
				l := p.MapLabels(t, "#map")
				if len(l.Bad) > 0 || l.Labels < l.Nodes {
					t.Fatalf("step %s: %d labels, %d nodes: %v", text(p, "document.body.dataset.step"), l.Labels, l.Nodes, l.Bad)
				}
				labels = max(labels, l.Labels-l.Nodes)
			}
			defer func() {
				for i := 0; i < 2000 && c.msgs > 0 && labels < c.msgs; i++ {
					s := post(t, url, "/api/step", nil)
					n := 0
					for _, q := range s.Pending {
						if q.Type == "deliver" && q.Final != 0 && q.Class == "protocol" {
							n++
						}
					}
					if n >= c.msgs {
						p.Eval(`api("/api/state"); 0`, nil)
						p.WaitFor(fmt.Sprintf(`+document.body.dataset.step === %d`, s.Step), 10*time.Second)
						check()
					}
				}
				if labels < c.msgs {
					t.Fatalf("at most %d message labels at once, want %d", labels, c.msgs)
				}
			}()
			for k := 0; k < 12; k++ {
				if k > 0 {
					press(t, p, " ")
				}
				check()
			}
			if c.theory {
				var bottom float64
				p.Eval(`document.getElementById("theory").getBoundingClientRect().bottom`, &bottom)
				if bottom <= 0 || bottom > 768 {
					t.Fatalf("the counts against theory end at %g px, below the first screen of 768", bottom)
				}
			}
		})
	}
}
