package main

import (
	"strings"
	"testing"

	"manetlab/scenario"
)

// TestSimRefusesMoreNodesThanMemory: a million nodes in sim are refused
// before anything starts, with the figure and the limit, on a machine with
// 8 GiB available (run's process limit is tested in node/launch, with a
// made-up machine too).
func TestSimRefusesMoreNodesThanMemory(t *testing.T) {
	defer func(f func() scenario.Machine) { readMachine = f }(readMachine)
	readMachine = func() scenario.Machine { return scenario.Machine{MemAvailable: 8 << 30} }
	_, err := runCLI(t, "sim", writeRunScenario(t, 1_000_000, "1s", ""), "--out", t.TempDir(), "--quiet")
	if err == nil || !strings.Contains(err.Error(), "1000000 nodes need about") || !strings.Contains(err.Error(), "room for") {
		t.Errorf("sim with a million nodes: %v", err)
	}
}
