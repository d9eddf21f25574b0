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
