package workload

import "manetlab/protocol"

// Describe passes the wrapped process's protocol.Describer line through.
func (w *wrapped) Describe() string { return protocol.Describe(w.g.proc) }
