package bully

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

func TestBadParamsAreRefusedWithTheFieldName(t *testing.T) {
	members := ids(8)
	cases := []struct {
		forms  []string
		params protocol.Params
		want   string
	}{
		{forms, protocol.Params{"intiators": "all"}, "protocol.params.intiators: unknown parameter (known: check, detectors, initiators, leader-timeout, retries, rto, start, timeout)"},
		{forms, protocol.Params{"initiators": []any{1, 42}}, "protocol.params.initiators: node 42 is not a member (members: 1-8)"},
		{forms, protocol.Params{"initiators": "some"}, `protocol.params.initiators: "some" is not all, one or a list of node IDs`},
		{forms, protocol.Params{"initiators": []any{}}, "protocol.params.initiators: an empty list is not all, one or a list of node IDs (at least one)"},
		{forms, protocol.Params{"detectors": []any{3, 3}}, "protocol.params.detectors: node 3 is not listed once"},
		{forms, protocol.Params{"detectors": 2.5}, "protocol.params.detectors: 2.5 is not all, one or a list of node IDs"},
		{forms, protocol.Params{"start": "soon"}, "protocol.params.start: soon is not a non-negative duration"},
		{forms, protocol.Params{"check": "-1s"}, "protocol.params.check: -1s is not a non-negative duration"},
		{forms, protocol.Params{"retries": -1}, "protocol.params.retries: -1 is not a non-negative integer"},
		{forms, protocol.Params{"rto": "0s"}, `protocol.params.rto: 0s is not a positive duration`},
		// A timeout shorter than a retransmission: the protocol cannot see
		// radio.delay, but rto bounds a round trip from above.
		{forms, protocol.Params{"timeout": "300ms"}, "protocol.params.timeout: 300ms is not at least 2·rto = 400ms"},
		{forms, protocol.Params{"rto": "50ms", "timeout": "90ms"}, "protocol.params.timeout: 90ms is not at least 2·rto = 100ms"},
		{forms, protocol.Params{"timeout": "2s", "leader-timeout": "2s"}, "protocol.params.leader-timeout: 2s is not longer than timeout (2s)"},
		{forms, protocol.Params{"leader-timeout": "never"}, "protocol.params.leader-timeout: never is not a non-negative duration"},
	}
	for _, c := range cases {
		for _, form := range c.forms {
			spec, _ := protocol.Lookup(form)
			_, err := spec.New(protocol.Config{ID: 1, Members: members, Params: c.params, Env: protonet.NewEnv(t, 1)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %v: New error %v, want %q", form, c.params, err, c.want)
			}
			if _, err := spec.Complexity.Bound(members, c.params, 1); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %v: Bound error %v, want %q", form, c.params, err, c.want)
			}
		}
	}
	spec, _ := protocol.Lookup(Textbook)
	if _, err := spec.New(protocol.Config{ID: 9, Members: members, Env: protonet.NewEnv(t, 9)}); err == nil || !strings.Contains(err.Error(), "node 9 is not a member (members: 1-8)") {
		t.Errorf("a node outside the members: %v", err)
	}
}

func TestDefaultsScaleWithRTO(t *testing.T) {
	for _, c := range []struct {
		form                   string
		params                 protocol.Params
		timeout, leader, check time.Duration
	}{
		{Textbook, nil, 2 * time.Second, 6 * time.Second, 2 * time.Second},
		{GarciaMolina, nil, 2 * time.Second, 6 * time.Second, 2 * time.Second},
		{Textbook, protocol.Params{"rto": "50ms"}, 500 * time.Millisecond, 1500 * time.Millisecond, 2 * time.Second},
		{GarciaMolina, protocol.Params{"rto": "50ms", "check": "1s"}, 500 * time.Millisecond, 2500 * time.Millisecond, time.Second},
		{GarciaMolina, protocol.Params{"check": 0}, 2 * time.Second, 6 * time.Second, 0},
		{Textbook, protocol.Params{"timeout": "2s", "leader-timeout": "9s", "check": "500ms", "initiators": "one", "detectors": []any{2, 4}}, 2 * time.Second, 9 * time.Second, 500 * time.Millisecond},
	} {
		s, err := parse(c.form, c.params, ids(5))
		if err != nil {
			t.Fatal(err)
		}
		if s.timeout != c.timeout || s.leader != c.leader || s.check != c.check || s.start != DefaultStart {
			t.Errorf("%s %v: timeout %v, leader-timeout %v, check %v, start %v", c.form, c.params, s.timeout, s.leader, s.check, s.start)
		}
	}
	s, _ := parse(Textbook, protocol.Params{"initiators": "one", "detectors": []any{4, 2}}, ids(5))
	if len(s.initiators) != 1 || s.initiators[0] != 1 || len(s.detectors) != 2 || s.detectors[0] != 2 || !s.detector(4) || s.detector(3) {
		t.Errorf("initiators %v, detectors %v", s.initiators, s.detectors)
	}
	if s.rel.GiveUp() != 12600*time.Millisecond {
		t.Errorf("GiveUp %v, want 12.6s", s.rel.GiveUp())
	}
}

// TestDefaultsScaleWithRouteDelay: under AODV (protocol.Config.RouteDelay
// 1.92 s at its defaults) the default timeout is 10·rto plus the route
// delay, the leader-timeout follows it, the channel gives up the route
// delay later, and the defaults draw no warning; a timeout given below the
// route delay plus rto does.
func TestDefaultsScaleWithRouteDelay(t *testing.T) {
	const route = 1920 * time.Millisecond
	ms := time.Millisecond
	for _, c := range []struct {
		form            string
		timeout, leader time.Duration
	}{{Textbook, 3920 * ms, 11760 * ms}, {GarciaMolina, 3920 * ms, 7920 * ms}} {
		s, err := parseWith(c.form, nil, ids(5), 2*ms, route)
		if err != nil {
			t.Fatalf("%s: %v", c.form, err)
		}
		if s.timeout != c.timeout || s.leader != c.leader || s.rel.GiveUp() != 14520*ms || s.rel.FirstWait() != 2120*ms {
			t.Errorf("%s: timeout %v, leader-timeout %v, GiveUp %v, FirstWait %v", c.form, s.timeout, s.leader, s.rel.GiveUp(), s.rel.FirstWait())
		}
	}
	_, err := parseWith(Textbook, protocol.Params{"timeout": "2s"}, ids(5), 2*ms, route)
	if w, ok := protocol.Warned(err); !ok || w == nil || !strings.Contains(w.Text, "at least 2.12s") {
		t.Errorf("timeout 2s under AODV: %v, want a warning asking for 2.12s", err)
	}
}

// TestTimeoutsShorterThanARoundTripWarn: legal timeouts shorter than a
// one-hop round trip at the scenario's hop delay come back as a
// protocol.Warning with the figures, beside a process that runs.
func TestTimeoutsShorterThanARoundTripWarn(t *testing.T) {
	members := ids(5)
	for _, form := range forms {
		spec, err := protocol.Lookup(form)
		if err != nil {
			t.Fatal(err)
		}
		cfg := protocol.Config{ID: 2, Members: members, Params: protocol.Params{"rto": "1ms", "timeout": "3ms"}, HopDelay: 2 * time.Millisecond, Env: protonet.NewEnv(t, 2)}
		p, err := spec.New(cfg)
		w, ok := protocol.Warned(err)
		if !ok || w == nil || p == nil {
			t.Fatalf("%s: process %v, error %v; want a process and a warning", form, p, err)
		}
		for _, fig := range []string{"rto 1ms", "timeout 3ms", "takes 4ms at a hop time of 2ms"} {
			if !strings.Contains(w.Text, fig) {
				t.Errorf("%s: warning %q lacks %q", form, w.Text, fig)
			}
		}
		cfg.HopDelay = time.Millisecond // a round trip of 2ms: rto 1ms is still short
		if _, err := spec.New(cfg); err == nil {
			t.Errorf("%s: rto 1ms against a 2ms round trip passed silently", form)
		}
		cfg.Params = protocol.Params{"rto": "10ms"}
		if _, err := spec.New(cfg); err != nil {
			t.Errorf("%s: rto 10ms against a 2ms round trip: %v", form, err)
		}
	}
}
