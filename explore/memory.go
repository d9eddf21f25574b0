package explore

import (
	"fmt"
	"runtime/metrics"

	"manetlab/scenario"
)

// MemoryShare is the share of the machine's available memory
// (/proc/meminfo's MemAvailable) a search may use when Options.Memory
// does not say: the seen states and bfs's queue grow with the states.
const MemoryShare = 0.5

// fallbackMemory is the bound when the available memory is unknown.
const fallbackMemory = 2 << 30

// memoryEvery is how many states pass between two readings of the
// memory in use.
const memoryEvery = 256

// memoryBound resolves Options.Memory: a positive value is the bound in
// bytes, 0 the default share of the available memory, negative none. It
// returns the bound (0: none) and how it was set (Result.Memory).
func memoryBound(opt Options) (uint64, string) {
	switch {
	case opt.Memory < 0:
		return 0, ""
	case opt.Memory > 0:
		return uint64(opt.Memory), fmt.Sprintf("memory bound %s (--memory)", mib(uint64(opt.Memory)))
	}
	avail := scenario.ReadMachine().MemAvailable
	if avail == 0 {
		return fallbackMemory, fmt.Sprintf("memory bound %s (the available memory is unknown; --memory changes it)", mib(fallbackMemory))
	}
	b := uint64(float64(avail) * MemoryShare)
	return b, fmt.Sprintf("memory bound %s (%.0f%% of the %s available; --memory changes it)", mib(b), MemoryShare*100, mib(avail))
}

func mib(b uint64) string { return fmt.Sprintf("%d MiB", b>>20) }

// memorySample reads the memory the process holds from the system:
// everything mapped for the Go runtime but what it released.
var memorySample = []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}

// memoryInUse is the Go runtime's memory not released to the system.
func memoryInUse() uint64 {
	metrics.Read(memorySample)
	total, released := memorySample[0].Value.Uint64(), memorySample[1].Value.Uint64()
	return total - min(released, total)
}
