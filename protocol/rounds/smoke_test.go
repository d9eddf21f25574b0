package rounds_test

import (
	"fmt"
	"strings"
	"testing"

	"manetlab/internal/simtest"
)

func TestSmoke(t *testing.T) {
	for _, s := range []string{"simple", "alpha", "beta", "abd", "none"} {
		for _, g := range []string{"ring", "radio"} {
			y := fmt.Sprintf("name: smoke\nseed: 1\nduration: 60s\nnodes: {count: 6, values: id, placement: ring}\nradio: {range: 250}\nmobility: {model: static}\nprotocol: {name: test/flood-%s, params: {synchronizer: %s, rounds: 5, d: 50ms}}\n", g, s)
			_, sum := simtest.RunYAML(t, "smoke", y)
			t.Logf("%s %s: %s %v", s, g, sum.Verdict, sum.Messages.ByKind)
		}
	}
}

func TestSmokeJSON(t *testing.T) {
	for _, s := range []string{"simple", "alpha", "beta", "abd", "none"} {
		y := fmt.Sprintf("name: smoke\nseed: 1\nduration: 60s\nnodes: {count: 6, values: id, placement: ring}\nradio: {range: 250}\nmobility: {model: static}\nprotocol: {name: test/flood-radio, params: {synchronizer: %s, rounds: 5, d: 50ms}}\n", s)
		_, sum := simtest.RunYAML(t, "smoke", y)
		var b strings.Builder
		sum.Complexity.WriteText(&b)
		t.Logf("%s: %s %s\n%s", s, sum.Verdict, sum.Reason, b.String())
	}
}
