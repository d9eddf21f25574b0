// Package bootcount registers "test/boots", a protocol for the drivers'
// tests of stable storage: at every start it reads a counter from its
// Store, adds one, puts it back and notes "boots=N" (or "put: <error>").
// A test imports it for its registration.
//
// It imports only protocol; only tests use it.
package bootcount

import (
	"fmt"

	"manetlab/protocol"
)

// Name is the registered name.
const Name = "test/boots"

func init() {
	protocol.Register(protocol.Spec{
		Name:    Name,
		Summary: "test only: counts its boots in stable storage",
		New: func(cfg protocol.Config) (protocol.Process, error) {
			return &counter{cfg: cfg}, cfg.Params.Reader().Err()
		},
	})
}

type counter struct{ cfg protocol.Config }

func (p *counter) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); !ok {
		return
	}
	n := 0
	if b, ok := p.cfg.Store.Get("boots"); ok {
		fmt.Sscan(string(b), &n)
	}
	n++
	text := fmt.Sprintf("boots=%d", n)
	if err := p.cfg.Store.Put("boots", []byte(fmt.Sprint(n))); err != nil {
		text = "put: " + err.Error()
	}
	p.cfg.Env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: text})
}
