// Package firewire holds IEEE 1394 (FireWire) tree identify with root
// contention, registered as firewire/tree-identify (protocol.GoalTree).
package firewire
