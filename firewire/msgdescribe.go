package firewire

import "fmt"

// Describe implements protocol.MessageDescriber.
func (Request) Describe() string { return "request: be my parent" }

// Describe implements protocol.MessageDescriber.
func (Ack) Describe() string { return "ack: I am your parent" }

// Describe implements protocol.MessageDescriber.
func (m Contention) Describe() string {
	return fmt.Sprintf("contention: be my parent (round %d)", m.Round)
}

// Describe implements protocol.MessageDescriber.
func (m Root) Describe() string { return fmt.Sprintf("root: %d (value %g)", m.Root, m.Value) }
