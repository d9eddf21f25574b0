package synchronous

import (
	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// Families lists the package's algorithms, for registration with the
// synchronizers (rounds.Register).
func Families() []rounds.Family[Msg] {
	return []rounds.Family[Msg]{TimeSlice, SlowFast, BFS}
}

// epoch names the one election of a run in leader notes.
const epoch = "1"

// note records n when the context records notes.
func note(ctx rounds.Context, n protocol.Note) {
	if ctx.Note != nil {
		ctx.Note(n)
	}
}

// follow notes leader as this node's leader.
func follow(ctx rounds.Context, leader protocol.NodeID) {
	note(ctx, protocol.Note{Kind: protocol.NoteLeader, Leader: leader, Epoch: epoch})
}

// alone reports a ring of one: no successor to send to.
func alone(ctx rounds.Context) bool {
	return ctx.Right == protocol.None || ctx.Right == ctx.ID
}

func intp(v int) *int { return &v }
