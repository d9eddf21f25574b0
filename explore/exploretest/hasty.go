// Package exploretest registers a small, deliberately broken election for
// the explorer's tests (package explore, cmd/manetlab): it imports only
// protocol, and only tests import it (for its registration).
//
// test/explore-hasty: 5 ms after boot every node broadcasts its ID once
// (one hop, no retransmission) and, 15 ms later, takes the highest ID it
// has heard (itself included) as the leader of epoch 1. In the
// simulator's order, and in every order of deliveries within the radio's
// delay, the broadcasts arrive before the decisions and every node names
// the highest ID. A lost broadcast (explore --drops 1) leaves some node
// naming another: two leaders in epoch 1.
package exploretest

import (
	"strconv"
	"time"

	"manetlab/protocol"
)

// Name is the protocol's registered name.
const Name = "test/explore-hasty"

func init() {
	protocol.Register(protocol.Spec{
		Name:     Name,
		Summary:  "test only: an election that decides after 10 ms on the IDs heard, without retransmissions",
		New:      newHasty,
		Messages: []protocol.Message{ID{}},
		Goal:     protocol.GoalHighestID,
	})
}

// ID announces its sender.
type ID struct{}

func (ID) Kind() string { return "id" }

type hasty struct {
	env  protocol.Env
	id   protocol.NodeID
	best protocol.NodeID
	done bool
}

func newHasty(cfg protocol.Config) (protocol.Process, error) {
	if err := cfg.Params.Reader().Err(); err != nil {
		return nil, err
	}
	return &hasty{env: cfg.Env, id: cfg.ID, best: cfg.ID}, nil
}

func (h *hasty) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Start:
		h.env.SetTimer(5*time.Millisecond, "announce", 0)
	case protocol.Receive:
		if _, ok := e.Msg.(ID); ok && !h.done {
			h.best = max(h.best, e.From)
		}
	case protocol.Timeout:
		if e.Name == "announce" {
			h.env.Broadcast(ID{})
			h.env.SetTimer(15*time.Millisecond, "decide", 0)
		}
		if e.Name == "decide" && !h.done {
			h.done = true
			h.env.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: h.best, Value: float64(h.best), Epoch: "1"})
		}
	}
}

// Scenario is the tests' run of it: n nodes in range of each other on
// the ideal medium, for 30 s (long enough for `trace check` to judge the
// components settled).
func Scenario(n int) string {
	return `name: hasty
seed: 1
duration: 30s
nodes: {count: ` + strconv.Itoa(n) + `, values: id, placement: grid}
radio: {propagation: unit-disk, range: 250, mac: ideal}
mobility: {model: static, area: [100, 100]}
protocol: {name: ` + Name + `}
`
}
