package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
	// At is the run time judged up to, seconds (the page: "verdict as
	// of At s of the run"); Took how long the judgement took, seconds of
	// wall time; CPU its processor time, seconds (in a child process:
	// the child's user and system time; in the server: 0, unknown).
	At    float64 `json:"at"`
	Took  float64 `json:"took"`
	CPU   float64 `json:"cpu,omitempty"`
	Final bool    `json:"final"`
	Error string  `json:"error,omitempty"`
}

// cost is what the cadence counts of a judgement: its processor time
// when known, else its wall time.
func (v Verdict) cost() time.Duration {
	if v.CPU > 0 {
		return time.Duration(v.CPU * float64(time.Second))
	}
	return time.Duration(v.Took * float64(time.Second))
}

// maxFaults bounds the faults the state keeps for the summary so far (a
// hostile faults record must not grow the server).
const maxFaults = 10000

// JudgeRequest is one judgement of the run in Dir: final, from its files
// as they are; else the run so far, with RunFile (the run file made of
// the scenario, the faults applied and the time reached, without an
// end) in place of the run file on disk.
type JudgeRequest struct {
	Dir     string        `json:"dir"`
	Final   bool          `json:"final"`
	At      float64       `json:"at"`
	RunFile []trace.Event `json:"run_file,omitempty"`
}

// request is the judgement of the run so far that st calls for, or the
// verdict itself when there is nothing to judge.
func request(dir string, st *State, final bool) (JudgeRequest, *Verdict) {
	st.mu.Lock()
	sc, run, driver, now, faults := st.sc, st.run, st.driver, st.now, append([]trace.Event(nil), st.faults...)
	st.mu.Unlock()
	req := JudgeRequest{Dir: dir, Final: final, At: seconds(now)}
	if sc == nil || (!final && now <= 0) {
		return req, &Verdict{At: req.At, Final: final, Verdict: "unknown",
			Lines: []string{"verdict: nothing to judge yet (the run has not started)"}}
	}
	if !final {
		evs, err := node.RunFileEvents(sc, run, faults, time.Duration(now))
		if err != nil {
			return req, &Verdict{At: req.At, Error: err.Error()}
		}
		if n := len(evs); n > 0 && evs[n-1].Ev == trace.EvEnd {
			evs = evs[:n-1]
		}
		if driver != "" {
			// The run's own (a simulated run followed by trace watch is
			// judged as the simulator's, not as real processes whose
			// neighbour losses the radio model may not know of).
			evs[0].Driver = driver
		}
		req.RunFile = evs
	}
	return req, nil
}

// Judge summarises the run in dir as the summary would
// (report.SummarizeFrom), in this process: final, from its files as they
// are (the run is over, its run file written); else the run so far (the
// traces are not cut short, they go on).
func Judge(dir string, st *State, final bool) Verdict {
	req, v := request(dir, st, final)
	if v != nil {
		return *v
	}
	return Summarize(req)
}

// Summarize judges one request in this process.
func Summarize(req JudgeRequest) Verdict {
	t0 := time.Now()
	v := Verdict{At: req.At, Final: req.Final}
	src := trace.Disk
	if !req.Final {
		src = trace.WithRunFile(trace.Disk, req.Dir, req.RunFile)
	}
	sum, err := report.SummarizeFrom(src, req.Dir)
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

// ServeJudge is the child's side of JudgeInChild: it reads one
// JudgeRequest (JSON) from r, judges it and writes its Verdict (JSON) to
// w. Everything the judgement read is gone with the child.
func ServeJudge(r io.Reader, w io.Writer) error {
	var req JudgeRequest
	if err := json.NewDecoder(bufio.NewReader(r)).Decode(&req); err != nil {
		return fmt.Errorf("judge: the request on standard input: %w", err)
	}
	return json.NewEncoder(w).Encode(Summarize(req))
}

// JudgeInChild returns a judge that runs each judgement in a child
// process, argv (the same binary, whose command calls ServeJudge): the
// files a judgement reads and the ground truth it walks grow with the
// run, and live in the child, not in the server. The verdict's CPU is
// the child's user and system time.
func JudgeInChild(argv ...string) func(ctx context.Context, req JudgeRequest) Verdict {
	return func(ctx context.Context, req JudgeRequest) Verdict {
		t0 := time.Now()
		fail := func(err error) Verdict {
			return Verdict{At: req.At, Final: req.Final, Took: time.Since(t0).Seconds(), Error: err.Error()}
		}
		in, err := json.Marshal(req)
		if err != nil {
			return fail(err)
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdin = bytes.NewReader(in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &limited{w: &errb, n: 4096}
		cmd.Env = os.Environ()
		err = cmd.Run()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && errb.Len() > 0 {
				err = fmt.Errorf("%s: %w: %s", argv[0], err, strings.TrimSpace(errb.String()))
			}
			return fail(err)
		}
		var v Verdict
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			return fail(fmt.Errorf("%s: its verdict: %w", argv[0], err))
		}
		v.Took = time.Since(t0).Seconds()
		if ps := cmd.ProcessState; ps != nil {
			v.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
		}
		return v
	}
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if k := min(len(p), l.n); k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// SetVerdict records the latest judgement.
func (st *State) SetVerdict(v Verdict) {
	st.mu.Lock()
	st.verdict = v
	st.mu.Unlock()
}
