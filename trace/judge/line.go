package judge

import "strings"

// Line is the verdict line that every command stating a verdict prints
// first, before its figures: `sim`, `run` and `trace report` (the run
// summary's verdict and reason), the HTML report page (the same) and
// `trace check` (Combined's, from its properties). It gives the verdict
// word, then what was judged and what was not.
func Line(verdict, reason string) string {
	if reason == "" {
		return "verdict: " + verdict
	}
	return "verdict: " + verdict + " (" + reason + ")"
}

// Judged is one property as Combined weighs it: its name, its verdict
// and, for one not decided, why.
type Judged struct {
	Name, Verdict, Reason string
}

// NotApplicable begins the reason of a property that is valid because
// it does not apply to the run (trace/analysis: a mutual exclusion
// protocol's leader properties when it composes no election).
const NotApplicable = "not applicable"

// Combined is the verdict of properties ps (invalid over undecided over
// valid, as Exit orders them, so that the line and the exit status
// agree) and its reason: which were violated, which
// hold, and which were not judged and why.
func Combined(ps []Judged) (string, string) {
	var bad, good, none, open []string
	verdict := Valid
	for _, p := range ps {
		switch p.Verdict {
		case Invalid:
			bad = append(bad, p.Name)
			verdict = Invalid
		case Valid:
			if strings.HasPrefix(p.Reason, NotApplicable) {
				none = append(none, p.Name)
				continue
			}
			good = append(good, p.Name)
		default:
			if verdict == Valid {
				verdict = p.Verdict
			}
			s := p.Name + " " + p.Verdict
			if p.Reason != "" {
				s += ": " + p.Reason
			}
			open = append(open, s)
		}
	}
	var parts []string
	if len(bad) > 0 {
		parts = append(parts, "violated: "+strings.Join(bad, ", "))
	}
	if len(good) > 0 {
		parts = append(parts, "judged and holding: "+strings.Join(good, ", "))
	}
	if len(none) > 0 {
		parts = append(parts, "not applicable: "+strings.Join(none, ", "))
	}
	if len(open) > 0 {
		parts = append(parts, "not judged: "+strings.Join(open, "; "))
	}
	if len(parts) == 0 {
		return Unknown, "no property to judge"
	}
	return verdict, strings.Join(parts, "; ")
}
