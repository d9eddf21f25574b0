package node

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"manetlab/trace"
	"manetlab/trace/collect"
)

// SinkDrain bounds how long a stopping node waits for the trace collector
// (Options.TraceSink) to confirm every trace; the local files are
// complete either way.
const SinkDrain = 5 * time.Second

// sinkWriter is a trace writer whose lines are also streamed to a
// collector: the local file is written first, then the streamer, which
// reads that file, is told it grew (on every Flush: a line Write keeps in
// the buffer is not in the file yet).
type sinkWriter struct {
	eventWriter
	s    *collect.Streamer
	sink *sinks
}

func (w *sinkWriter) Flush() error {
	err := w.eventWriter.Flush()
	w.s.Notify()
	return err
}

func (w *sinkWriter) Close() error {
	err := w.eventWriter.Close()
	if serr := w.s.Finish(w.sink.deadline()); serr != nil && w.sink.log != nil {
		fmt.Fprintf(w.sink.log, "node: %v\n", serr)
	}
	return err
}

// sinks shares one drain deadline among a Host's streamers, so that
// stopping waits SinkDrain at most in all.
type sinks struct {
	once sync.Once
	by   time.Time
	log  io.Writer
}

func (s *sinks) deadline() time.Time {
	s.once.Do(func() { s.by = time.Now().Add(SinkDrain) })
	return s.by
}

// attachSinks wraps every hosted node's trace writer with a streamer to
// Options.TraceSink, when one is given.
func (h *Host) attachSinks() {
	if h.opt.TraceSink == "" {
		return
	}
	host, _ := os.Hostname()
	sk := &sinks{log: h.opt.Log}
	for _, n := range h.nodes {
		s := collect.Stream(collect.StreamOptions{Addr: h.opt.TraceSink, Path: trace.NodeFile(h.opt.Out, n.id),
			Run: h.opt.Run, Node: n.id, Host: host, Key: h.opt.Key, Log: h.opt.Log})
		n.out = &sinkWriter{eventWriter: n.out, s: s, sink: sk}
	}
}
