package units

import (
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestDurationFromYAML(t *testing.T) {
	cases := map[string]time.Duration{"30s": 30 * time.Second, "250ms": 250 * time.Millisecond, "2m": 2 * time.Minute, "1.5": 1500 * time.Millisecond, "0": 0}
	for in, want := range cases {
		var d Duration
		if err := yaml.Unmarshal([]byte(in), &d); err != nil || d.D() != want {
			t.Errorf("%q: got %v, %v; want %v", in, d, err, want)
		}
	}
	for _, bad := range []string{"soon", "[1]", "NaN", "1e400"} {
		var d Duration
		if err := yaml.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%q: accepted as %v", bad, d)
		}
	}
	out, _ := yaml.Marshal(Duration(90 * time.Second))
	if string(out) != "1m30s\n" {
		t.Errorf("marshal: %q", out)
	}
}
