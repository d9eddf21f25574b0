package ring

import (
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// The ring tests run on protonet's in-memory network in virtual time
// (seeded drops, crashes, random delivery order); these names keep them
// short.
type (
	network = protonet.Network
	action  = protonet.Action
)

func newNetwork(t testing.TB, alg string, members []protocol.NodeID, params protocol.Params, seed uint64, opts ...func(*network)) *network {
	t.Helper()
	return protonet.New(t, alg, members, params, seed, opts...)
}

// ids returns n distinct member IDs, ascending, spread out so that IDs and
// ring positions are never confused.
func ids(n int) []protocol.NodeID { return protonet.IDs(n) }

// shuffled randomises the delivery order with its own seed.
func shuffled(seed uint64) func(*network) { return protonet.Shuffled(seed) }

// lossy drops a fraction of the frames, drawn from seed.
func lossy(p float64, seed uint64) func(*network) { return protonet.Lossy(p, seed) }
