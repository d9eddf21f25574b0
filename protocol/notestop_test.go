package protocol

import "testing"

type stopper struct{ Process }

func (stopper) StopsAt(s Step) bool { return s.Timer == "start" }

func TestStopsAt(t *testing.T) {
	heartbeat := func(k string) bool { return k == "check" }
	for _, c := range []struct {
		s                   Step
		def, routine, owned bool
	}{
		{Step{Kind: "token"}, true, true, false},
		{Step{Kind: "check"}, true, false, false},
		{Step{Kind: "check", Sent: []string{"outdated"}}, true, true, false},
		{Step{Timer: "check", Sent: []string{"check"}}, true, false, false},
		{Step{Timer: "start", Sent: []string{"token"}}, true, true, true},
		{Step{Timer: "start"}, false, false, true},
	} {
		if got := StopsAt(nil, c.s); got != c.def {
			t.Errorf("default rule at %+v: %v", c.s, got)
		}
		if got := StopUnlessRoutine(c.s, heartbeat); got != c.routine {
			t.Errorf("routine checks at %+v: %v", c.s, got)
		}
		if got := StopsAt(stopper{}, c.s); got != c.owned {
			t.Errorf("a process's own rule at %+v: %v", c.s, got)
		}
	}
}
