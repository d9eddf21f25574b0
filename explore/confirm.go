package explore

import (
	"fmt"
	"os"
	"strings"
	"time"

	"manetlab/sim"
	"manetlab/trace/analysis"
)

// confirm replays a violation's minimised schedule as `sim --schedule`
// does (sim.RunSchedule: the choices at their steps, then the simulator's
// order to the scenario's end), into a fresh directory, with the
// explorer's checks observing the run, and judges the traces with `trace
// check` (analysis.Check). It fills v.Replayed with what they say, and
// v.Confirmed when the replay shows the property: trace check finds it
// invalid, or, for the properties trace check does not decide on a
// simulated run (the message bound, which it does not judge; a request
// left waiting at quiescence, which it calls unknown), the explorer's
// check of the replay finds it again and trace check does not call it
// valid. A violation that is not confirmed is a bug of the explorer, and
// is not reported as a violation (Result.Unconfirmed).
func (x *explorer) confirm(v *Violation) error {
	dir, err := os.MkdirTemp("", "explore-replay-")
	if err != nil {
		return fmt.Errorf("explore: replaying the violation: %w", err)
	}
	defer os.RemoveAll(dir)
	run := dir + "/run"
	chk := newChecker(x.rules)
	c, err := sim.NewController(x.s, sim.Options{Out: run}, chk.observe)
	if err != nil {
		return err
	}
	m := &machine{x: x, c: c, chk: chk}
	if err := c.Play(v.Schedule.Choices, -1); err != nil {
		c.Close()
		return fmt.Errorf("explore: replaying the violation's schedule: %w", err)
	}
	var at time.Duration // when the explorer's check found it on the replay
	if chk.found != nil {
		at = c.Now()
	}
	for judged := false; chk.found == nil && !judged; {
		if _, ok := c.Next(); !ok {
			m.ended()
			break
		}
		if !m.active() {
			m.judge()
			judged = true
		} else {
			c.Step()
		}
		if chk.found != nil {
			at = c.Now()
		}
	}
	end := c.End()
	if _, err := c.Finish(); err != nil {
		return fmt.Errorf("explore: replaying the violation's schedule: %w", err)
	}
	opt := analysis.CheckOptions{}
	if v.Property == analysis.PropStableLeader && chk.found != nil && end > at {
		// Found at quiescence: nothing changes after it, so trace check
		// judges the components that stay as they are from then to the
		// run's end.
		opt.Stabilisation = min(end-at, x.rules.settle)
	}
	rep, err := analysis.Check(run, opt)
	if err != nil {
		return fmt.Errorf("explore: checking the replay: %w", err)
	}
	var prop *analysis.Property
	var invalid []string
	for i, p := range rep.Properties {
		if p.Name == v.Property {
			prop = &rep.Properties[i]
		}
		if p.Verdict == analysis.Invalid {
			w := ""
			if len(p.Witnesses) > 0 {
				w = ": " + p.Witnesses[0].Text
			}
			invalid = append(invalid, p.Name+" invalid"+w)
		}
	}
	again := chk.found != nil && chk.found.prop == v.Property
	var says []string
	if again {
		says = append(says, "the explorer's check: "+chk.found.prop+": "+chk.found.witness)
	} else if chk.found != nil {
		says = append(says, "the explorer's check: "+chk.found.prop+" (not "+v.Property+"): "+chk.found.witness)
	} else {
		says = append(says, "the explorer's check: no violation")
	}
	switch {
	case prop == nil:
		says = append(says, "trace check does not judge "+v.Property)
	case prop.Verdict != analysis.Invalid && prop.Reason != "":
		says = append(says, fmt.Sprintf("trace check: %s %s (%s)", prop.Name, prop.Verdict, prop.Reason))
	case prop.Verdict != analysis.Invalid:
		says = append(says, fmt.Sprintf("trace check: %s %s", prop.Name, prop.Verdict))
	}
	if len(invalid) > 0 {
		says = append(says, "trace check: "+strings.Join(invalid, "; "))
	} else {
		says = append(says, "trace check: nothing invalid")
	}
	undecided := prop == nil || prop.Verdict == analysis.Unknown && v.Property == analysis.PropGranted
	v.Confirmed = prop != nil && prop.Verdict == analysis.Invalid || undecided && again
	v.Replayed = strings.Join(says, "; ")
	return nil
}
