package live

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/studio"
	"manetlab/trace"
)

//go:embed page.html
var pageHTML string

var page = []byte(studio.Inline(pageHTML))

// Faulter applies a crash or a recovery by hand (run --live), or a cut
// of the link between two nodes (heal: its end): it returns once the
// launchers of the nodes' hosts applied it and recorded it in the faults
// record, or with why it did not.
type Faulter interface {
	Fault(id protocol.NodeID, recover bool) error
	Cut(a, b protocol.NodeID, heal bool) error
	// CutHosts cuts apart two hosts of run --hosts (heal: heals them):
	// every link between a node of one and a node of the other.
	CutHosts(a, b string, heal bool) error
}

// Config is what a live page follows.
type Config struct {
	// Dir is the run directory whose files the page follows.
	Dir string
	// Faults, when not nil, takes the page's crashes and recoveries;
	// nil: the page is read-only (trace watch).
	Faults Faulter
	// Poll is how often the files are read (default 100ms).
	Poll time.Duration
	// Scenario and Run, when set, are the run's before its run file is
	// written (run --hosts writes it at the end).
	Scenario *scenario.Scenario
	Run      string
	// Judge, when set, judges the run so far (JudgeInChild: in a child
	// process, so that the server's memory does not grow with the run);
	// nil: Summarize, in the server.
	Judge func(ctx context.Context, req JudgeRequest) Verdict
	// JudgeEvery is the least time between the end of a judgement and
	// the start of the next (default 2s); a costly one waits longer
	// (JudgeShare).
	JudgeEvery time.Duration
}

// JudgeShare is the share of a core that judging the run so far takes at
// the most: after a judgement that cost c (its CPU time in a child, else
// its wall time) the next waits (1/JudgeShare - 1)·c, at least
// Config.JudgeEvery.
const JudgeShare = 0.2

// judgeWait is how long the next judgement waits after one that cost c.
func judgeWait(c, every time.Duration) time.Duration {
	return max(every, time.Duration(float64(c)*(1-JudgeShare)/JudgeShare))
}

// Live is one live page: the state of a run as its files grow, served
// behind the studio's guard (Host check, token) by its hardened server.
type Live struct {
	cfg   Config
	st    *State
	fol   *Follower
	token string

	mu    sync.Mutex
	done  bool
	final chan struct{} // closed by Finish
	err   string
}

// New follows cfg.Dir; Run reads it until ctx ends or Finish.
func New(cfg Config) *Live {
	if cfg.Poll <= 0 {
		cfg.Poll = 100 * time.Millisecond
	}
	if cfg.JudgeEvery <= 0 {
		cfg.JudgeEvery = 2 * time.Second
	}
	if cfg.Judge == nil {
		cfg.Judge = func(_ context.Context, req JudgeRequest) Verdict { return Summarize(req) }
	}
	st := NewState()
	if cfg.Scenario != nil {
		// An error here is the run file's too, and said when it is read.
		st.SetScenario(&trace.Event{Ev: trace.EvHeader, Run: cfg.Run, Protocol: cfg.Scenario.Protocol.Name, Driver: "node"}, cfg.Scenario)
	}
	return &Live{cfg: cfg, st: st, fol: NewFollower(cfg.Dir, st), token: studio.NewToken(), final: make(chan struct{})}
}

// State is the page's state.
func (l *Live) State() *State { return l.st }

// URL is the page's address on a server listening at addr.
func (l *Live) URL(addr net.Addr) string { return "http://" + addr.String() + "/?token=" + l.token }

// Token is the session's secret (in the URL).
func (l *Live) Token() string { return l.token }

// Finish says the run is over: Run reads the files once more, judges
// the run from them as the summary does, and returns.
func (l *Live) Finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.done = true
		close(l.final)
	}
}

// judge judges the run so far (final: the run is over) with cfg.Judge.
func (l *Live) judge(ctx context.Context, final bool) Verdict {
	req, v := request(l.cfg.Dir, l.st, final)
	if v != nil {
		return *v
	}
	return l.cfg.Judge(ctx, req)
}

// Run follows the directory until ctx ends or Finish: it reads the files
// every Poll and judges the run so far in the background, taking at most
// JudgeShare of a core (judgeWait after each judgement).
func (l *Live) Run(ctx context.Context) {
	defer l.fol.Close()
	tick := time.NewTicker(l.cfg.Poll)
	defer tick.Stop()
	judged := make(chan Verdict, 1)
	judging := false
	next := time.Now().Add(time.Second)
	poll := func() {
		if _, err := l.fol.Poll(); err != nil {
			l.mu.Lock()
			l.err = err.Error()
			l.mu.Unlock()
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.final:
			poll()
			if judging {
				<-judged
			}
			l.st.SetVerdict(l.judge(ctx, true))
			return
		case v := <-judged:
			judging = false
			l.st.SetVerdict(v)
			next = time.Now().Add(judgeWait(v.cost(), l.cfg.JudgeEvery))
		case <-tick.C:
			poll()
			if !judging && time.Now().After(next) {
				judging = true
				go func() { judged <- l.judge(ctx, l.st.Over()) }()
			}
		}
	}
}

// Handler serves the page and its API behind the studio's guard.
func (l *Live) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'")
		w.Write(page)
	})
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) {
		since, _ := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64)
		s := l.st.Snapshot(since)
		l.mu.Lock()
		done := l.done
		s.Done, s.Error = done || l.st.Over(), l.err
		l.mu.Unlock()
		s.Faults = l.cfg.Faults != nil && !done
		if p := l.fol.problems(); len(p) > 0 && s.Error == "" {
			s.Error = "lines not read: " + strings.Join(p, "; ")
		}
		s.Served = time.Now().UnixNano()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s)
	})
	mux.HandleFunc("POST /api/crash", l.fault(false))
	mux.HandleFunc("POST /api/recover", l.fault(true))
	mux.HandleFunc("POST /api/cut", l.cut(false))
	mux.HandleFunc("POST /api/heal", l.cut(true))
	return studio.Guard(l.token, mux)
}

// faultRequest reads the body of a fault by hand into req, or answers
// why not: JSON only, a page that may fault, a run not over.
func (l *Live) faultRequest(w http.ResponseWriter, r *http.Request, req any) bool {
	// As the studio's: JSON only, which another site's page cannot
	// send without a preflight this server never answers.
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		http.Error(w, "live: POST application/json only", http.StatusUnsupportedMediaType)
		return false
	}
	if l.cfg.Faults == nil {
		http.Error(w, "live: read-only (trace watch follows a run directory; faults by hand need run --live)", http.StatusForbidden)
		return false
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(req); err != nil {
		http.Error(w, "live: body: "+err.Error(), http.StatusBadRequest)
		return false
	}
	l.mu.Lock()
	done := l.done
	l.mu.Unlock()
	if done {
		http.Error(w, "live: the run is over", http.StatusConflict)
		return false
	}
	return true
}

// cut is the handler of a cut (or a heal) of a link by hand: the body
// names its two nodes as the studio's does, {"node": 1, "peer": 2}, or
// two hosts to cut apart,
// {"hosts": ["h1", "h3"]}.
func (l *Live) cut(heal bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			A     protocol.NodeID `json:"node"`
			B     protocol.NodeID `json:"peer"`
			Hosts []string        `json:"hosts"`
		}
		if !l.faultRequest(w, r, &req) {
			return
		}
		what := map[bool]string{false: "cut", true: "healed"}[heal]
		if req.Hosts != nil {
			if len(req.Hosts) != 2 || req.Hosts[0] == "" || req.Hosts[1] == "" || len(req.Hosts[0])+len(req.Hosts[1]) > 512 {
				http.Error(w, "live: hosts: want two host names", http.StatusBadRequest)
				return
			}
			if err := l.cfg.Faults.CutHosts(req.Hosts[0], req.Hosts[1], heal); err != nil {
				http.Error(w, "live: "+err.Error(), http.StatusConflict)
				return
			}
			fmt.Fprintf(w, "hosts %.100s and %.100s %s apart", req.Hosts[0], req.Hosts[1], map[bool]string{false: "cut", true: "no longer"}[heal])
			return
		}
		for _, id := range []protocol.NodeID{req.A, req.B} {
			if !l.st.Member(id) {
				http.Error(w, fmt.Sprintf("live: node %d is not a member of the run", id), http.StatusBadRequest)
				return
			}
		}
		if req.A == req.B {
			http.Error(w, fmt.Sprintf("live: no link between node %d and itself", req.A), http.StatusBadRequest)
			return
		}
		if err := l.cfg.Faults.Cut(req.A, req.B, heal); err != nil {
			http.Error(w, "live: "+err.Error(), http.StatusConflict)
			return
		}
		fmt.Fprintf(w, "link %d–%d %s", req.A, req.B, what)
	}
}

// fault is the handler of a crash (or a recovery) by hand.
func (l *Live) fault(recover bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Node protocol.NodeID `json:"node"`
		}
		if !l.faultRequest(w, r, &req) {
			return
		}
		if !l.st.Member(req.Node) {
			http.Error(w, fmt.Sprintf("live: node %d is not a member of the run", req.Node), http.StatusBadRequest)
			return
		}
		if err := l.cfg.Faults.Fault(req.Node, recover); err != nil {
			http.Error(w, "live: "+err.Error(), http.StatusConflict)
			return
		}
		what := "crashed"
		if recover {
			what = "recovered"
		}
		fmt.Fprintf(w, "node %d %s", req.Node, what)
	}
}

// Serve serves the page on ln with the studio's server until ctx ends.
func (l *Live) Serve(ctx context.Context, ln net.Listener) error {
	srv := studio.NewServer(ln, l.Handler())
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Run(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
