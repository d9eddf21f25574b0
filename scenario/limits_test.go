package scenario

import (
	"strings"
	"testing"
)

// TestLimitsRefuse: each value past a limit is refused by an error that
// names the field, the figure and the limit.
func TestLimitsRefuse(t *testing.T) {
	rwp := "mobility: {model: random-waypoint, area: %s, speed: %s}\n"
	cases := []struct {
		name, yaml string
		want       []string // every one must appear in the error
	}{
		{"long name", "name: " + strings.Repeat("x", 300) + "\n", []string{"name:", "300 bytes", "at most 256"}},
		{"huge area", strings.Replace(strings.Replace(rwp, "%s", "[1e308, 1e308]", 1), "%s", "[1, 20]", 1),
			[]string{"mobility.area[0]", "1e+308 m", "at most 1e+07 m"}},
		{"huge static area", "mobility: {model: static, area: [500, 2e7]}\n", []string{"mobility.area[1]", "2e+07 m", "at most 1e+07"}},
		{"tiny speed", strings.Replace(strings.Replace(rwp, "%s", "[1000, 1000]", 1), "%s", "[1e-12, 1e-12]", 1),
			[]string{"mobility.speed", "minimum 1e-12 m/s", "1414", "4.61e+09 s"}},
		{"endless legs", "duration: 1h\nnodes: {count: 100}\n" + strings.Replace(strings.Replace(rwp, "%s", "[1, 1]", 1), "%s", "[1000, 1000]", 1),
			[]string{"mobility:", "legs", "100 nodes", "at most 5000000"}},
		{"hello 1ns", "radio: {hello: {period: 1ns}}\n", []string{"radio.hello.period", "1ns", "below 2ms", "radio.delay 2ms"}},
		{"hello below delay", "radio: {delay: 50ms, hello: {period: 20ms}}\n", []string{"radio.hello.period", "20ms", "below 50ms"}},
		{"hello below 1ms", "radio: {delay: 100us, hello: {period: 500us}}\n", []string{"radio.hello.period", "500µs", "below 1ms"}},
		{"file too large", "name: " + strings.Repeat("y", MaxFileBytes) + "\n", []string{"bytes, at most 16777216"}},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(tc.yaml), "limits.yaml", nil)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, w)
			}
		}
	}
	// Just inside every limit is accepted.
	for _, y := range []string{
		"name: " + strings.Repeat("x", 256) + "\n",
		"mobility: {model: static, area: [1e7, 1e7]}\n",
		"radio: {delay: 2ms, hello: {period: 2ms}}\n",
		"duration: 1h\nnodes: {count: 10}\nmobility: {model: random-waypoint, area: [1000, 1000], speed: [1e-3, 20], pause: 1s}\n",
	} {
		if _, err := Parse([]byte(y), "limits.yaml", nil); err != nil {
			t.Errorf("%.60q: %v", y, err)
		}
	}
}

func TestCheckProcesses(t *testing.T) {
	cases := []struct {
		n    int
		m    Machine
		want []string
	}{
		{5000, Machine{MaxProcs: 4096, PidMax: 1 << 22, MemAvailable: 1 << 40}, []string{"processes: 5000 to start, at most 4096", "ulimit -u"}},
		{5000, Machine{PidMax: 4000, MemAvailable: 1 << 40}, []string{"at most 4000", "pid_max"}},
		{1000, Machine{MaxProcs: 1 << 20, MemAvailable: 4 << 30}, []string{"at most 372", "4096 MiB", "11 MiB per process"}},
	}
	for _, tc := range cases {
		err := CheckProcesses(tc.n, NodeProcessBytes, tc.m)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%d processes on %+v: %v, want %q", tc.n, tc.m, err, w)
			}
		}
	}
	if err := CheckProcesses(100, NodeProcessBytes, Machine{MaxProcs: 4096, PidMax: 1 << 22, MemAvailable: 4 << 30}); err != nil {
		t.Errorf("100 processes: %v", err)
	}
	if m := ReadMachine(); m.MemAvailable == 0 {
		t.Logf("no MemAvailable on this machine: %+v", m)
	}
}
