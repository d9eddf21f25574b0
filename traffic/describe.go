package traffic

import "fmt"

// Describe implements protocol.Describer.
func (b *Beacons) Describe() string {
	if !b.sends {
		return "listening"
	}
	return fmt.Sprintf("sent %d of %d beacons", b.sent, b.count)
}

// Describe implements protocol.Describer.
func (c *CBR) Describe() string {
	n := uint32(0)
	for _, s := range c.sent {
		n += s
	}
	return fmt.Sprintf("%d flow(s), %d packet(s) sent", len(c.flows), n)
}
