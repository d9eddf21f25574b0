package netstack

import (
	"os/exec"
	"strings"
	"testing"
)

// families are the protocol families: they implement the contract and
// import nothing beneath it.
var families = []string{"adhoc", "baseline", "bully", "firewire", "invitation", "mutex", "ring", "synchronous", "traffic"}

var worldModel = []string{"radio", "mobility", "workload", "scenario"}

// allowed says whether package pkg (without the module prefix) may import
// dep, per docs/architecture.md's import rules.
func allowed(pkg, dep string) bool {
	under := func(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	in := func(p string, roots []string) bool {
		for _, r := range roots {
			if under(p, r) {
				return true
			}
		}
		return false
	}
	isTestHelper := strings.HasSuffix(dep, "test") || strings.HasSuffix(dep, "/protonet") || strings.Contains(dep, "/protocoltest/")
	switch {
	case isTestHelper:
		return false // only tests import them; test imports are not checked here
	case under(pkg, "internal"):
		return false
	case under(pkg, "protocol"):
		return under(dep, "protocol")
	case in(pkg, families):
		return under(dep, "protocol") || in(dep, families)
	case pkg == "netstack":
		return dep == "protocol" || dep == "radio" || dep == "trace" || under(dep, "internal")
	case in(pkg, worldModel):
		return under(dep, "internal") || under(dep, "protocol") || in(dep, worldModel) || pkg == "scenario" && dep == "netstack"
	case under(pkg, "trace"):
		return under(dep, "internal") || under(dep, "protocol") || under(dep, "trace") || in(dep, worldModel)
	case pkg == "sim":
		return !under(dep, "node") && !in(dep, families) && dep != "experiment" && !under(dep, "cmd")
	case under(pkg, "node"):
		return dep != "sim" && !under(dep, "sim/") && !in(dep, families) && dep != "experiment" && !under(dep, "cmd")
	case pkg == "experiment" || pkg == "studio":
		return dep == "sim" || in(dep, worldModel) || under(dep, "trace") || under(dep, "protocol") || under(dep, "internal")
	}
	return true // cmd, testbed and the test helpers themselves
}

// TestLayers checks every package's imports (tests aside) against the
// layers of docs/architecture.md.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "manetlab/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	const mod = "manetlab/"
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			checked++
			if !allowed(pkg, dep) {
				t.Errorf("%s imports %s, which docs/architecture.md does not allow", pkg, dep)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d imports checked: go list gave\n%s", checked, out)
	}
}

// TestLayerRules: the rules refuse what the architecture forbids.
func TestLayerRules(t *testing.T) {
	for _, c := range []struct {
		pkg, dep string
		ok       bool
	}{
		{"netstack", "sim", false}, {"netstack", "scenario", false}, {"netstack", "radio", true},
		{"bully", "radio", false}, {"bully", "protocol/reliable", true}, {"mutex", "bully", true},
		{"trace/analysis", "sim", false}, {"trace/analysis", "netstack", false}, {"trace/analysis", "scenario", true},
		{"sim", "node", false}, {"node", "sim", false}, {"sim", "netstack", true}, {"node", "netstack", true},
		{"internal/geo", "protocol", false}, {"radio", "trace", false}, {"sim", "sim/simtest", false},
	} {
		if got := allowed(c.pkg, c.dep); got != c.ok {
			t.Errorf("allowed(%s, %s) = %v, want %v", c.pkg, c.dep, got, c.ok)
		}
	}
}
