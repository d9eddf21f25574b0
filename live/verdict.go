package live

import (
	"bytes"
	"strings"
	"time"

	"manetlab/node"
	"manetlab/trace"
	"manetlab/trace/report"
)

// Verdict is the run summary's judgement of the run so far, in its own
// words (report.Summary.WriteText): the verdict line and the components.
type Verdict struct {
	Verdict string   `json:"verdict"`
	Reason  string   `json:"reason,omitempty"`
	Lines   []string `json:"lines"`
	// At is the run time judged up to, seconds; Took how long the
	// summary took, seconds.
	At    float64 `json:"at"`
	Took  float64 `json:"took"`
	Final bool    `json:"final"`
	Error string  `json:"error,omitempty"`
}

// maxFaults bounds the faults the state keeps for the summary so far (a
// hostile faults record must not grow the server).
const maxFaults = 10000

// Judge summarises the run in dir as the summary would (report.SummarizeFrom):
// final, from its files as they are (the run is over, its run file
// written); else the run so far, from a run file made of the scenario,
// the faults applied and the time reached, without an end (the traces
// are not cut short, they go on).
func Judge(dir string, st *State, final bool) Verdict {
	t0 := time.Now()
	src := trace.Disk
	st.mu.Lock()
	sc, run, now, faults := st.sc, st.run, st.now, append([]trace.Event(nil), st.faults...)
	st.mu.Unlock()
	v := Verdict{At: seconds(now), Final: final}
	if sc == nil || (!final && now <= 0) {
		v.Verdict = "unknown"
		v.Lines = []string{"verdict: nothing to judge yet (the run has not started)"}
		return v
	}
	if !final {
		evs, err := node.RunFileEvents(sc, run, faults, time.Duration(now))
		if err != nil {
			v.Error = err.Error()
			return v
		}
		if n := len(evs); n > 0 && evs[n-1].Ev == trace.EvEnd {
			evs = evs[:n-1]
		}
		src = trace.WithRunFile(trace.Disk, dir, evs)
	}
	sum, err := report.SummarizeFrom(src, dir)
	v.Took = time.Since(t0).Seconds()
	if err != nil {
		v.Error = err.Error()
		return v
	}
	v.Verdict, v.Reason = sum.Verdict, sum.Reason
	var b bytes.Buffer
	sum.WriteText(&b)
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "messages") {
			break
		}
		if l != "" {
			v.Lines = append(v.Lines, l)
		}
	}
	return v
}

// SetVerdict records the latest judgement.
func (st *State) SetVerdict(v Verdict) {
	st.mu.Lock()
	st.verdict = v
	st.mu.Unlock()
}
