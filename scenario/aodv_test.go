package scenario

import (
	"strings"
	"testing"
	"time"

	"manetlab/netstack"
)

// TestAODVPreset: routing.aodv.preset ns-3.37 sets ns-3's defaults, the
// fields the scenario gives win, the resolved scenario reads back the
// same, and bad values are named.
func TestAODVPreset(t *testing.T) {
	s, err := Parse([]byte("routing: {aodv: {preset: ns-3.37, jitter: 5ms}}\n"), "p.yaml", []string{"routing.aodv.allowed_hello_loss=3"})
	if err != nil {
		t.Fatal(err)
	}
	a := s.Routing.AODV
	if !a.GratuitousReply || a.Neighbors != netstack.NeighborsBoth || a.Jitter.D() != 5*time.Millisecond ||
		a.JitterStep.D() != time.Millisecond || a.AllowedHelloLoss != 3 || a.RREQRetries != 1 || a.MyRouteTimeout.D() != 11200*time.Millisecond {
		t.Fatalf("preset ns-3.37 with jitter 5ms, allowed_hello_loss 3: %+v", a)
	}
	y, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(y, "resolved.yaml", nil)
	if err != nil || back.Routing.AODV != a {
		t.Fatalf("read back: %+v, %v\n%s", back.Routing.AODV, err, y)
	}
	def, err := Parse(nil, "empty.yaml", nil)
	if err != nil || def.Routing.AODV != netstack.DefaultAODV() {
		t.Fatalf("no preset: %+v, %v", def.Routing.AODV, err)
	}
	dy, _ := def.YAML()
	for _, field := range []string{"preset", "jitter", "neighbors", "gratuitous_reply"} {
		if strings.Contains(string(dy), field+":") {
			t.Errorf("a scenario without the new fields resolves with %s:\n%s", field, dy)
		}
	}
	for _, c := range []struct{ y, want string }{
		{"routing: {aodv: {preset: ns-2}}\n", "routing.aodv.preset"},
		{"routing: {aodv: {neighbors: radar}}\n", "routing.aodv.neighbors"},
		{"routing: {aodv: {jitter: 1ms, jitter_step: 2ms}}\n", "routing.aodv.jitter_step"},
		{"routing: {aodv: {rreq_ratelimit: -2}}\n", "routing.aodv.rreq_ratelimit"},
		{"routing: {relay_jitter: -1ms}\n", "routing.relay_jitter"},
		{"mobility: {model: static, start: steady-state}\n", "mobility.start"},
	} {
		if _, err := Parse([]byte(c.y), "bad.yaml", nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one naming %s", c.y, err, c.want)
		}
	}
}
