package protocol

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Params are a protocol's parameters as the scenario gives them: YAML
// scalars keyed by name.
type Params map[string]any

// ParamReader reads Params with defaults, remembering which keys were read
// and the first bad value, so that New can report a typo or a wrong type
// instead of silently using a default.
type ParamReader struct {
	p    Params
	used map[string]bool
	err  error
}

// Reader returns a ParamReader over p.
func (p Params) Reader() *ParamReader { return &ParamReader{p: p, used: map[string]bool{}} }

func (r *ParamReader) get(key string) (any, bool) {
	r.used[key] = true
	v, ok := r.p[key]
	return v, ok && v != nil
}

func (r *ParamReader) fail(key string, v any, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("protocol.params.%s: %v is not %s", key, v, want)
	}
}

// Duration reads a duration: a string such as "1.5s" or "200ms", or a
// number of seconds.
func (r *ParamReader) Duration(key string, def time.Duration) time.Duration {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	switch x := v.(type) {
	case string:
		d, err := time.ParseDuration(x)
		if err == nil && d >= 0 {
			return d
		}
	case int:
		if x >= 0 {
			return time.Duration(x) * time.Second
		}
	case float64:
		if x >= 0 {
			return time.Duration(x * float64(time.Second))
		}
	}
	r.fail(key, v, `a non-negative duration such as "2s" or "500ms"`)
	return def
}

// Int reads an integer.
func (r *ParamReader) Int(key string, def int) int {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	switch x := v.(type) {
	case int:
		return x
	case float64:
		if x == float64(int(x)) {
			return int(x)
		}
	}
	r.fail(key, v, "an integer")
	return def
}

// Float reads a number.
func (r *ParamReader) Float(key string, def float64) float64 {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	r.fail(key, v, "a number")
	return def
}

// String reads a string that must be one of allowed (any string when
// allowed is empty).
func (r *ParamReader) String(key, def string, allowed ...string) string {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	s, isStr := v.(string)
	if isStr && len(allowed) == 0 {
		return s
	}
	for _, a := range allowed {
		if isStr && s == a {
			return s
		}
	}
	r.fail(key, v, "one of "+strings.Join(allowed, ", "))
	return def
}

// Bool reads a boolean.
func (r *ParamReader) Bool(key string, def bool) bool {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	if b, isBool := v.(bool); isBool {
		return b
	}
	r.fail(key, v, "true or false")
	return def
}

// Any reads a value as the scenario gave it, for parameters richer than a
// scalar (a list of node IDs): the YAML decoding, such as []any of ints. It
// marks key as read; ok is false when key is absent or null. The caller
// checks the value and reports a bad one with Reject.
func (r *ParamReader) Any(key string) (v any, ok bool) { return r.get(key) }

// Reject records that key's value v is not what the protocol accepts, as
// "protocol.params.KEY: V is not WANT", for checks beyond the type (a
// range, a member of the run); Err returns the first error recorded.
func (r *ParamReader) Reject(key string, v any, want string) { r.fail(key, v, want) }

// Err returns the first bad value, or else an error naming parameters that
// were given but never read (typos), or nil.
func (r *ParamReader) Err() error {
	if r.err != nil {
		return r.err
	}
	var unknown, known []string
	for k := range r.p {
		if !r.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	for k := range r.used {
		known = append(known, k)
	}
	sort.Strings(unknown)
	sort.Strings(known)
	return fmt.Errorf("protocol.params.%s: unknown parameter (known: %s)", unknown[0], strings.Join(known, ", "))
}

// NodeIDOf reads one node ID from a decoded parameter: an integer, or a
// float with no fraction (as JSON decodes numbers), from 0 to the largest
// NodeID. Lists of IDs in protocol.params (a logical ring, initiators)
// are read entry by entry with it.
func NodeIDOf(v any) (NodeID, bool) {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case uint64:
		if x > math.MaxUint32 {
			return 0, false
		}
		n = int64(x)
	case uint32:
		n = int64(x)
	case NodeID:
		return x, true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > math.MaxUint32 {
			return 0, false
		}
		n = int64(x)
	default:
		return 0, false
	}
	if n < 0 || n > math.MaxUint32 {
		return 0, false
	}
	return NodeID(n), true
}
