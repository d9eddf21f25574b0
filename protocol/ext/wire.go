package ext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"manetlab/protocol"
)

// Msg is every message a program sends: its kind, as traces and the
// judge count it, and its body, the program's JSON value. It travels as
// msgpack like every protocol's messages (a string and a byte slice), and
// a receiver checks that the body is JSON before its program sees it.
type Msg struct {
	K    string `msgpack:"k"`
	Body []byte `msgpack:"b,omitempty"`
	// Says is what the message carries in the program's words (the
	// action's "says"), for the studio, the traces and the report.
	Says string `msgpack:"s,omitempty"`
}

// Kind implements protocol.Message.
func (m Msg) Kind() string { return m.K }

// maxDescribedBody is the largest body a message's line shows whole.
const maxDescribedBody = 120

// Describe implements protocol.MessageDescriber: the program's "says",
// else the kind and the body as sent (`token {"epoch":1,"id":8}`), a
// long body cut.
func (m Msg) Describe() string {
	switch {
	case m.Says != "":
		return m.Says
	case len(m.Body) == 0:
		return m.K
	case len(m.Body) > maxDescribedBody:
		// Cut at a character's start: the body is UTF-8 JSON.
		n := maxDescribedBody
		for n > 0 && !utf8.RuneStart(m.Body[n]) {
			n--
		}
		return m.K + " " + string(m.Body[:n]) + "…"
	}
	return m.K + " " + string(m.Body)
}

// MaxBody is the largest body a program may send, in bytes of JSON.
const MaxBody = 8 << 10

// kindPattern is what a message kind may be: a short lower-case word; the
// transport's prefix is reserved (protocol.TransportPrefix).
var kindPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// validKind says why kind cannot name a message, or "".
func validKind(kind string) string {
	switch {
	case !kindPattern.MatchString(kind):
		return fmt.Sprintf("kind %q is not a lower-case word of 1 to 32 letters, digits, - and _, starting with a letter", kind)
	case protocol.IsTransport(kind):
		return fmt.Sprintf("kind %q: the prefix %q is reserved for the transport", kind, protocol.TransportPrefix)
	}
	return ""
}

// ringInfo is the logical ring in init, when the scenario gives one.
type ringInfo struct {
	Order []protocol.NodeID `json:"order"`
	Next  protocol.NodeID   `json:"next"`
	Prev  protocol.NodeID   `json:"prev"`
}

// event is one line to the program. Fields not of its event are left
// out; docs/anylang.md and schema/event.json list them per event.
type event struct {
	Event    string            `json:"event"`
	Now      float64           `json:"now"`
	ID       protocol.NodeID   `json:"id,omitempty"`
	Value    *float64          `json:"value,omitempty"`
	Members  []protocol.NodeID `json:"members,omitempty"`
	Seed     *uint64           `json:"seed,omitempty"`
	Params   json.RawMessage   `json:"params,omitempty"` // init: always an object, {} for none
	Ring     *ringInfo         `json:"ring,omitempty"`
	From     protocol.NodeID   `json:"from,omitempty"`
	Hops     int               `json:"hops,omitempty"`
	Kind     string            `json:"kind,omitempty"`
	Body     json.RawMessage   `json:"body,omitempty"`
	Reliable bool              `json:"reliable,omitempty"`
	Name     string            `json:"name,omitempty"`
	Node     protocol.NodeID   `json:"node,omitempty"`
	Up       *bool             `json:"up,omitempty"`
	Unacked  []message         `json:"unacked,omitempty"`
}

// message is a message in an unreachable event.
type message struct {
	Kind string          `json:"kind"`
	Body json.RawMessage `json:"body,omitempty"`
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// action is one element of a reply.
type action struct {
	Do     string           `json:"do"`
	To     protocol.NodeID  `json:"to,omitempty"`
	Dir    string           `json:"dir,omitempty"`
	Kind   string           `json:"kind,omitempty"`
	Body   json.RawMessage  `json:"body,omitempty"`
	Says   string           `json:"says,omitempty"`
	Name   string           `json:"name,omitempty"`
	After  *float64         `json:"after,omitempty"`
	Note   string           `json:"note,omitempty"`
	Leader *protocol.NodeID `json:"leader,omitempty"`
	Value  float64          `json:"value,omitempty"`
	Epoch  json.RawMessage  `json:"epoch,omitempty"`
	Text   string           `json:"text,omitempty"`
	State  json.RawMessage  `json:"state,omitempty"`
}

// decodeReply reads one reply line: a JSON list of actions, no unknown
// field.
func decodeReply(line []byte) ([]action, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	var acts []action
	if err := d.Decode(&acts); err != nil {
		return nil, fmt.Errorf("not a JSON list of actions: %v", err)
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	if acts == nil && !bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
		return nil, fmt.Errorf("not a JSON list of actions (null)")
	}
	return acts, nil
}

// epochText reads a note's epoch: a string, or a number written as one.
func epochText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&n) == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("epoch %s is neither a string nor a number", raw)
}
