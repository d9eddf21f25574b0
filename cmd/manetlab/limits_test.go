package main

import (
	"strings"
	"testing"

	"manetlab/scenario"
)

// TestSimRefusesMoreNodesThanMemory: a million nodes in sim are refused
// before anything starts, with the figure and the limit (run's process
// limit is tested in node/launch, with a made-up machine).
func TestSimRefusesMoreNodesThanMemory(t *testing.T) {
	m := scenario.ReadMachine()
	if m.MemAvailable == 0 || m.MemAvailable/scenario.SimBytesPerNode >= 1_000_000 {
		t.Skipf("this machine could hold a million simulated nodes (%d MiB available)", m.MemAvailable>>20)
	}
	_, err := runCLI(t, "sim", writeRunScenario(t, 1_000_000, "1s", ""), "--out", t.TempDir(), "--quiet")
	if err == nil || !strings.Contains(err.Error(), "1000000 nodes need about") || !strings.Contains(err.Error(), "room for") {
		t.Errorf("sim with a million nodes: %v", err)
	}
}
