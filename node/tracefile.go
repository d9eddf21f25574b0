package node

import (
	"fmt"
	"io"
	"os"

	"manetlab/node/wire"
	"manetlab/trace"
)

// eventWriter is a node's trace file (a batchWriter): Write may hold a
// line until Flush or Close.
type eventWriter interface {
	Write(e *trace.Event) error
	Flush() error
	Close() error
}

// openTrace opens node n's trace. A file that already holds this run's
// header for this node is a restart after a crash: it is appended to, and
// the starts it records give the incarnation. Anything else is replaced.
func (h *Host) openTrace(n *hosted) error {
	path := trace.NodeFile(h.opt.Out, n.id)
	if old, err := trace.ReadHeader(path); err == nil && old.Run == h.opt.Run && old.Node == n.id {
		starts := 0
		if _, err := trace.ScanEvents(path, func(ev string) bool { return ev == trace.EvStart },
			func(*trace.Event, int) error { starts++; return nil }); err != nil {
			return fmt.Errorf("node %d: %w", n.id, err)
		}
		w, err := openAppend(path)
		if err != nil {
			return fmt.Errorf("node %d: %w", n.id, err)
		}
		n.out, n.inc, n.recovered = w, uint32(starts+1), true
		return nil
	}
	w, err := createBatch(path)
	if err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	hdr := trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: h.opt.Run, Driver: "node",
		Protocol: h.s.Protocol.Name, Node: n.id, Seed: h.s.Seed, ScenarioHash: h.scenarioHash, Host: h.opt.Host}
	err = w.Write(&hdr)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		w.Close()
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	n.out, n.inc = w, 1
	return nil
}

// openAppend opens path for appending. If the last line was cut short by
// a kill, a newline ends it first, so that the damage stays on that one
// line and the new events read cleanly.
func openAppend(path string) (*batchWriter, error) {
	f, err := trace.OpenNoFollow(path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err != nil && err != io.EOF {
			f.Close()
			return nil, fmt.Errorf("trace %s: %w", path, err)
		}
		if last[0] != '\n' {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				return nil, fmt.Errorf("trace %s: %w", path, err)
			}
		}
	}
	return newBatchWriter(f), nil
}

// emit stamps a copy of e with node n's times and writes it. stamp is the
// event's hybrid logical clock reading.
//
// The writers encode the line at once and keep nothing of the event, so
// one scratch event and clock reading per Host serve every line: e does
// not escape, and a received frame's line costs no allocation (issue 15).
func (h *Host) emit(n *hosted, e *trace.Event, stamp wire.HLC) {
	if n.traceErr != nil {
		return // the trace ended at its first failed write
	}
	h.line = *e
	h.lineHLC = trace.HLC{Wall: stamp.Wall, Logical: stamp.Logical}
	h.line.T = int64(h.now())
	h.line.Wall = wallNS()
	h.line.HLC = &h.lineHLC
	h.line.Node = n.id
	if err := n.out.Write(&h.line); err != nil {
		h.traceFailed(n, err)
	}
}

// TraceErrorPrefix opens the line a node process prints on its standard
// output when a trace cannot be written ("trace-error <id> <error>"): the
// launcher reads it, as it reads "ready", because the log directory is
// most likely on the same full disk.
const TraceErrorPrefix = "trace-error"

// traceFailed handles the first failed write of n's trace (a full disk,
// most often): the trace ends there, possibly with a cut line; the node
// says so on its log at once and through Options.TraceError, goes on
// running (its neighbours still need it), and Wait returns the error.
func (h *Host) traceFailed(n *hosted, err error) {
	n.traceErr = err
	h.fail(fmt.Errorf("node %d: %w", n.id, err))
	if h.opt.Log != nil {
		fmt.Fprintf(h.opt.Log, "node %d: cannot write its trace, which ends here: %v\n", n.id, err)
	}
	if h.opt.TraceError != nil {
		h.opt.TraceError(n.id, err)
	}
}

// emitLocal writes a local event, stamped by a clock tick.
func (h *Host) emitLocal(n *hosted, e *trace.Event) { h.emit(n, e, n.clock.Now()) }
