package netstack

import "manetlab/radio"

// Outcome is the radio's verdict on a frame at one receiver.
type Outcome = radio.Outcome

// The outcomes, as package radio names them.
const (
	Received   = radio.Received
	OutOfRange = radio.OutOfRange
	Lost       = radio.Lost
	Collision  = radio.Collision
	HalfDuplex = radio.HalfDuplex
)
