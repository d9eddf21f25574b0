package wire

import (
	"fmt"
	"reflect"

	"github.com/vmihailenco/msgpack/v5"

	"manetlab/protocol"
)

// Codec maps a protocol's message types to wire codes and encodes message
// bodies with msgpack. A message's code is its index in Spec.Messages plus
// one, so the list is append-only. A Codec is safe for concurrent use.
type Codec struct {
	name  string
	types []reflect.Type // code-1 -> type
	codes map[reflect.Type]uint16
	// bounds are checked on every decoded body (see WithBounds); the
	// finiteness of float fields always is.
	bounds Bounds
}

// NewCodec builds the codec of spec. It rejects a nil or duplicate message
// type and any type with a field msgpack would decode into an interface,
// function or channel: network bytes are never decoded into interface{}.
func NewCodec(spec protocol.Spec) (*Codec, error) {
	if len(spec.Messages) >= 1<<16 {
		return nil, fmt.Errorf("protocol %s: %d message types, at most %d", spec.Name, len(spec.Messages), 1<<16-1)
	}
	c := &Codec{name: spec.Name, codes: make(map[reflect.Type]uint16, len(spec.Messages))}
	for i, m := range spec.Messages {
		if m == nil {
			return nil, fmt.Errorf("protocol %s: message %d is nil", spec.Name, i+1)
		}
		t := reflect.TypeOf(m)
		if prev, dup := c.codes[t]; dup {
			return nil, fmt.Errorf("protocol %s: message type %v listed as %d and %d", spec.Name, t, prev, i+1)
		}
		if err := checkType(t, map[reflect.Type]bool{}); err != nil {
			return nil, fmt.Errorf("protocol %s: message type %v: %w", spec.Name, t, err)
		}
		c.types = append(c.types, t)
		c.codes[t] = uint16(i + 1)
	}
	return c, nil
}

// checkType refuses types whose decoding would let the sender choose what
// gets allocated, or that msgpack cannot carry.
func checkType(t reflect.Type, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return fmt.Errorf("an interface type (%v) would decode network bytes into whatever they declare", t)
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		return fmt.Errorf("%v cannot travel in msgpack", t)
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkType(t.Elem(), seen)
	case reflect.Map:
		if err := checkType(t.Key(), seen); err != nil {
			return err
		}
		return checkType(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("msgpack") == "-" {
				continue
			}
			if err := checkType(sf.Type, seen); err != nil {
				return fmt.Errorf("field %s: %w", sf.Name, err)
			}
		}
	}
	return nil
}

// Code returns the wire code of m's type, or false if the spec does not
// list it.
func (c *Codec) Code(m protocol.Message) (uint16, bool) {
	code, ok := c.codes[reflect.TypeOf(m)]
	return code, ok
}

// Encode returns m's code and msgpack body. It fails with ErrNotFound for a
// type the spec does not list and with ErrLength or ErrBody for a body a
// receiver would reject (over MaxBody, nested deeper than MaxDepth).
func (c *Codec) Encode(m protocol.Message) (code uint16, body []byte, err error) {
	code, ok := c.Code(m)
	if !ok {
		return 0, nil, fmt.Errorf("protocol %s: encode %T: %w", c.name, m, ErrNotFound)
	}
	body, err = msgpack.Marshal(m)
	if err != nil {
		return 0, nil, fmt.Errorf("protocol %s: encode %T: %w", c.name, m, err)
	}
	if len(body) > MaxBody {
		return 0, nil, fmt.Errorf("protocol %s: encode %T: %w: %d bytes, at most %d", c.name, m, ErrLength, len(body), MaxBody)
	}
	if err := CheckMsgpack(body); err != nil {
		return 0, nil, fmt.Errorf("protocol %s: encode %T: %w", c.name, m, err)
	}
	return code, body, nil
}

// Decode returns a new message of the type registered under code, decoded
// from body: a value when the spec lists a value, so that it equals what
// was sent. The body passes CheckMsgpack before msgpack sees it, and the
// decoded message passes the codec's Bounds (float fields finite and not
// -0, always) before it is returned. Errors wrap ErrCode, ErrLength,
// ErrBody, ErrValue or ErrMember.
func (c *Codec) Decode(code uint16, body []byte) (protocol.Message, error) {
	if code == 0 || int(code) > len(c.types) {
		return nil, fmt.Errorf("protocol %s: %w: %d (known 1 to %d)", c.name, ErrCode, code, len(c.types))
	}
	if len(body) > MaxBody {
		return nil, fmt.Errorf("protocol %s: %w: body of %d bytes, at most %d", c.name, ErrLength, len(body), MaxBody)
	}
	if err := CheckMsgpack(body); err != nil {
		return nil, fmt.Errorf("protocol %s: code %d: %w", c.name, code, err)
	}
	t := c.types[code-1]
	var v reflect.Value // what msgpack decodes into: always a pointer
	if t.Kind() == reflect.Pointer {
		v = reflect.New(t.Elem())
	} else {
		v = reflect.New(t)
	}
	if err := msgpack.Unmarshal(body, v.Interface()); err != nil {
		return nil, fmt.Errorf("protocol %s: code %d (%v): %w: %w", c.name, code, t, ErrBody, err)
	}
	var path [8]string
	if err := c.bounds.check(v, path[:0]); err != nil {
		return nil, fmt.Errorf("protocol %s: code %d (%v): %w", c.name, code, t, err)
	}
	if t.Kind() != reflect.Pointer {
		v = v.Elem()
	}
	// t came from a protocol.Message value, so the assertion holds.
	return v.Interface().(protocol.Message), nil
}
