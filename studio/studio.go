// Package studio serves a simulator run in the browser, one event at a
// time: the map with the messages in flight, every node's belief and its
// protocol's own line (protocol.Describer), the pending events in the
// order the simulator would take them, the counts beside theory; and the
// controls of a sim.Controller (step, take a pending event next, drop a
// frame, crash or recover a node, rewind and branch). A session is a
// schedule (sim.Schedule), saved as a file that `manetlab sim --schedule`
// replays to the same traces. docs/studio.md describes the page and its
// JSON API.
//
// It sits on top, beside experiment: it imports sim, scenario, protocol
// and trace. The server is a driver: its handlers take one lock, and the
// run itself stays on whichever goroutine holds it.
package studio

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"manetlab/internal/mapview"
	"manetlab/internal/safefs"
	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

//go:embed page.html
var pageHTML string

// MapJS and PageCSS are the studio's map (drawMap, drawn with the map
// component the pages share, internal/mapview) and its styles, inlined in
// its page and in the live page (manetlab/live), which draws with them
// (docs/live.md).
var (
	//go:embed map.js
	MapJS string
	//go:embed page.css
	PageCSS string
)

// page is the studio's page with its map and styles inlined.
var page = []byte(Inline(pageHTML))

// Inline puts PageCSS, MapJS and the shared map component (mapview) in a
// page at its markers /*page.css*/, /*map.js*/ and <!--MAPVIEW-->: the
// page stays one self-contained file.
func Inline(html string) string {
	return strings.NewReplacer("/*page.css*/", PageCSS, "/*map.js*/", MapJS,
		"<!--MAPVIEW-->", "<style>\n"+mapview.CSS+"</style>\n<script>\n"+mapview.JS+"</script>").Replace(html)
}

// Config is what a studio serves.
type Config struct {
	Scenario *scenario.Scenario
	// Path and Sets are the scenario file and the --set overrides as
	// given, recorded in saved schedules.
	Path string
	Sets []string
	// Out is the trace directory of the session (rewritten at every
	// rewind).
	Out string
	// Schedule, when not nil, is replayed first: the studio opens at its
	// last step.
	Schedule *sim.Schedule
	// Save is where the page's "save" writes the schedule (default
	// Out/schedule.json).
	Save string
}

// Studio is one session.
type Studio struct {
	mu        sync.Mutex
	cfg       Config
	spec      protocol.Spec
	c         *sim.Controller
	obs       *observer
	branches  []sim.Schedule
	bound     *protocol.Bound
	boundErr  string
	rounds    bool // a round algorithm (protocol/rounds)
	token     string
	stop      string // why the last "next note" stopped
	violation *Violation
}

// New builds the session, paused at t = 0 (or at the schedule's last
// step).
func New(cfg Config) (*Studio, error) {
	spec, err := protocol.LookupFor(cfg.Scenario.Protocol.Name, cfg.Scenario.Protocol.Params)
	if err != nil {
		return nil, err
	}
	if cfg.Save == "" {
		cfg.Save = filepath.Join(cfg.Out, "schedule.json")
	}
	st := &Studio{cfg: cfg, spec: spec, token: NewToken(), violation: newViolation(cfg.Schedule)}
	_, st.rounds = rounds.Lookup(spec.Name)
	if cx := spec.Complexity; cx != nil && cx.Bound != nil && spec.Goal != protocol.GoalMutex {
		var ids []protocol.NodeID
		for _, m := range cfg.Scenario.Members() {
			ids = append(ids, m.ID)
		}
		if b, err := cx.Bound(ids, cfg.Scenario.Protocol.Params, cfg.Scenario.Seed); err != nil {
			st.boundErr = err.Error()
		} else {
			st.bound = &b
		}
	}
	sched := cfg.Schedule
	if sched == nil {
		sched = &sim.Schedule{}
	}
	if err := st.replay(sched.Choices, sched.Steps); err != nil {
		return nil, err
	}
	if st.violation != nil {
		st.violation.causes(st.obs, st.c.Log())
		st.obs.tracking, st.obs.lastRecv, st.obs.sends, st.obs.elections = false, nil, nil, nil
	}
	return st, nil
}

// replay rebuilds the run with choices up to step upTo.
func (st *Studio) replay(choices []sim.Choice, upTo int) error {
	if st.c != nil {
		st.c.Close()
	}
	obs := newObserver(st.spec)
	if st.violation != nil && st.obs == nil { // the first replay: to the violation
		obs.tracking, obs.lastRecv = true, map[protocol.NodeID]int{}
	}
	st.c = nil
	c, err := sim.NewController(st.cfg.Scenario, sim.Options{Out: st.cfg.Out}, obs.observe)
	if err != nil {
		return err
	}
	obs.c = c
	if err := c.Play(choices, upTo); err != nil {
		c.Close()
		return err
	}
	st.c, st.obs = c, obs
	return nil
}

// Close ends the session; its traces stay as far as it went.
func (st *Studio) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.c == nil {
		return nil
	}
	return st.c.Close()
}

// Schedule is the session so far.
func (st *Studio) Schedule() *sim.Schedule {
	h, _ := st.cfg.Scenario.Hash() // "" if it cannot be written: not checked on replay
	return &sim.Schedule{Scenario: st.cfg.Path, Seed: st.cfg.Scenario.Seed, Set: st.cfg.Sets, ScenarioHash: h,
		Steps: st.c.Steps(), Choices: st.c.Choices()}
}

// Handler serves the page and the API, to requests for 127.0.0.1 with
// the session's token (guard).
func (st *Studio) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'")
		w.Write(page)
	})
	mux.HandleFunc("GET /api/state", st.api(func(req *request) error { return nil }))
	mux.HandleFunc("POST /api/step", st.api(st.step))
	mux.HandleFunc("POST /api/note", st.api(st.note))
	mux.HandleFunc("POST /api/round", st.api(st.nextRound))
	mux.HandleFunc("POST /api/take", st.api(func(req *request) error { return st.c.Take(req.Seq) }))
	mux.HandleFunc("POST /api/drop", st.api(func(req *request) error { return st.c.Drop(req.Seq) }))
	mux.HandleFunc("POST /api/crash", st.api(func(req *request) error { return st.c.Crash(req.Node) }))
	mux.HandleFunc("POST /api/recover", st.api(func(req *request) error { return st.c.Recover(req.Node) }))
	mux.HandleFunc("POST /api/cut", st.api(func(req *request) error { return st.c.Cut(req.Node, req.Peer) }))
	mux.HandleFunc("POST /api/heal", st.api(func(req *request) error { return st.c.Heal(req.Node, req.Peer) }))
	mux.HandleFunc("POST /api/move", st.api(func(req *request) error { return st.c.Move(req.Node, req.X, req.Y) }))
	mux.HandleFunc("POST /api/rewind", st.api(st.rewind))
	mux.HandleFunc("POST /api/branch", st.api(st.branch))
	mux.HandleFunc("POST /api/save", st.api(st.save))
	mux.HandleFunc("GET /schedule.json", func(w http.ResponseWriter, r *http.Request) {
		st.mu.Lock()
		b := st.Schedule().JSON()
		st.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Disposition", `attachment; filename="schedule.json"`)
		w.Write(b)
	})
	return st.guard(mux)
}

// request is the body of every POST (the fields each action reads).
type request struct {
	// Classes are the event classes a step stops after (default
	// protocol: the algorithm's messages and timers, boots, faults,
	// commands; add transport and network to see the rest).
	Classes []string        `json:"classes"`
	N       int             `json:"n"`
	Seq     uint64          `json:"seq"`
	Node    protocol.NodeID `json:"node"`
	Peer    protocol.NodeID `json:"peer"` // cut, heal: the link's other end
	X       float64         `json:"x"`    // move: the node's new place, metres
	Y       float64         `json:"y"`
	Step    int             `json:"step"`
	Branch  int             `json:"branch"`
	// All, on GET /api/state?all=1, lists the network events too.
	All bool `json:"-"`
}

func (st *Studio) api(do func(*request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Only this page may act: a POST must be JSON (which another
		// site's page cannot send without a CORS preflight this server
		// never answers); guard has checked the Host and the token.
		if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			http.Error(w, "studio: POST application/json only", http.StatusUnsupportedMediaType)
			return
		}
		req := &request{}
		if r.Method == http.MethodPost && r.ContentLength != 0 {
			if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(req); err != nil {
				http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		// The answer is encoded under the lock and written after it: a
		// client that does not read must not hold the session.
		b, err := st.act(req, do, r.URL.Query().Get("all") == "1")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	}
}

// act does one action and returns the state after it, as JSON.
func (st *Studio) act(req *request, do func(*request) error, all bool) ([]byte, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.c == nil {
		return nil, errors.New("the session failed to rebuild; restart the studio")
	}
	var errText string
	st.stop = ""
	if err := do(req); err != nil {
		errText = err.Error()
	}
	if err := st.c.Err(); err != nil {
		errText = err.Error() // a process failed: a program per node (protocol/ext)
	}
	s := st.state(all)
	s.Error, s.Stop, s.Violation = errText, st.stop, st.violation
	return json.Marshal(s)
}

// maxSteps bounds the raw steps of one request.
const maxSteps = 200000

// step takes N events of the classes asked (one by default), with
// every event of the other classes before them.
func (st *Studio) step(req *request) error {
	classes := req.Classes
	if len(classes) == 0 {
		classes = []string{sim.ClassProtocol}
	}
	n := max(req.N, 1)
	for i := 0; i < maxSteps && n > 0; i++ {
		p, ok := st.c.Next()
		if !ok {
			return nil
		}
		st.c.Step()
		if slices.Contains(classes, p.Class) {
			n--
		}
	}
	return nil
}

// note steps to the next step a student should look at: one that made
// a note (a leader chosen, a section entered or left, an election
// started or ended, a round), or one that the protocol's rule
// (protocol.NoteStopper; protocol.DefaultStop without one: every
// algorithm message delivered, forwarded, answered or dropped, and every
// timer that sends one) asks to stop at, weighed at the live node that
// took it. It says why it stopped (State.Stop).
func (st *Studio) note(req *request) error {
	o := st.obs
	o.weigh = true
	defer func() { o.weigh = false }()
	for i := 0; i < maxSteps; i++ {
		notes, sent := len(o.notes), o.algorithm()
		o.sentKinds = o.sentKinds[:0]
		p, ok := st.c.Next()
		if !ok || !st.c.Step() {
			return fmt.Errorf("no note before the end of the run")
		}
		if len(o.notes) > notes {
			st.stop = o.notes[len(o.notes)-1].Text
			return nil
		}
		var s protocol.Step
		var at protocol.NodeID
		switch {
		case p.Type == "deliver" && p.Class == sim.ClassProtocol:
			s.Kind, at = p.Msg, cmp.Or(p.Final, p.To, p.From) // a broadcast: its sender's protocol
		case p.Type == "timer" && p.Class == sim.ClassProtocol:
			s.Timer, at = p.Name, p.Node
		default:
			continue
		}
		s.Sent = o.sentKinds
		if stop, _ := st.c.StopsAt(at, s); !stop {
			continue
		}
		if s.Timer != "" {
			st.stop = fmt.Sprintf("node %d woke up (%s) and sent %s", p.Node, p.Name, o.lastSent)
			return nil
		}
		dst := cmp.Or(p.Final, p.To)
		st.stop = fmt.Sprintf("node %d received %s: %d→%d", dst, cmp.Or(p.Says, p.Msg), cmp.Or(p.Origin, p.From), dst)
		if dst == 0 {
			st.stop = fmt.Sprintf("the nodes in range of %d received %s", p.From, cmp.Or(p.Says, p.Msg))
		}
		if o.algorithm() > sent {
			st.stop += fmt.Sprintf(" and sent %d message(s): %s", o.algorithm()-sent, o.lastSent)
		} else {
			st.stop += " and sent nothing (it keeps or drops it)"
		}
		return nil
	}
	return fmt.Errorf("no note in %d steps", maxSteps)
}

// nextRound steps a round algorithm to its next round: until a node runs
// a round above every round run so far, then on through the events of
// that instant (the other nodes' same round, in the synchronizers that
// start a round everywhere at once).
func (st *Studio) nextRound(*request) error {
	if !st.rounds {
		return fmt.Errorf("%s is not a round algorithm", st.spec.Name)
	}
	target := st.obs.maxRound + 1
	for i := 0; st.obs.maxRound < target; i++ {
		if i == maxSteps || !st.c.Step() {
			return fmt.Errorf("no round %d before the end of the run", target)
		}
	}
	now := st.c.Now()
	for {
		p, ok := st.c.Next()
		if !ok || p.At != now {
			return nil
		}
		st.c.Step()
	}
}

// rewind rebuilds the run at an earlier step, with the choices made
// before it; the choices after it are kept as a branch to go back to.
func (st *Studio) rewind(req *request) error {
	k := req.Step
	if k < 0 || k > st.c.Steps() {
		return fmt.Errorf("step %d: the session is at step %d", k, st.c.Steps())
	}
	cur := st.Schedule()
	var keep []sim.Choice
	for _, ch := range cur.Choices {
		if ch.Step < k {
			keep = append(keep, ch)
		}
	}
	if len(keep) < len(cur.Choices) {
		st.branches = append(st.branches, *cur)
	}
	return st.replay(keep, k)
}

// branch goes to a branch kept by a rewind (the current line becomes one
// in its place).
func (st *Studio) branch(req *request) error {
	if req.Branch < 0 || req.Branch >= len(st.branches) {
		return fmt.Errorf("no branch %d", req.Branch)
	}
	b := st.branches[req.Branch]
	st.branches[req.Branch] = *st.Schedule()
	return st.replay(b.Choices, b.Steps)
}

func (st *Studio) save(*request) error {
	return safefs.WriteFile(st.cfg.Save, st.Schedule().JSON())
}

// State is what GET /api/state returns (and every POST, after its
// action): the whole page's data.
type State struct {
	Scenario string   `json:"scenario"`
	Protocol string   `json:"protocol"`
	Summary  string   `json:"summary"`
	Goal     string   `json:"goal"`
	Seed     uint64   `json:"seed"`
	Step     int      `json:"step"`
	Now      float64  `json:"now"` // seconds
	End      float64  `json:"end"`
	Done     bool     `json:"done"`
	Warnings []string `json:"warnings,omitempty"`
	// Rounds: a round algorithm, which POST /api/round steps round by
	// round; Round is the highest round run so far.
	Rounds bool   `json:"rounds,omitempty"`
	Round  int    `json:"round,omitempty"`
	Error  string `json:"error,omitempty"`
	// Violation is what the schedule the studio opened violates, when
	// explore found it: shown above the map, its nodes ringed on it,
	// its chosen events marked in the history.
	Violation *Violation `json:"violation,omitempty"`
	// Stop says why a "next note" stopped where it did ("node 7
	// received token from 8, election 1: 4→7 and sent 1 message(s):
	// token from 8, election 1: 7→1").
	Stop string `json:"stop,omitempty"`

	Nodes   []NodeView    `json:"nodes"`
	Pending []sim.Pending `json:"pending"`
	// History lists the steps taken, the network's own events left out
	// unless asked (?all=1).
	History  []sim.Taken  `json:"history"`
	Notes    []Note       `json:"notes"`
	Counts   Counts       `json:"counts"`
	Theory   *Theory      `json:"theory,omitempty"`
	Mutex    *Mutex       `json:"mutex,omitempty"`
	Choices  []sim.Choice `json:"choices"`
	Branches []Branch     `json:"branches"`
	Save     string       `json:"save"`
}

// NodeView is a node on the map.
type NodeView struct {
	sim.NodeState
	// Leader is the leader this node follows (its last leader note),
	// Epoch the election that chose it; InCS: in the critical section.
	Leader protocol.NodeID `json:"leader,omitempty"`
	Epoch  string          `json:"epoch,omitempty"`
	InCS   bool            `json:"in_cs,omitempty"`
	Round  string          `json:"round,omitempty"`
	// Crashed: down by a crash (a node not alive and not crashed has
	// not started yet).
	Crashed bool `json:"crashed,omitempty"`
}

// Note is a protocol note, with the step that made it.
type Note struct {
	Step int             `json:"step"`
	At   float64         `json:"at"`
	Node protocol.NodeID `json:"node"`
	Kind string          `json:"kind"`
	Text string          `json:"text"`
}

// Counts are the messages so far: sends by kind (relays, hellos and
// retransmissions by the link apart), and as the protocol's complexity
// block classifies them.
type Counts struct {
	ByKind    map[string]uint64 `json:"by_kind"`
	Messages  uint64            `json:"messages"` // the algorithm's (election) messages
	Announce  uint64            `json:"announce"`
	Control   uint64            `json:"control"`
	Transport uint64            `json:"transport"`
	Frames    uint64            `json:"frames"` // every frame on the air
}

// Theory is the complexity block's bound for this arrangement.
type Theory struct {
	Bound protocol.Bound `json:"bound"`
	Error string         `json:"error,omitempty"`
}

// Mutex are the mutual exclusion figures so far.
type Mutex struct {
	Requests   int               `json:"requests"`
	Entries    int               `json:"entries"`
	InCS       []protocol.NodeID `json:"in_cs"`
	Violations int               `json:"violations"` // entries while another node was inside
	PerEntry   float64           `json:"per_entry"`  // algorithm messages per entry
}

// Branch is a line of choices left by a rewind.
type Branch struct {
	Steps   int `json:"steps"`
	Choices int `json:"choices"`
}

// maxPending bounds the pending events listed, maxHistory the steps (the
// latest).
const (
	maxPending = 400
	maxHistory = 2000
)

func (st *Studio) state(all bool) *State {
	c, o, sc := st.c, st.obs, st.cfg.Scenario
	s := &State{Scenario: sc.Name, Protocol: st.spec.Name, Summary: st.spec.Summary, Goal: string(st.spec.Goal), Seed: sc.Seed,
		Step: c.Steps(), Now: c.Now().Seconds(), End: c.End().Seconds(), Done: c.Done(), Warnings: c.Warnings(),
		Choices: c.Choices(), Save: st.cfg.Save, Rounds: st.rounds, Round: o.maxRound}
	if s.Choices == nil {
		s.Choices = []sim.Choice{}
	}
	for _, n := range c.Nodes() {
		v := NodeView{NodeState: n, Leader: o.leader[n.ID], Epoch: o.epoch[n.ID], InCS: o.inCS[n.ID], Round: o.round[n.ID], Crashed: !n.Alive && o.crashed[n.ID]}
		if !n.Alive {
			v.Leader, v.InCS = 0, false
		}
		v.Describe = o.nameElections(v.Describe)
		s.Nodes = append(s.Nodes, v)
	}
	s.Pending = c.Pending()
	if len(s.Pending) > maxPending {
		s.Pending = s.Pending[:maxPending]
	}
	for _, t := range c.Log() {
		if all || t.Class != sim.ClassNetwork && t.Class != sim.ClassStale {
			if t.Line == "" {
				t.Line = t.Text
			}
			s.History = append(s.History, t)
		}
	}
	if len(s.History) > maxHistory {
		s.History = s.History[len(s.History)-maxHistory:]
	}
	if s.History == nil {
		s.History = []sim.Taken{}
	}
	s.Notes = o.notes
	if s.Notes == nil {
		s.Notes = []Note{}
	}
	s.Counts = o.counts
	s.Counts.Frames = c.Frames()
	if st.bound != nil || st.boundErr != "" {
		s.Theory = &Theory{Error: st.boundErr}
		if st.bound != nil {
			s.Theory.Bound = *st.bound
		}
	}
	if st.spec.Goal == protocol.GoalMutex {
		m := o.mutex
		m.InCS = nil
		for _, n := range s.Nodes {
			if n.InCS {
				m.InCS = append(m.InCS, n.ID)
			}
		}
		if m.Entries > 0 {
			m.PerEntry = float64(o.counts.Messages) / float64(m.Entries)
		}
		s.Mutex = &m
	}
	s.Branches = []Branch{}
	for _, b := range st.branches {
		s.Branches = append(s.Branches, Branch{Steps: b.Steps, Choices: len(b.Choices)})
	}
	return s
}

// observer follows the trace as the run writes it.
type observer struct {
	c       *sim.Controller
	kinds   map[string]int // 1 announce, 2 control
	leader  map[protocol.NodeID]protocol.NodeID
	epoch   map[protocol.NodeID]string
	inCS    map[protocol.NodeID]bool
	round   map[protocol.NodeID]string
	crashed map[protocol.NodeID]bool
	// starts names each numbered election by its first start.
	starts   map[string]string
	notes    []Note
	counts   Counts
	lastSent string // what the last algorithm message sent carries, sender→receiver
	// sentKinds are the kinds of the algorithm messages sent in the
	// step under way, while note weighs steps (weigh).
	sentKinds []string
	weigh     bool
	maxRound  int
	mutex     Mutex
	// tracking: a violation's causes are looked for (violation.go):
	// the step of the last algorithm message delivered to each node,
	// the algorithm messages sent, and which of them are the election's
	// (counted in Counts.Messages).
	tracking  bool
	lastRecv  map[protocol.NodeID]int
	sends     []sent
	elections []int
	// unnumbered tells apart the elections whose starts carry no epoch
	// (bully's), to name them by initiator and start.
	unnumbered analysis.Unnumbered
}

func newObserver(spec protocol.Spec) *observer {
	o := &observer{kinds: map[string]int{}, leader: map[protocol.NodeID]protocol.NodeID{}, epoch: map[protocol.NodeID]string{},
		inCS: map[protocol.NodeID]bool{}, round: map[protocol.NodeID]string{}, crashed: map[protocol.NodeID]bool{}, starts: map[string]string{}, counts: Counts{ByKind: map[string]uint64{}}}
	if cx := spec.Complexity; cx != nil {
		for _, k := range cx.Announce {
			o.kinds[k] = 1
		}
		for _, k := range cx.Control {
			o.kinds[k] = 2
		}
	}
	return o
}

func (o *observer) observe(e *trace.Event) {
	switch e.Ev {
	case trace.EvRecv:
		if o.tracking {
			o.track(e, false)
		}
	case trace.EvSend:
		if e.Kind == "hello" {
			return
		}
		o.counts.ByKind[e.Kind]++
		switch {
		case protocol.IsTransport(e.Kind):
			o.counts.Transport++
		case o.kinds[e.Kind] == 1:
			o.counts.Announce++
		case o.kinds[e.Kind] == 2:
			o.counts.Control++
		default:
			o.counts.Messages++
		}
		if o.tracking && e.Kind != "" && !protocol.IsTransport(e.Kind) {
			o.track(e, o.kinds[e.Kind] == 0)
		}
		if !protocol.IsTransport(e.Kind) {
			o.lastSent = fmt.Sprintf("%s: %d→%d", cmp.Or(e.Text, e.Kind), e.Node, e.To)
			if e.To == 0 {
				o.lastSent = fmt.Sprintf("%s: %d→all", cmp.Or(e.Text, e.Kind), e.Node)
			}
			if o.weigh {
				o.sentKinds = append(o.sentKinds, e.Kind)
			}
		}
		return
	case trace.EvStart:
		delete(o.crashed, e.Node)
	case trace.EvCrash:
		if e.Node != 0 {
			o.crashed[e.Node] = true
			delete(o.inCS, e.Node)
			delete(o.leader, e.Node)
			o.unnumbered.Stop(e.T, e.Node, "")
		}
	}
	kind := protocol.NoteKind(e.Ev)
	if kind == protocol.NoteElectionStart && e.Epoch != "" && o.starts[e.Epoch] == "" {
		// A numbered election is named by its first start, as the
		// report does: "election by node 1 at 1.000 s".
		o.starts[e.Epoch] = "election by " + analysis.ElectionName(e.Node, time.Duration(e.T).Seconds())
	}
	named := "" // an unnumbered election's name, for its notes
	switch {
	case kind == protocol.NoteElectionStart && e.Epoch == "":
		o.unnumbered.Start(e.T, e.Node)
		named = o.electionName()
	case kind == protocol.NoteElectionEnd:
		// Under way, or just over with this epoch (a node whose end
		// note follows the leader notes that closed the election).
		if sp := o.unnumbered.Spans; o.unnumbered.Under() || e.Epoch != "" && len(sp) > 0 && sp[len(sp)-1].Epoch == e.Epoch {
			named = o.electionName()
		}
		o.unnumbered.Stop(e.T, e.Node, "")
	case kind == protocol.NoteLeader && e.Leader != protocol.None:
		o.unnumbered.Stop(e.T, e.Node, e.Epoch)
	}
	switch kind {
	case protocol.NoteLeader:
		o.leader[e.Node], o.epoch[e.Node] = e.Leader, e.Epoch
	case protocol.NoteCSRequest:
		o.mutex.Requests++
	case protocol.NoteCSEnter:
		o.mutex.Entries++
		for id, in := range o.inCS {
			if in && id != e.Node {
				o.mutex.Violations++
				break
			}
		}
		o.inCS[e.Node] = true
	case protocol.NoteCSExit:
		delete(o.inCS, e.Node)
	case protocol.NoteRound:
		o.round[e.Node] = e.Epoch
		if r, err := strconv.Atoi(e.Epoch); err == nil {
			o.maxRound = max(o.maxRound, r)
		}
	case protocol.NoteElectionStart, protocol.NoteElectionEnd, protocol.NoteParent, protocol.NoteInfo:
	default:
		return
	}
	if kind == protocol.NoteRound && len(o.notes) > 0 && o.notes[len(o.notes)-1].Kind == string(kind) && o.notes[len(o.notes)-1].Text == "round "+e.Epoch {
		return // one note per round, not one per node
	}
	text := noteText(kind, e, o.starts[e.Epoch])
	if named != "" {
		text += " (" + named + ")"
	}
	step := 0
	if o.c != nil {
		step = o.c.Steps()
	}
	o.notes = append(o.notes, Note{Step: step, At: time.Duration(e.T).Seconds(), Node: e.Node, Kind: string(kind), Text: text})
}

// electionID is an epoch in a protocol's state line: "election 1",
// "(election 969402.10)".
var electionID = regexp.MustCompile(`\belection (\d[\d.]*\d|\d)\b`)

// nameElections puts the readable name of each election a state line
// names by its epoch ID, when its start is known: "participant,
// election by node 1 at 1.000 s, successor 8".
func (o *observer) nameElections(line string) string {
	return electionID.ReplaceAllStringFunc(line, func(m string) string {
		if name := o.starts[m[len("election "):]]; name != "" {
			return name
		}
		return m
	})
}

// algorithm counts the algorithm's messages sent so far (announcements
// and control included, the transport's not).
func (o *observer) algorithm() uint64 {
	return o.counts.Messages + o.counts.Announce + o.counts.Control
}

// electionName names the unnumbered election under way (or last): "election
// by node 1 at 1.000 s", as the report page does.
func (o *observer) electionName() string {
	sp := o.unnumbered.Spans
	if len(sp) == 0 {
		return ""
	}
	s := sp[len(sp)-1]
	return fmt.Sprintf("election by node %d at %.3f s", s.Initiator, time.Duration(s.Start).Seconds())
}

// noteText is a note's line; name is its epoch's readable name, when
// the election-start that began it is known ("election by node 1 at
// 1.000 s"), which replaces the epoch's ID.
func noteText(kind protocol.NoteKind, e *trace.Event, name string) string {
	switch kind {
	case protocol.NoteLeader:
		if e.Leader == protocol.None {
			return fmt.Sprintf("node %d has no leader", e.Node)
		}
		if name != "" {
			return fmt.Sprintf("node %d follows %d (%s)", e.Node, e.Leader, name)
		}
		return fmt.Sprintf("node %d follows %d (election %s)", e.Node, e.Leader, e.Epoch)
	case protocol.NoteRound:
		return "round " + e.Epoch
	case protocol.NoteParent:
		return fmt.Sprintf("node %d: parent %d", e.Node, e.Leader)
	}
	s := fmt.Sprintf("node %d: %s", e.Node, strings.ReplaceAll(string(kind), "-", " "))
	switch {
	case name != "" && kind != protocol.NoteRound:
		s += " (" + name + ")"
	case e.Epoch != "":
		s += " " + e.Epoch
	}
	if e.Text != "" {
		s += ": " + e.Text
	}
	return s
}
