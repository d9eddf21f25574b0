package htmlreport

import (
	"path/filepath"
	"regexp"
	"testing"

	"manetlab/mutex/mutextest"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/htmlreport/chromiumtest"
)

// mutexRun simulates the test coordinator protocol (node 1 coordinates):
// node 2 holds the section from about 1 s to 2 s while node 3 waits from
// 1.1 s; node 3 holds it until 3 s; node 2 asks again at 4 s and holds it
// to the end of the run at 5 s.
func mutexRun(t *testing.T) string {
	t.Helper()
	s, err := scenario.Parse([]byte(mutextest.Scenario(`  - {at: 1s, node: 2, command: request}
  - {at: 1.1s, node: 3, command: request}
  - {at: 2s, node: 2, command: release}
  - {at: 3s, node: 3, command: release}
  - {at: 4s, node: 2, command: request}
`)), "mx.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSectionLanes(t *testing.T) {
	path, d := buildPage(t, mutexRun(t), Options{})
	s := d.Sections
	if s == nil || len(s.Held) != 3 {
		t.Fatalf("sections %+v", s)
	}
	// Node 2 (index 1): two stays, the second open until the end; one
	// wait of its own (the first request is granted at once, within a
	// few milliseconds).
	if h := s.Held[1]; len(h) != 2 || h[0][0] < 1 || h[0][1] != 2 || h[1][1] != d.End {
		t.Errorf("node 2 held %v (end %v)", h, d.End)
	}
	if w := s.Waits[2]; len(w) != 1 || w[0][0] != 1.1 || w[0][1] < 2 || w[0][1] > 2.1 {
		t.Errorf("node 3 waited %v, want from 1.1 s to just after 2 s", w)
	}
	if len(s.Held[0]) != 0 || len(s.Requests[0]) != 0 || len(s.Requests[1]) != 2 {
		t.Errorf("requests %v, held by the coordinator %v", s.Requests, s.Held[0])
	}
	if d.Seq.Why != "the 2 s from the first cs-request" {
		t.Errorf("sequence window: %s", d.Seq.Why)
	}
	if d.Metrics == nil || d.Metrics.Mutex == nil || d.Metrics.Mutex.Entries != 3 {
		t.Errorf("page metrics lack the sections: %+v", d.Metrics)
	}

	// An election has no lanes.
	if _, e := buildPage(t, runDir(t), Options{}); e.Sections != nil {
		t.Errorf("lanes for an election: %+v", e.Sections)
	}

	dom := chromiumtest.ReadyDOM(t, path)
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(dom, -1)) }
	if n := count(`<section id="cs-section"[^>]*hidden`); n != 0 {
		t.Error("the critical section lanes are hidden")
	}
	if n := count(`<g class="cs-row" data-node="\d+"`); n != 2 {
		t.Errorf("%d lanes, want 2 (nodes 2 and 3)", n)
	}
	if n := count(`<rect class="cs-held"`); n != 3 {
		t.Errorf("%d section bars, want 3", n)
	}
	if n := count(`<rect class="cs-wait"`); n != 3 {
		t.Errorf("%d waiting bars, want 3", n)
	}
	if n := count(`<line class="cs-request"`); n != 3 {
		t.Errorf("%d request ticks, want 3", n)
	}
	if n := count(`<table class="figs" id="mutex-table"`); n != 1 {
		t.Errorf("%d tables of the mutual exclusion figures", n)
	}
}
