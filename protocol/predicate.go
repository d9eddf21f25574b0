package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// NoteState records a node's state for a safety predicate
// (Spec.Safety): Text is the state as a JSON object, noted whenever it
// changes. A protocol that declares a predicate notes its state with
// NoteStateOf.
const NoteState NoteKind = "state"

// NoteStateOf notes state (a value that encodes as a JSON object) for the
// safety predicate.
func NoteStateOf(env Env, state any) {
	b, err := json.Marshal(state)
	if err != nil {
		env.Logf("state not noted: %v", err)
		return
	}
	env.Note(Note{Kind: NoteState, Text: string(b)})
}

// Predicate is a safety predicate over the nodes' states (the JSON
// objects of their state notes): clauses joined by "and", each
//
//	count(FIELD == VALUE) <= K   at most K nodes have FIELD equal to VALUE (also <, ==)
//	agree(FIELD)                 every node whose FIELD is set (not null, 0, "" or false) has the same value
//
// FIELD is a key of the state objects, VALUE a JSON scalar. `explore`
// checks it after every step and `trace check` over the trace
// (property safety-predicate).
type Predicate struct {
	Text    string
	clauses []clause
}

type clause struct {
	agree bool
	field string
	value json.RawMessage // count: the value compared (compacted JSON)
	op    string          // count: "<=", "<" or "=="
	k     int
}

var (
	countPattern = regexp.MustCompile(`^count\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*==\s*(.+?)\s*\)\s*(<=|<|==)\s*([0-9]+)$`)
	agreePattern = regexp.MustCompile(`^agree\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$`)
)

// ParsePredicate parses a safety predicate, or says what is allowed.
func ParsePredicate(text string) (*Predicate, error) {
	p := &Predicate{Text: text}
	for _, part := range strings.Split(text, " and ") {
		part = strings.TrimSpace(part)
		if m := agreePattern.FindStringSubmatch(part); m != nil {
			p.clauses = append(p.clauses, clause{agree: true, field: m[1]})
			continue
		}
		m := countPattern.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("%q is not a clause (allowed, joined by \"and\": count(FIELD == VALUE) <= K, with < or == too; agree(FIELD))", part)
		}
		var v any
		if err := json.Unmarshal([]byte(m[2]), &v); err != nil {
			return nil, fmt.Errorf("%q: %s is not a JSON value (strings in double quotes)", part, m[2])
		}
		k, _ := strconv.Atoi(m[4])
		val, _ := json.Marshal(v)
		p.clauses = append(p.clauses, clause{field: m[1], value: val, op: m[3], k: k})
	}
	return p, nil
}

// Violated returns why states (node to its last noted state; crashed
// nodes left out) break the predicate, or "".
func (p *Predicate) Violated(states map[NodeID]json.RawMessage) string {
	ids := make([]NodeID, 0, len(states))
	for id := range states {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, c := range p.clauses {
		var match []NodeID
		var first json.RawMessage
		for _, id := range ids {
			var obj map[string]json.RawMessage
			if json.Unmarshal(states[id], &obj) != nil {
				continue
			}
			v := compact(obj[c.field])
			switch {
			case c.agree && !unset(v):
				if first == nil {
					first = v
				} else if !bytes.Equal(first, v) {
					return fmt.Sprintf("agree(%s): node %d has %s, node %d has %s", c.field, match[0], first, id, v)
				}
				match = append(match, id)
			case !c.agree && bytes.Equal(v, c.value):
				match = append(match, id)
			}
		}
		if c.agree {
			continue
		}
		n := len(match)
		if c.op == "<=" && n > c.k || c.op == "<" && n >= c.k || c.op == "==" && n != c.k {
			return fmt.Sprintf("count(%s == %s) %s %d, but %d nodes: %v", c.field, c.value, c.op, c.k, n, match)
		}
	}
	return ""
}

func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

func unset(v json.RawMessage) bool {
	switch string(v) {
	case "", "null", "0", `""`, "false":
		return true
	}
	return false
}
