package protocol

import (
	"errors"
	"fmt"
	"strings"
	"time"
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

// HopWait is a wait a protocol holds to a number of hop times: its
// parameter's name (under protocol.params) and its value.
type HopWait struct {
	Field string
	Wait  time.Duration
}

// HopWaitsWarning warns, with the figures, about the waits shorter than
// hops hop times (hop is Config.HopDelay: radio.delay on the ideal medium,
// the DCF medium's exchange, 1.95 ms at 1 Mbps); name prefixes the text
// and what follows says what goes wrong. Nil when hop is unknown (zero)
// or every wait is long enough.
func HopWaitsWarning(name string, hop time.Duration, hops int, what string, waits ...HopWait) *Warning {
	least := time.Duration(hops) * hop
	var short []string
	for _, w := range waits {
		if w.Wait < least {
			short = append(short, fmt.Sprintf("protocol.params.%s %v", w.Field, w.Wait))
		}
	}
	if hop <= 0 || len(short) == 0 {
		return nil
	}
	return &Warning{Text: fmt.Sprintf("%s: %s, but a round trip over one hop takes %v at a hop time of %v (radio.delay, or the DCF medium's exchange), "+
		"and each should be at least %d hop times (%v): %s", name, strings.Join(short, " and "), 2*hop, hop, hops, least, what)}
}
