package baseline

import "fmt"

// Describe implements protocol.MessageDescriber.
func (a Announce) Describe() string {
	return fmt.Sprintf("announce: %d (value %g) #%d", a.Leader, a.Value, a.Seq)
}
