package protocol

import "fmt"

// Closer is what a Process may add when it holds something outside the
// driver (protocol/ext: a child program): drivers call Close when the
// process ends (its node crashes, the run ends), after which it is never
// stepped again.
type Closer interface {
	Close() error
}

// Close closes p if it is a Closer; nil otherwise.
func Close(p Process) error {
	if c, ok := p.(Closer); ok {
		return c.Close()
	}
	return nil
}

// Failure is the value a Process panics with when it cannot go on for a
// reason outside the algorithm, which no protocol can handle: its child
// program crashed, did not reply in time or replied with a bad line
// (protocol/ext). Drivers recover it (Recover) and stop the run with its
// error, which names the node.
type Failure struct {
	Node NodeID
	Err  error
}

func (f *Failure) Error() string { return fmt.Sprintf("node %d: %v", f.Node, f.Err) }

func (f *Failure) Unwrap() error { return f.Err }

// Recover turns a recovered panic value into an error when it is a
// *Failure, and panics again with anything else (a programming error).
// Use it as
//
//	defer func() { err = protocol.Recover(recover(), err) }()
func Recover(v any, err error) error {
	if v == nil {
		return err
	}
	if f, ok := v.(*Failure); ok {
		return f
	}
	panic(v)
}
