package scenario

import (
	"fmt"

	"manetlab/protocol"
	"manetlab/radio"
)

// CheckTopology calls the protocol's Spec.Topology, if it has one, with
// the radio links between the members at time 0, and names the scenario
// file in its error. Both drivers call it before a run.
func (s *Scenario) CheckTopology() error {
	spec, err := protocol.LookupFor(s.Protocol.Name, s.Protocol.Params)
	if err != nil || spec.Topology == nil {
		return nil // an unknown name is reported where the protocol is built
	}
	links, err := s.linksAtStart()
	if err != nil {
		return err
	}
	if err := spec.Topology(s.MemberIDs(), links); err != nil {
		return fmt.Errorf("%s: protocol %s: %w", s.Path, s.Protocol.Name, err)
	}
	return nil
}

// OutsideAssumptions is the protocol's Spec.Outside on the radio links
// between the members at time 0: why this run lies outside the
// algorithm's assumptions, or "" (also when the protocol declares no such
// assumption or is unknown).
func (s *Scenario) OutsideAssumptions() string {
	spec, err := protocol.LookupFor(s.Protocol.Name, s.Protocol.Params)
	if err != nil || spec.Outside == nil {
		return ""
	}
	links, err := s.linksAtStart()
	if err != nil {
		return ""
	}
	return spec.Outside(s.MemberIDs(), links, s.Protocol.Params)
}

// linksAtStart lists the pairs of members linked at time 0 under the
// scenario's radio model, in member order.
func (s *Scenario) linksAtStart() ([][2]protocol.NodeID, error) {
	mob, err := s.MobilityModel()
	if err != nil {
		return nil, err
	}
	med, err := radio.NewMedium(s.Radio, mob, s.Seed)
	if err != nil {
		return nil, err
	}
	ms := s.Members()
	var links [][2]protocol.NodeID
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			if med.Linked(i, j, 0) {
				links = append(links, [2]protocol.NodeID{ms[i].ID, ms[j].ID})
			}
		}
	}
	return links, nil
}
