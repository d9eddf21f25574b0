package mutex

import (
	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// raEarlyName is a deliberately broken Ricart-Agrawala for the checker's
// tests: it replies to a request at once even while it holds the section,
// so a requester enters beside it.
const raEarlyName = "mutex/test-ra-early"

func init() {
	spec, err := protocol.Lookup(RicartAgrawala)
	if err != nil {
		panic(err)
	}
	spec.Name = raEarlyName
	spec.Summary = "test only: a Ricart-Agrawala that replies while it holds the section"
	spec.New = newRAEarly
	spec.Messages = reliable.Messages[RAMsg]()
	protocol.Register(spec)
}

type raEarly struct{ *ricartAgrawala }

func newRAEarly(cfg protocol.Config) (protocol.Process, error) {
	p, err := NewRicartAgrawala(cfg)
	if err != nil {
		return nil, err
	}
	e := &raEarly{p.(*ricartAgrawala)}
	e.rules = e
	return e, nil
}

// receive replies to a request while holding instead of deferring it.
func (p *raEarly) receive(from protocol.NodeID, m RAMsg) {
	if m.Type == RARequest && p.holds() && m.TS > p.seen[from] {
		p.seen[from] = m.TS
		p.clock = max(p.clock, m.TS)
		p.send(from, RAMsg{Type: RAReply, TS: p.clock, For: m.TS})
		return
	}
	p.ricartAgrawala.receive(from, m)
}
