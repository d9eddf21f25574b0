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
