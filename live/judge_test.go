package live

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// judgeHelperEnv makes this test binary the child of JudgeInChild
// (TestJudgeHelperProcess).
const judgeHelperEnv = "MANETLAB_LIVE_JUDGE_HELPER"

func TestJudgeHelperProcess(t *testing.T) {
	if os.Getenv(judgeHelperEnv) != "1" {
		return
	}
	if err := ServeJudge(os.Stdin, os.Stdout); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

// TestJudgeInChild: a judgement in a child process (the run so far, with
// the run file made of the state, and the final one from the files) says
// what the same judgement in the server says, names the run time it
// judged and counts the child's CPU time; a child that fails says why.
// The run file so far keeps the run's driver.
func TestJudgeInChild(t *testing.T) {
	dir := simulated(t, "duration=20s")
	st := NewState()
	f := NewFollower(dir, st)
	defer f.Close()
	if _, err := f.Poll(); err != nil {
		t.Fatal(err)
	}
	t.Setenv(judgeHelperEnv, "1")
	child := JudgeInChild(os.Args[0], "-test.run=^TestJudgeHelperProcess$")
	for _, final := range []bool{false, true} {
		req, v := request(dir, st, final)
		if v != nil || req.At != 20 || (len(req.RunFile) == 0) == !final {
			t.Fatalf("final %v: request at %v s, %d run file events, verdict %+v", final, req.At, len(req.RunFile), v)
		}
		if !final && req.RunFile[0].Driver != "sim" {
			t.Errorf("the run file so far of a simulated run says driver %q: judged as real processes", req.RunFile[0].Driver)
		}
		got, want := child(context.Background(), req), Summarize(req)
		if got.Error != "" || got.Verdict == "" || got.Verdict != want.Verdict || got.Reason != want.Reason ||
			!slices.Equal(got.Lines, want.Lines) || got.At != 20 || got.Final != final || got.CPU <= 0 || got.Took <= 0 {
			t.Errorf("final %v: in a child %+v, in the server %+v", final, got, want)
		}
	}
	t.Setenv(judgeHelperEnv, "")
	bad := JudgeInChild(os.Args[0], "-test.run=^TestJudgeHelperProcess$")
	if v := bad(context.Background(), JudgeRequest{Dir: dir, At: 3}); v.Error == "" || v.At != 3 {
		t.Errorf("a child that writes no verdict: %+v", v)
	}
}

// TestJudgeCadenceAdapts: the next judgement waits (1/JudgeShare - 1)
// times the cost of the last (its CPU time when known, else its wall
// time), at least JudgeEvery; the page's verdict is the last judgement's,
// naming the run time it judged.
func TestJudgeCadenceAdapts(t *testing.T) {
	for _, c := range []struct{ cost, every, want time.Duration }{
		{0, 2 * time.Second, 2 * time.Second},
		{time.Second, 2 * time.Second, 4 * time.Second},
		{100 * time.Millisecond, 50 * time.Millisecond, 400 * time.Millisecond},
	} {
		if got := judgeWait(c.cost, c.every); got != c.want {
			t.Errorf("judgeWait(%v, %v) = %v, want %v", c.cost, c.every, got, c.want)
		}
	}
	if (Verdict{Took: 2, CPU: 0.5}).cost() != 500*time.Millisecond || (Verdict{Took: 2}).cost() != 2*time.Second {
		t.Error("a judgement's cost is its CPU time when known, else its wall time")
	}

	dir := simulated(t, "duration=10s")
	costs := []float64{0.02, 0.15, 0.01, 0.1} // CPU seconds each judgement reports
	type call struct {
		start, end time.Time
		at         float64
	}
	var mu sync.Mutex
	var calls []call
	enough := make(chan struct{})
	l := New(Config{Dir: dir, Poll: 5 * time.Millisecond, JudgeEvery: 10 * time.Millisecond,
		Judge: func(_ context.Context, req JudgeRequest) Verdict {
			mu.Lock()
			defer mu.Unlock()
			k := len(calls)
			calls = append(calls, call{start: time.Now(), at: req.At})
			if k == len(costs) {
				close(enough)
			}
			v := Verdict{Verdict: "valid", At: req.At, CPU: costs[k%len(costs)], Lines: []string{"verdict: valid"}}
			calls[k].end = time.Now()
			return v
		}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { l.Run(ctx); close(ran) }()
	<-enough
	cancel()
	<-ran
	mu.Lock()
	defer mu.Unlock()
	for k := 1; k < len(calls); k++ {
		wait := judgeWait(time.Duration(costs[k-1]*float64(time.Second)), 10*time.Millisecond)
		if gap := calls[k].start.Sub(calls[k-1].end); gap < wait {
			t.Errorf("judgement %d started %v after the one before, which cost %v s: want at least %v", k, gap, costs[k-1], wait)
		}
		if calls[k].at != 10 {
			t.Errorf("judgement %d judged the run as of %v s, want 10 (its end)", k, calls[k].at)
		}
	}
	if v := l.State().Snapshot(0).Verdict; v.Verdict != "valid" || v.At != 10 {
		t.Errorf("the page's verdict %+v: want the last judgement's, as of 10 s", v)
	}
}
