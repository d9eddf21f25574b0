package launch

import (
	"os"

	"manetlab/trace"
)

// faultLog writes the faults record (trace.FaultsFileName) of a run as
// the launcher applies them: one line per crash or recovery, with the
// time it really happened, in the format the hosts' launchers write, so
// that `run --collected` reads both alike. A write that fails is
// remembered, not retried: the run file still records the faults.
type faultLog struct {
	f    *os.File
	host string
	err  error
}

// openFaultLog creates the faults record in dir, empty; its records name
// host (a launcher of run --hosts is given its host's name), or this
// machine's name when host is empty.
func openFaultLog(dir, host string) (*faultLog, error) {
	f, err := trace.CreateFile(trace.FaultsFile(dir))
	if err != nil {
		return nil, err
	}
	if host == "" {
		var herr error
		if host, herr = os.Hostname(); herr != nil || host == "" {
			host = "localhost"
		}
	}
	return &faultLog{f: f, host: host}, nil
}

// record appends e (a crash, a recovery, a cut or a heal of the run
// file) to the record, and returns it as recorded.
func (l *faultLog) record(e trace.Event) trace.FaultRecord {
	r := trace.FaultRecord{Node: e.Node, Ev: e.Ev, T: e.T, Peer: e.Peer}
	if l == nil {
		return r
	}
	r.Host = l.host
	if l.err == nil {
		l.err = trace.AppendFaultRecord(l.f, r)
	}
	return r
}

// close closes the record and returns its first error.
func (l *faultLog) close() error {
	if l == nil {
		return nil
	}
	if err := l.f.Close(); l.err == nil {
		l.err = err
	}
	return l.err
}
