package experiment

import (
	"sync"
	"syscall"
	"time"
)

// cpuMeter shares the process's CPU time among the runs in progress:
// at every start and end of a run, the CPU used since the last one is
// split equally among the runs that were in progress. With one worker a
// run's share is exactly the process's CPU time during it (its trace
// writer and the collector included); the shares add up to the sweep's.
type cpuMeter struct {
	mu     sync.Mutex
	last   time.Duration
	shares map[int]*time.Duration
}

func newCPUMeter() *cpuMeter { return &cpuMeter{last: processCPU(), shares: map[int]*time.Duration{}} }

// processCPU is the user and system time of the whole process (0 where
// getrusage fails).
func processCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// settle hands the CPU time since the last event to the runs in
// progress; the caller holds mu.
func (m *cpuMeter) settle() {
	now := processCPU()
	if n := len(m.shares); n > 0 {
		each := (now - m.last) / time.Duration(n)
		for _, d := range m.shares {
			*d += each
		}
	}
	m.last = now
}

func (m *cpuMeter) start(run int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settle()
	m.shares[run] = new(time.Duration)
}

// stop ends the run's account and returns its share.
func (m *cpuMeter) stop(run int) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settle()
	d := *m.shares[run]
	delete(m.shares, run)
	return d
}
