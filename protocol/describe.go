package protocol

// Describer is what a Process may add for people who watch a run one
// event at a time (the simulator's studio): its state in one short line,
// in the words of the algorithm's lesson ("candidate, epoch 3, waiting
// for acks from 4, 7"). It is optional, read only by drivers, and must
// not change the process's state.
type Describer interface {
	Describe() string
}

// Describe is p's Describe line, or "" when p does not describe itself.
func Describe(p Process) string {
	if d, ok := p.(Describer); ok {
		return d.Describe()
	}
	return ""
}

// MessageDescriber is what a Message may add for the same people: what
// it carries, in one short line that begins with its kind, in the words
// of the algorithm's lesson ("token from 8, election 1"; "elected: 8
// leads"). The sender and receiver are not part of it (the driver knows
// them): the line tells apart a token node 4 forwards for 8 from node
// 4's own. Drivers show it in the studio's lists and map and write it in
// the trace's send and relay events (Text), which the report's sequence
// diagram and the ShiViz export show. It is optional, and must neither
// change the message nor depend on anything but the message.
type MessageDescriber interface {
	Message
	Describe() string
}

// DescribeMessage is m's line, or "" when m does not describe itself
// (then its Kind is all there is to say).
func DescribeMessage(m Message) string {
	if d, ok := m.(MessageDescriber); ok {
		return d.Describe()
	}
	return ""
}
