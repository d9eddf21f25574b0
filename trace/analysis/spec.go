package analysis

import "manetlab/protocol"

// params are the protocol parameters of the scenario recorded in r's
// header (nil when it cannot be read).
func (r *run) params() protocol.Params {
	if !r.hasRunFile {
		return nil
	}
	if sc, err := r.scenario(); err == nil {
		return sc.Protocol.Params
	}
	return nil
}

// spec is r's protocol as it is for the recorded parameters
// (protocol.LookupFor: a program's goal and bounds are parameters).
func (r *run) spec() (protocol.Spec, error) {
	return protocol.LookupFor(r.header.Protocol, r.params())
}

// goal is r's protocol's goal for the recorded parameters.
func (r *run) goal() protocol.Goal {
	return protocol.GoalFor(r.header.Protocol, r.params())
}
