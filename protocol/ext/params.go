package ext

import (
	"encoding/json"
	"fmt"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/logicalring"
	"manetlab/protocol/reliable"
)

// DefaultTimeout is how long the adapter waits for a program's reply to
// one event before it stops the run (protocol.params.timeout).
const DefaultTimeout = 10 * time.Second

// settings are the adapter's parameters, parsed the same way by New and
// by Resolve.
type settings struct {
	cmd     []string
	timeout time.Duration
	goal    protocol.Goal
	ring    *logicalring.Ring // nil: the scenario gives no ring
	rel     reliable.Config
	args    map[string]any // the program's own parameters, given in init
	reuse   bool           // the program forgets everything at init: pool.go
	safety  string         // a safety predicate over the described states (protocol.Predicate)

	announce, control []string
	assumes           string
	name              string   // the bound's name
	exact, worst      *formula // the election's message count
	least, most       *formula // messages per entry (goal mutex)
	delay, problems   string   // the synchronisation delay and the problems, as text (goal mutex)
}

var goals = map[string]protocol.Goal{
	"best-value": protocol.GoalBestValue, "highest-id": protocol.GoalHighestID, "lowest-id": protocol.GoalLowestID,
	"mutex": protocol.GoalMutex, "none": protocol.GoalNone,
}

// parse reads p: errors name the field and what is allowed, and unknown
// keys are refused.
func parse(p protocol.Params, members []protocol.NodeID, seed uint64) (*settings, error) {
	r := p.Reader()
	s := &settings{rel: reliable.ParamsConfig(r), timeout: r.Duration("timeout", DefaultTimeout)}
	s.cmd = stringList(r, "cmd")
	if len(s.cmd) == 0 && r.Err() == nil {
		return nil, fmt.Errorf(`protocol.params.cmd: missing: the program to run for each node, as a list such as [python3, examples/anylang/changroberts.py]`)
	}
	if s.timeout == 0 {
		r.Reject("timeout", "0s", `a positive duration such as "10s"`)
	}
	s.reuse = r.Bool("reuse", false)
	s.goal = goals[r.String("goal", "best-value", "best-value", "highest-id", "lowest-id", "mutex", "none")]
	if _, ok := p["ring"]; ok && members == nil {
		r.Any("ring") // resolve: only whether there is a ring matters
		r.Any("channels")
	} else if ok {
		ring, err := logicalring.FromParams(r, members, seed, true)
		if err != nil {
			return nil, err
		}
		s.ring = ring
	}
	if v, ok := r.Any("args"); ok {
		var m map[string]any
		b, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil || m == nil {
			r.Reject("args", v, "a mapping of the program's own parameters")
		}
		s.args = m
	}
	s.announce, s.control = stringList(r, "announce"), stringList(r, "control")
	s.assumes = r.String("assumes", "")
	s.name = r.String("bound_name", "")
	s.exact = formulaParam(r, "exact")
	s.worst = formulaParam(r, "worst")
	s.safety = r.String("safety", "")
	if s.safety != "" {
		if _, err := protocol.ParsePredicate(s.safety); err != nil {
			r.Reject("safety", s.safety, "a safety predicate: "+err.Error())
		}
	}
	s.delay = r.String("delay", "not declared")
	s.problems = r.String("problems", "not declared")
	s.least = formulaParam(r, "least")
	s.most = formulaParam(r, "most")
	if (s.least != nil || s.most != nil) && s.goal != protocol.GoalMutex {
		r.Reject("least", "given", "set only with goal: mutex (messages per entry)")
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// stringList reads a list of strings (or one string) under key.
func stringList(r *protocol.ParamReader, key string) []string {
	v, ok := r.Any(key)
	if !ok {
		return nil
	}
	if s, ok := v.(string); ok {
		return []string{s}
	}
	l, ok := v.([]any)
	var out []string
	for _, x := range l {
		s, isString := x.(string)
		if !isString || s == "" {
			ok = false
			break
		}
		out = append(out, s)
	}
	if !ok {
		r.Reject(key, v, "a list of non-empty strings")
		return nil
	}
	return out
}

// formulaParam reads a formula of n under key.
func formulaParam(r *protocol.ParamReader, key string) *formula {
	v, ok := r.Any(key)
	if !ok {
		return nil
	}
	text := fmt.Sprint(v)
	f, err := parseFormula(text)
	if err != nil {
		r.Reject(key, text, err.Error())
		return nil
	}
	return &f
}
