package protocol

// Event is one input to a Process: Start, Receive, Timeout, NeighborUp,
// NeighborDown or Command.
type Event interface{ isEvent() }

// Start is the first event a process sees, at boot and after a recovery
// (a recovered node starts from a fresh Process with no memory).
type Start struct{}

// Receive delivers a message.
type Receive struct {
	// From is the sender: the neighbour for Send and Broadcast, the
	// originator for Deliver and Flood.
	From NodeID
	// Hops is how many radio hops the message travelled (1 for Send and
	// Broadcast).
	Hops int
	Msg  Message
}

// Timeout reports that a timer set with Env.SetTimer expired.
type Timeout struct {
	ID   TimerID
	Name string
	Arg  int64
}

// NeighborUp reports that neighbour discovery now hears ID.
type NeighborUp struct{ ID NodeID }

// NeighborDown reports that neighbour discovery stopped hearing ID.
type NeighborDown struct{ ID NodeID }

// Command is an instruction from the workload or the operator.
type Command struct {
	Name  CommandName
	Value float64 // the new value, for SetValue
}

// CommandName names a Command. Protocols ignore commands they do not know.
type CommandName string

// The commands drivers issue.
const (
	Elect    CommandName = "elect"     // start an election now
	Request  CommandName = "request"   // ask for the critical section
	Release  CommandName = "release"   // leave the critical section
	SetValue CommandName = "set-value" // this node's value changed
)

func (Start) isEvent()        {}
func (Receive) isEvent()      {}
func (Timeout) isEvent()      {}
func (NeighborUp) isEvent()   {}
func (NeighborDown) isEvent() {}
func (Command) isEvent()      {}
