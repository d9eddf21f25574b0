package hosts

import (
	"time"

	"manetlab/node/launch"
)

// HostResult is what a host's launcher (`manetlab launch`) reports at
// its end, as one line "result JSON" on its standard output.
type HostResult struct {
	Host        string             `json:"host"`
	Elapsed     time.Duration      `json:"elapsed_ns"`
	Interrupted bool               `json:"interrupted,omitempty"`
	Failures    []string           `json:"failures,omitempty"`
	Unapplied   string             `json:"unapplied,omitempty"`
	Deadlines   launch.Deadlines   `json:"deadlines"`
	TraceErrors []string           `json:"trace_errors,omitempty"`
	Procs       []launch.ProcStats `json:"procs"`
	Error       string             `json:"error,omitempty"`
}

// Line prefixes of a host launcher's standard output: "ready JSON"
// (launch.Readiness) once every process there is ready, "result JSON" at
// the end.
const (
	ReadyPrefix  = "ready "
	ResultPrefix = "result "
)

// Files a host's launcher writes in its run directory: its PID at its
// start (for home to tell a lost connection from a launcher gone), and
// its result at its end (for home to read when the session that would
// have carried it was lost).
const (
	PIDFile    = "launch.pid"
	ResultFile = "launch-result.json"
)
