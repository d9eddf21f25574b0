package wire

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"manetlab/protocol"
)

// Bounds say what a decoded message body may hold beyond being well
// formed msgpack of the right type. The codec checks them field by field
// after decoding and before anyone sees the message, so that a forged
// body cannot make a protocol keep state for made-up nodes or compare
// against values no node holds.
//
// Every float field, at any depth, must be finite and not negative zero
// (nothing a protocol carries — values, positions, times — means -0, and
// it prints and compares unlike 0). That check is unconditional; the
// fields below add the run's own limits.
type Bounds struct {
	// Member reports whether id is a node of the run. Every field of type
	// protocol.NodeID (in structs, slices, arrays, map keys and values)
	// must be protocol.None or a member. Nil accepts every ID.
	Member func(protocol.NodeID) bool
	// Float is the range hook: it is called for every float field that
	// passed the finiteness check, with the field's path ("Msg.Value",
	// "Msgs[].Value") and its value, and returns why the value is out of
	// range, or nil. Nil accepts every finite value.
	Float func(field string, v float64) error
}

// WithBounds returns a copy of c that checks b on every Decode.
func (c *Codec) WithBounds(b Bounds) *Codec {
	d := *c
	d.bounds = b
	return &d
}

// check walks a decoded message. path holds the field names down
// to v, joined only when a field fails.
func (b *Bounds) check(v reflect.Value, path []string) error {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		x := v.Float()
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return fmt.Errorf("%w: %s is %v", ErrValue, fieldPath(path), x)
		case x == 0 && math.Signbit(x):
			return fmt.Errorf("%w: %s is -0", ErrValue, fieldPath(path))
		}
		if b.Float != nil {
			if err := b.Float(fieldPath(path), x); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrValue, fieldPath(path), err)
			}
		}
	case reflect.Uint32:
		if v.Type() == nodeIDType && b.Member != nil {
			if id := protocol.NodeID(v.Uint()); id != protocol.None && !b.Member(id) {
				return fmt.Errorf("%w: %s is node %d, not a member of the run", ErrMember, fieldPath(path), id)
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return b.check(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		path = append(path, "[]")
		for i := 0; i < v.Len(); i++ {
			if err := b.check(v.Index(i), path); err != nil {
				return err
			}
		}
	case reflect.Map:
		path = append(path, "{}")
		it := v.MapRange()
		for it.Next() {
			if err := b.check(it.Key(), path); err != nil {
				return err
			}
			if err := b.check(it.Value(), path); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("msgpack") == "-" {
				continue
			}
			if err := b.check(v.Field(i), append(path, sf.Name)); err != nil {
				return err
			}
		}
	}
	return nil
}

var nodeIDType = reflect.TypeOf(protocol.None)

// pathJoints writes element and entry marks without the dot before them.
// Built once: building a Replacer for every field checked cost a node a
// fifth of its CPU per received frame (issue 15).
var pathJoints = strings.NewReplacer(".[]", "[]", ".{}", "{}")

// fieldPath names a field for Bounds.Float and errors: "Value",
// "Votes[].Value", "Table{}.Leader".
func fieldPath(path []string) string {
	if len(path) == 1 {
		return path[0]
	}
	return pathJoints.Replace(strings.Join(path, "."))
}
