package workload

import "manetlab/protocol"

// Describe passes the wrapped process's protocol.Describer line through.
func (w *wrapped) Describe() string { return protocol.Describe(w.g.proc) }

// StopsAt passes the wrapped process's protocol.NoteStopper rule through.
func (w *wrapped) StopsAt(s protocol.Step) bool { return protocol.StopsAt(w.g.proc, s) }
