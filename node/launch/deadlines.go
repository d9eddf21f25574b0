package launch

import (
	"fmt"
	"time"

	"manetlab/node"
)

// MissedBy is how late one of the launcher's checks (every 250 ms) may
// come before it counts as a missed deadline: the machine did not run
// the launcher in time.
const MissedBy = 100 * time.Millisecond

// Deadlines counts the launcher's checks and how late they came: an
// overloaded machine misses them, and runs its nodes late too.
type Deadlines struct {
	Checks int           `json:"checks"`
	Missed int           `json:"missed,omitempty"`
	Worst  time.Duration `json:"worst_ns,omitempty"`
	// Load is the machine's load when the first was missed
	// (node.MachineLoad).
	Load string `json:"load,omitempty"`
}

// note counts a check that came late by d.
func (d *Deadlines) note(late time.Duration) {
	d.Checks++
	if late <= MissedBy {
		return
	}
	if d.Missed == 0 {
		d.Load = node.MachineLoad()
	}
	d.Missed++
	d.Worst = max(d.Worst, late)
}

// Overloaded says, when the launcher missed deadlines, how many and by
// how much, with the load: "" when none was missed.
func (d Deadlines) Overloaded() string {
	if d.Missed == 0 {
		return ""
	}
	load := ""
	if d.Load != "" {
		load = " (" + d.Load + " at the first)"
	}
	return fmt.Sprintf("this machine was overloaded: the launcher missed %d of its %d checks (every 250ms) by more than %v, the worst by %v%s; its nodes ran late as well",
		d.Missed, d.Checks, MissedBy, d.Worst.Round(time.Millisecond), load)
}
