package scenario

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"manetlab/mobility"
)

// dropBeyondRun removes the faults timed at or after the end of the run
// and the workload commands timed after it (a shorter --set duration
// leaves them there) and says how many went, naming the first of each.
// A fault at the end itself would be applied after the nodes stop (a
// real run's crash 14 ms after its end: its trace events time-travel, its
// verdict unsettled), so neither sim nor run ever applies one. Negative
// times stay for Validate to refuse.
func (s *Scenario) dropBeyondRun() []string {
	var warns []string
	var faults []Fault
	first, n := "", 0
	for i, f := range s.Faults {
		if f.At >= s.Duration {
			if n == 0 {
				first = fmt.Sprintf("faults[%d] at %v", i, f.At)
				faults = slices.Clip(s.Faults[:i:i]) // copied from here on, only when one is dropped
			}
			n++
			continue
		}
		if n > 0 {
			faults = append(faults, f)
		}
	}
	if n > 0 {
		s.Faults = faults
		warns = append(warns, fmt.Sprintf("dropped %s at or after the run's end %v, outside the run: never applied (the first: %s)", countOf(n, "fault", "faults"), s.Duration, first))
	}
	var cmds []Command
	first, n = "", 0
	for i, c := range s.Workload.Commands {
		if c.At > s.Duration {
			if n == 0 {
				first = fmt.Sprintf("workload.commands[%d] at %v", i, c.At)
				cmds = slices.Clip(s.Workload.Commands[:i:i])
			}
			n++
			continue
		}
		if n > 0 {
			cmds = append(cmds, c)
		}
	}
	if n > 0 {
		s.Workload.Commands = cmds
		warns = append(warns, fmt.Sprintf("dropped %s beyond the run's duration %v (the first: %s)", countOf(n, "workload command", "workload commands"), s.Duration, first))
	}
	if s.Workload.Stop > s.Duration {
		warns = append(warns, fmt.Sprintf("workload.stop %v is beyond the run's duration %v: the generator stops at the end of the run", s.Workload.Stop, s.Duration))
		s.Workload.Stop = 0 // the run's end
	}
	return warns
}

// ns2Warnings are the ns-2 reader's warnings about the scenario's trace
// (lines skipped as ns-3 skips them); Validate has already read it.
func (s *Scenario) ns2Warnings() []string {
	if s.Mobility.Model != "ns2" || s.Mobility.File == "" {
		return nil
	}
	_, warns, err := mobility.ReadNS2(s.Mobility.File)
	if err != nil {
		return nil
	}
	return warns
}

// countOf is "1 fault" or "3 faults".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Source names what an error about a field (a message starting with
// its path, "protocol.params.variant: ...") should blame: the --set
// override that wrote the field, else the scenario file.
func (s *Scenario) Source(msg string) string {
	if set := blameSet(s.Sets, msg); set != "" {
		return "--set " + set
	}
	return s.Path
}

// errPath matches the field path that starts an error message:
// "faults[1].at: ..." or "radio.range: ...".
var errPath = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.\[\]-]*): `)

// blameSet returns the --set override that wrote the field an error
// (starting with its path, as Validate's do) is about, or "" when the
// file did: the last override whose path contains the field or lies
// inside it.
func blameSet(sets []string, msg string) string {
	m := errPath.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	field := dotted(m[1])
	for i := len(sets) - 1; i >= 0; i-- {
		path, _, ok := strings.Cut(sets[i], "=")
		if !ok {
			continue
		}
		if within(field, path) || within(path, field) {
			return sets[i]
		}
	}
	return ""
}

// dotted writes list indices as path components: faults[1].at becomes
// faults.1.at, as --set spells it.
func dotted(p string) string {
	p = strings.ReplaceAll(p, "[", ".")
	return strings.ReplaceAll(p, "]", "")
}

// within reports whether dotted path p is q or lies below it.
func within(p, q string) bool {
	return p == q || strings.HasPrefix(p, q+".")
}
