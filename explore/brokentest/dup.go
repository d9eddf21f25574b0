package brokentest

import (
	"manetlab/bully"
	"manetlab/firewire"
	"manetlab/invitation"
	"manetlab/mutex"
	"manetlab/protocol"
)

// The count-only variants: the real algorithm, whose node sends every
// message of one kind twice (a send written twice, a broadcast loop run
// twice). The receivers' channels or states take the copy for a
// duplicate, so nothing but the count shows the bug: the per-node
// budget (protocol.Budget) does.
const (
	BullyOKTwice       = "test/bully-ok-twice"
	GarciaMolinaHalts2 = "test/garcia-molina-halt-twice"
	// GarciaMolinaNewCoordTwice: a coordinator's NewCoordinator twice.
	GarciaMolinaNewCoordTwice = "test/garcia-molina-new-coordinator-twice"
	InvitationAcceptTwice     = "test/invitation-accept-twice"
	FirewireAckTwice          = "test/firewire-ack-twice"
	TokenRingTokenTwice       = "test/token-ring-token-twice"
)

func init() {
	for _, v := range []struct{ real, name, kind string }{
		{bully.Textbook, BullyOKTwice, bully.KindOK},
		{bully.GarciaMolina, GarciaMolinaHalts2, bully.KindHalt},
		{bully.GarciaMolina, GarciaMolinaNewCoordTwice, bully.KindNewCoordinator},
		{invitation.Name, InvitationAcceptTwice, invitation.KindAccept},
		{firewire.Name, FirewireAckTwice, firewire.KindAck},
		{mutex.TokenRing, TokenRingTokenTwice, "token"},
	} {
		sendsTwice(v.real, v.name, v.kind)
	}
}

// sendsTwice registers name: real, sending every message of kind twice.
func sendsTwice(real, name, kind string) {
	spec, err := protocol.Lookup(real)
	if err != nil {
		panic(err)
	}
	variant(real, name, "test only: "+real+" sending every "+kind+" message twice",
		func(cfg protocol.Config) (protocol.Process, error) {
			cfg.Env = twice{cfg.Env, kind}
			return spec.New(cfg)
		})
}

// twice is an Env that sends every message of kind twice.
type twice struct {
	protocol.Env
	kind string
}

func (t twice) Send(to protocol.NodeID, m protocol.Message) {
	t.Env.Send(to, m)
	if m.Kind() == t.kind {
		t.Env.Send(to, m)
	}
}

func (t twice) Deliver(to protocol.NodeID, m protocol.Message) {
	t.Env.Deliver(to, m)
	if m.Kind() == t.kind {
		t.Env.Deliver(to, m)
	}
}
