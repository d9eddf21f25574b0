package htmlreport

import (
	"fmt"
	"testing"
	"time"

	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/htmlreport/chromiumtest"
)

// TestMapLabelsNeverOverlapOnThePage: the report's map draws with the
// component the studio's uses (internal/mapview); on quickstart (nodes 1,
// 4, 13 and 18 close together), bully and the 8-node ring, at several
// frames, no node's label overlaps another label or a node or is cut by
// the map's edge, measured in Chromium (issue 35).
func TestMapLabelsNeverOverlapOnThePage(t *testing.T) {
	chromiumtest.ForTest(t)
	for _, config := range []string{"quickstart", "bully", "ring-chang-roberts"} {
		t.Run(config, func(t *testing.T) {
			s, err := scenario.Load("../../configs/"+config+".yaml", []string{"duration=25s"})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
				t.Fatal(err)
			}
			path, d := buildPage(t, dir, Options{})
			p := chromiumtest.Open(t, "file://"+path, 1366, 768)
			p.WaitFor(`document.body.dataset.ready === "1"`, 30*time.Second)
			for _, k := range []int{0, len(d.Frames) / 3, len(d.Frames) - 1} {
				p.Eval(fmt.Sprintf(`(() => { const s = document.getElementById("slider"); s.value = %d; s.dispatchEvent(new Event("input")); return 0; })()`, k), nil)
				l := p.MapLabels(t, "#map-svg")
				if len(l.Bad) > 0 || l.Labels != len(d.Nodes) || l.Nodes != len(d.Nodes) {
					t.Fatalf("frame %d: %d labels, %d nodes (want %d): %v", k, l.Labels, l.Nodes, len(d.Nodes), l.Bad)
				}
			}
		})
	}
}
