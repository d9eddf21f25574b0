package node

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// LateStartPrefix begins the info event a node writes when the run's
// start reached its process after the start had passed
// (Options.StartLater): the process was ready, but the machine did not
// run it in time (trace/analysis names such a node late with these
// figures rather than blaming its clock).
const LateStartPrefix = "late-start: "

// LateStartNote is that event's text for a start that came late by d:
// with the machine's load where it can be read (Linux's /proc/loadavg:
// the load average over a minute, and the threads runnable now).
func LateStartNote(d time.Duration) string {
	return fmt.Sprintf("%sthe start reached this process %s after the run's start%s", LateStartPrefix, d.Round(time.Millisecond), MachineLoad())
}

// MachineLoad is "; load average L, N runnable" from /proc/loadavg, or
// "" where it cannot be read.
func MachineLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return ""
	}
	run, _, _ := strings.Cut(f[3], "/")
	return fmt.Sprintf("; load average %s, %s runnable", f[0], run)
}
