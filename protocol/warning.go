package protocol

import (
	"errors"
	"strings"
)

// Warning is what New returns, together with a working Process, for
// parameters that are legal but likely wrong for the network (a timeout
// shorter than a round trip at the scenario's hop delay). Drivers print
// it, with the figures it gives, and run anyway; any other error from New
// stops the run.
type Warning struct{ Text string }

func (w *Warning) Error() string { return "warning: " + w.Text }

// Warned reports whether err is only a Warning (or nil): the Process New
// returned with it can run.
func Warned(err error) (*Warning, bool) {
	if err == nil {
		return nil, true
	}
	var w *Warning
	if errors.As(err, &w) {
		return w, true
	}
	return nil, false
}

// JoinWarnings joins the non-nil warnings into one (their texts, in
// order, separated by "; "), or returns nil when there are none.
func JoinWarnings(ws ...*Warning) *Warning {
	var texts []string
	for _, w := range ws {
		if w != nil {
			texts = append(texts, w.Text)
		}
	}
	if len(texts) == 0 {
		return nil
	}
	return &Warning{Text: strings.Join(texts, "; ")}
}
