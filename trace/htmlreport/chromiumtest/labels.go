package chromiumtest

import (
	"encoding/json"
	"fmt"
	"testing"
)

// labelsJS measures, in the page, the labels of a map (the svg SEL's
// text.mv-label, internal/mapview) and its node circles (circle.mv-node),
// and lists every label that overlaps another label or a node or leaves
// the map: bounding boxes on the screen, as a reader sees them.
const labelsJS = `((SEL) => {
  const svg = document.querySelector(SEL), out = [];
  const box = svg.getBoundingClientRect();
  const shown = (e) => e.getAttribute("visibility") !== "hidden" && !e.closest("[visibility=hidden]");
  const ls = [...svg.querySelectorAll("text.mv-label")].filter(shown).map((t) => [t.textContent, t.getBoundingClientRect()]);
  const cs = [...svg.querySelectorAll("circle.mv-node")].filter(shown).map((c) => c.getBoundingClientRect());
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  ls.forEach(([s, r], i) => {
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) out.push(s + " cut by the map's edge");
    ls.forEach(([s2, r2], j) => { if (j > i && hit(r, r2)) out.push(s + " on " + s2); });
    cs.forEach((c) => { if (hit(r, c)) out.push(s + " on a node"); });
  });
  return JSON.stringify({labels: ls.length, nodes: cs.length, bad: out});
})(%q)`

// Labels is what MapLabels measured: the labels and nodes shown, and
// every label that overlaps another or a node, or is cut by the map's
// edge ("7 on 12", "election 2→5 cut by the map's edge").
type Labels struct {
	Labels, Nodes int
	Bad           []string
}

// MapLabels measures the labels of the map svg sel in the page.
func (p *Page) MapLabels(t testing.TB, sel string) Labels {
	t.Helper()
	var s string
	p.Eval(fmt.Sprintf(labelsJS, sel), &s)
	var l Labels
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		t.Fatal(err)
	}
	return l
}
