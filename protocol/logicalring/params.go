package logicalring

import (
	"errors"

	"manetlab/protocol"
)

// FromParams builds the ring from the scenario's protocol parameters:
// "ring" (see Resolve) and "channels", "unidirectional" or
// "bidirectional", defaulting to what the algorithm needs. An algorithm
// that sends both ways (needBidirectional) refuses unidirectional
// channels. A badly typed "channels" is recorded in r, for r.Err.
func FromParams(r *protocol.ParamReader, members []protocol.NodeID, seed uint64, needBidirectional bool) (*Ring, error) {
	def := "unidirectional"
	if needBidirectional {
		def = "bidirectional"
	}
	channels := r.String("channels", def, "unidirectional", "bidirectional")
	spec, _ := r.Any("ring")
	order, err := Resolve(spec, members, seed)
	if err != nil {
		return nil, err
	}
	if needBidirectional && channels == "unidirectional" {
		return nil, errors.New("protocol.params.channels: unidirectional, but the algorithm sends both ways (allowed: bidirectional)")
	}
	return New(order), nil
}
