package htmlreport

import (
	"fmt"
	"strings"
	"testing"

	_ "manetlab/bully" // registers bully/textbook
	"manetlab/scenario"
	"manetlab/sim"
)

// TestBullyElectionsNamed: bully's election-start notes carry no epoch,
// yet the page names its elections by initiator and start (issue 22) in
// seed 002's example: the first, by node 1 at 1 s, won by 7 (epoch 7.1);
// the one node 4 holds when its check finds 7 crashed (at 10 s), won by 6
// (6.2); the one 7 holds when it recovers at 20 s, won by 7 at once (7.2).
func TestBullyElectionsNamed(t *testing.T) {
	s, err := scenario.Load("../../configs/bully.yaml", []string{"radio.mac=ideal"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	d, err := Build(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range d.Elections {
		end := "-"
		if e.End != nil {
			end = fmt.Sprintf("%.3f", *e.End)
		}
		got = append(got, fmt.Sprintf("%s by %d at %.3f to %s", e.Epoch, e.Initiator, e.Start, end))
	}
	t.Logf("elections: %q", got)
	if len(got) != 3 {
		t.Fatalf("elections %q, want three", got)
	}
	for i, w := range []string{"7.1 by 1 at 1.000 to ", "6.2 by 4 at 15.", "7.2 by 7 at 20.000"} {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("election %d is %q, want %q...", i+1, got[i], w)
		}
	}
}
