package mutex

import (
	"fmt"
	"reflect"
	"strings"

	"manetlab/protocol"
)

// This file is the composition of a mutual exclusion algorithm with an
// election it embeds (the centralized algorithm's coordinator): a wrapping
// Env that hears the election's notes, the reading of the election's name
// and parameters, and the union of message lists for Spec.Messages.

// noteTap is an Env that passes everything through to the driver's Env and
// also hands every note to tap, after recording it: the embedding protocol
// learns the election's leader (protocol.NoteLeader) from the trace note
// the election makes anyway.
type noteTap struct {
	protocol.Env
	tap func(protocol.Note)
}

// Note records n, then tells the tap.
func (e noteTap) Note(n protocol.Note) {
	e.Env.Note(n)
	if e.tap != nil {
		e.tap(n)
	}
}

// tapNotes returns env wrapped so that tap hears every note.
func tapNotes(env protocol.Env, tap func(protocol.Note)) protocol.Env {
	return noteTap{Env: env, tap: tap}
}

// embedded is an election built inside another protocol.
type embedded struct {
	name string
	proc protocol.Process
}

// embedElection reads protocol.params.election (one of supported, def when
// absent) and protocol.params.election_params (a map, the election's own
// parameters, so that they cannot collide with the embedding protocol's
// keys), and builds the election for cfg with its Env wrapped by
// tapNotes(tap). A bad name or a bad election parameter is an error naming
// the field (the caller still reports r.Err, read after its own keys); a Warning from the election's New is returned with the
// process, its text prefixed with the field.
func embedElection(cfg protocol.Config, r *protocol.ParamReader, supported []string, def string, tap func(protocol.Note)) (*embedded, error) {
	name := r.String("election", def) // a badly typed value is in r.Err: the caller reports it
	ok := false
	for _, s := range supported {
		ok = ok || s == name
	}
	if !ok {
		return nil, fmt.Errorf("protocol.params.election: %q is not a supported election (supported: %s)", name, strings.Join(supported, ", "))
	}
	spec, err := protocol.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("protocol.params.election: %q is not registered in this binary (supported: %s)", name, strings.Join(supported, ", "))
	}
	params := protocol.Params{}
	if v, given := r.Any("election_params"); given {
		m, isMap := asParams(v)
		if !isMap {
			return nil, fmt.Errorf("protocol.params.election_params: %v (%T) is not a map of the election's parameters", v, v)
		}
		params = m
	}
	inner := cfg
	inner.Params = params
	inner.Env = tapNotes(cfg.Env, tap)
	proc, err := spec.New(inner)
	warn, legal := protocol.Warned(err)
	if !legal {
		return nil, fmt.Errorf("protocol.params.election_params (for %s): %w", name, trimField(err))
	}
	e := &embedded{name: name, proc: proc}
	if warn != nil {
		return e, &protocol.Warning{Text: "protocol.params.election_params (for " + name + "): " + warn.Text}
	}
	return e, nil
}

// asParams converts a decoded map (YAML gives map[string]any, older
// decoders map[any]any, code protocol.Params) into Params; false when v is
// no map or has a key that is not a string.
func asParams(v any) (protocol.Params, bool) {
	out := protocol.Params{}
	switch m := v.(type) {
	case protocol.Params:
		for k, x := range m {
			out[k] = x
		}
	case map[string]any:
		for k, x := range m {
			out[k] = x
		}
	case map[any]any:
		for k, x := range m {
			ks, isStr := k.(string)
			if !isStr {
				return nil, false
			}
			out[ks] = x
		}
	default:
		return nil, false
	}
	return out, true
}

// trimField turns the election's "protocol.params.rto: ..." into
// "rto: ...", so that the wrapped error names election_params.rto once.
func trimField(err error) error {
	s := err.Error()
	if rest, cut := strings.CutPrefix(s, "protocol.params."); cut {
		return fmt.Errorf("%s", rest)
	}
	return err
}

// unionMessages concatenates message lists keeping the first of each Go
// type, in order: the embedding protocol's own first, then each
// election's. The wire codec numbers messages by their index, so the
// lists passed in and their order must only ever be appended to.
func unionMessages(lists ...[]protocol.Message) []protocol.Message {
	seen := map[reflect.Type]bool{}
	var out []protocol.Message
	for _, l := range lists {
		for _, m := range l {
			t := reflect.TypeOf(m)
			if seen[t] {
				continue
			}
			seen[t] = true
			out = append(out, m)
		}
	}
	return out
}
