package studio_test

import (
	"path/filepath"
	"strings"
	"testing"

	_ "manetlab/adhoc"
	_ "manetlab/baseline"
	_ "manetlab/firewire"
	_ "manetlab/invitation"
	_ "manetlab/mutex"
	_ "manetlab/traffic"
)

// TestEveryConfigSurvivesASession plays a short session on every small
// example config (the DCF medium and AODV included): steps, a delivery
// out of order, a drop, a crash and a recovery, a cut, a rewind; every
// action must be taken or refused with a reason, never fail the server.
func TestEveryConfigSurvivesASession(t *testing.T) {
	configs, _ := filepath.Glob("../configs/*.yaml")
	type run struct {
		path string
		sets []string
	}
	runs := []run{{"../configs/ring-chang-roberts.yaml", []string{"radio.mac=dcf"}}}
	for _, path := range configs {
		if !strings.Contains(path, "static-1") && !strings.Contains(path, "bench") && len(loadScenario(t, path).MemberIDs()) <= 40 {
			runs = append(runs, run{path: path})
		}
	}
	for _, r := range runs {
		path := r.path
		t.Run(filepath.Base(path)+strings.Join(r.sets, ","), func(t *testing.T) {
			_, url := serve(t, path, r.sets...)
			st := post(t, url, "/api/step", map[string]any{"n": 150, "classes": []string{"protocol", "transport", "network"}})
			if st.Error != "" || st.Step == 0 {
				t.Fatalf("step: %q at step %d", st.Error, st.Step)
			}
			for _, p := range st.Pending {
				if p.Type == "deliver" && len(r.sets) > 0 && (p.Offered || !strings.Contains(p.Why, "DCF")) {
					t.Fatalf("a frame on the DCF medium offered: %+v", p)
				}
			}
			for i, p := range st.Pending {
				if i > 0 && p.Offered {
					st = post(t, url, "/api/take", map[string]any{"seq": p.Seq})
					break
				}
			}
			for _, p := range st.Pending {
				if p.Droppable {
					st = post(t, url, "/api/drop", map[string]any{"seq": p.Seq})
					break
				}
			}
			id := st.Nodes[0].ID
			post(t, url, "/api/crash", map[string]any{"node": id})
			post(t, url, "/api/step", map[string]any{"n": 20})
			post(t, url, "/api/recover", map[string]any{"node": id})
			if n := st.Nodes[0]; len(n.Neighbors) > 0 {
				post(t, url, "/api/cut", map[string]any{"node": n.ID, "peer": n.Neighbors[0]})
			}
			end := post(t, url, "/api/note", nil)
			back := post(t, url, "/api/rewind", map[string]any{"step": end.Step / 2})
			if back.Error != "" || back.Step != end.Step/2 {
				t.Fatalf("rewind to %d: at %d, %q", end.Step/2, back.Step, back.Error)
			}
		})
	}
}
