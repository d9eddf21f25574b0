package traffic

import "fmt"

// Describe implements protocol.MessageDescriber.
func (p Packet) Describe() string { return fmt.Sprintf("packet %d of flow %d", p.N, p.Flow) }

// Describe implements protocol.MessageDescriber.
func (b Beacon) Describe() string { return fmt.Sprintf("beacon #%d", b.N) }
