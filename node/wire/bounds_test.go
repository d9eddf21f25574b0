package wire

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"manetlab/protocol"
)

// testNested holds node IDs and floats below the top level.
type testNested struct {
	Msg struct {
		IDs []protocol.NodeID
		At  map[protocol.NodeID]float32
	}
}

func (testNested) Kind() string { return "nested" }

func TestCodecBoundsPerField(t *testing.T) {
	spec := protocol.Spec{Name: "test/bounds", Messages: []protocol.Message{testPing{}, testNested{}}}
	plain, err := NewCodec(spec)
	if err != nil {
		t.Fatal(err)
	}
	members := map[protocol.NodeID]bool{1: true, 2: true, 3: true}
	c := plain.WithBounds(Bounds{
		Member: func(id protocol.NodeID) bool { return members[id] },
		Float: func(field string, v float64) error {
			if field == "Value" && (v < 0 || v > 100) {
				return fmt.Errorf("%v outside [0, 100]", v)
			}
			return nil
		},
	})
	nested := func(ids []protocol.NodeID, at map[protocol.NodeID]float32) testNested {
		var m testNested
		m.Msg.IDs, m.Msg.At = ids, at
		return m
	}
	cases := []struct {
		name  string
		m     protocol.Message
		want  error  // from c; nil: accepted
		field string // named in the error
		plain error  // from the codec without bounds
	}{
		{"good", testPing{Leader: 2, Value: 50}, nil, "", nil},
		{"no leader", testPing{Leader: protocol.None, Value: 0}, nil, "", nil},
		{"NaN", testPing{Leader: 1, Value: math.NaN()}, ErrValue, "Value", ErrValue},
		{"+Inf", testPing{Leader: 1, Value: math.Inf(1)}, ErrValue, "Value", ErrValue},
		{"-Inf", testPing{Leader: 1, Value: math.Inf(-1)}, ErrValue, "Value", ErrValue},
		{"-0", testPing{Leader: 1, Value: math.Copysign(0, -1)}, ErrValue, "Value", ErrValue},
		{"1e308", testPing{Leader: 1, Value: 1e308}, ErrValue, "Value", nil},
		{"stranger", testPing{Leader: 77, Value: 5}, ErrMember, "Leader", nil},
		{"stranger in a slice", nested([]protocol.NodeID{1, 2, 4_000_000}, nil), ErrMember, "Msg.IDs[]", nil},
		{"stranger as a map key", nested(nil, map[protocol.NodeID]float32{9: 1}), ErrMember, "Msg.At{}", nil},
		{"NaN float32 in a map", nested(nil, map[protocol.NodeID]float32{3: float32(math.NaN())}), ErrValue, "Msg.At{}", ErrValue},
		{"good nested", nested([]protocol.NodeID{3, 1}, map[protocol.NodeID]float32{2: 0.5}), nil, "", nil},
	}
	for _, tc := range cases {
		code, body, err := c.Encode(tc.m)
		if err != nil {
			t.Fatalf("%s: encode: %v", tc.name, err)
		}
		_, err = c.Decode(code, body)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: decode error %v, want %v", tc.name, err, tc.want)
		} else if err != nil && !containsField(err.Error(), tc.field) {
			t.Errorf("%s: error %q does not name field %s", tc.name, err, tc.field)
		}
		if _, err := plain.Decode(code, body); !errors.Is(err, tc.plain) || (tc.plain == nil) != (err == nil) {
			t.Errorf("%s: without bounds: %v, want %v", tc.name, err, tc.plain)
		}
	}
}

func containsField(s, field string) bool {
	for i := 0; i+len(field) <= len(s); i++ {
		if s[i:i+len(field)] == field && (i+len(field) == len(s) || s[i+len(field)] == ' ' || s[i+len(field)] == ':') {
			return true
		}
	}
	return false
}

func TestClockRefusesStampsBeyondMaxOffset(t *testing.T) {
	pt := &fakeTime{t: 10 * int64(time.Second)}
	c := NewClock(pt.now)
	c.SetMaxOffset(500 * time.Millisecond)
	near := HLC{Wall: pt.t + int64(400*time.Millisecond), Logical: 3}
	if h, err := c.UpdateChecked(near); err != nil || h != (HLC{near.Wall, 4}) {
		t.Errorf("400ms ahead: %+v, %v; want taken", h, err)
	}
	for _, far := range []HLC{{Wall: pt.t + int64(time.Second)}, {Wall: math.MaxInt64, Logical: math.MaxUint32}} {
		before := c.Last()
		h, err := c.UpdateChecked(far)
		if !errors.Is(err, ErrClock) {
			t.Errorf("%+v: error %v, want ErrClock", far, err)
		}
		if h.Compare(before) <= 0 || h.Wall >= far.Wall {
			t.Errorf("%+v: stamped %+v after %+v, want a local tick", far, h, before)
		}
	}
	if n := c.Refused(); n != 2 {
		t.Errorf("refused %d, want 2", n)
	}
	// Without a maximum, as before: the stamp is taken.
	c.SetMaxOffset(0)
	if h := c.Update(HLC{Wall: math.MaxInt64 - 5}); h.Wall != math.MaxInt64-5 {
		t.Errorf("no maximum: %+v", h)
	}
}

func TestRunIDAtTellsReusedNamesApart(t *testing.T) {
	if RunIDAt("demo", 0) != RunID("demo") {
		t.Error("no start: not the name's ID")
	}
	a, b := RunIDAt("demo", 1_700_000_000_000_000_000), RunIDAt("demo", 1_700_000_000_001_000_000)
	if a == b || a == RunID("demo") {
		t.Errorf("same name, other start: %#x %#x %#x", a, b, RunID("demo"))
	}
	if a != RunIDAt("demo", 1_700_000_000_000_000_000) {
		t.Error("not deterministic")
	}
}
