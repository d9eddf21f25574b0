package node

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/trace"
)

// fullDisk is a trace that fails every write as a full disk does.
type fullDisk struct{ writes int }

func (f *fullDisk) Write(*trace.Event) error {
	f.writes++
	return &pathError{syscall.ENOSPC}
}
func (f *fullDisk) Flush() error { return nil }
func (f *fullDisk) Close() error { return nil }

type pathError struct{ err error }

func (e *pathError) Error() string { return "trace node-1.jsonl: write: " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// TestTraceWriteFailureIsReported: the first failed write of a trace is
// logged at once, handed to Options.TraceError (the CLI's line for the
// launcher) and returned by Wait; later events are not attempted.
func TestTraceWriteFailureIsReported(t *testing.T) {
	var log strings.Builder
	var reported []protocol.NodeID
	h, err := newHost(Options{Scenario: parse(t, staticYAML), IDs: ids(2), Out: t.TempDir(), Run: "full", Log: &log,
		TraceError: func(id protocol.NodeID, err error) {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("reported %v, want ENOSPC", err)
			}
			reported = append(reported, id)
		}})
	if err != nil {
		t.Fatal(err)
	}
	full := &fullDisk{}
	h.nodes[0].out = full
	h.nodes[1].out = eventSink{}
	for range 3 {
		for _, n := range h.nodes {
			h.emit(n, &trace.Event{Ev: trace.EvStart}, wire.HLC{Wall: 1})
		}
	}
	if full.writes != 1 {
		t.Errorf("%d writes attempted after the failure, want the first only", full.writes)
	}
	if len(reported) != 1 || reported[0] != 1 {
		t.Errorf("reported %v, want node 1 once", reported)
	}
	if !strings.Contains(log.String(), "node 1: cannot write its trace") || !strings.Contains(log.String(), "no space left on device") {
		t.Errorf("log %q", log.String())
	}
	if !errors.Is(h.err, syscall.ENOSPC) || !strings.Contains(h.err.Error(), "node 1") {
		t.Errorf("Wait's error %v", h.err)
	}
}

type eventSink struct{}

func (eventSink) Write(*trace.Event) error { return nil }
func (eventSink) Flush() error             { return nil }
func (eventSink) Close() error             { return nil }
