package logicalring

import (
	"slices"
	"strings"
	"testing"

	"manetlab/protocol"
)

func TestFromParams(t *testing.T) {
	members := span(1, 4)
	for _, c := range []struct {
		p      protocol.Params
		bidi   bool
		want   []protocol.NodeID
		errHas string
	}{
		{p: protocol.Params{"ring": "descending"}, want: ids(4, 3, 2, 1)},
		{p: protocol.Params{"ring": []any{2, 4, 1, 3}, "channels": "bidirectional"}, want: ids(2, 4, 1, 3)},
		{p: protocol.Params{"ring": "ascending", "channels": "unidirectional"}, want: ids(1, 2, 3, 4)},
		{p: protocol.Params{"ring": "ascending"}, bidi: true, want: ids(1, 2, 3, 4)},
		{p: protocol.Params{"ring": "ascending", "channels": "unidirectional"}, bidi: true,
			errHas: "protocol.params.channels: unidirectional, but the algorithm sends both ways (allowed: bidirectional)"},
		{p: protocol.Params{"ring": []any{1, 2, 3}}, errHas: "protocol.params.ring: leaves out member 4"},
	} {
		r := c.p.Reader()
		ring, err := FromParams(r, members, 1, c.bidi)
		if c.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("%v: error %v, want %q", c.p, err, c.errHas)
			}
			continue
		}
		if err != nil || r.Err() != nil || !slices.Equal(ring.Order(), c.want) {
			t.Errorf("%v: %v, %v, %v; want %v", c.p, ring, err, r.Err(), c.want)
		}
	}
}

func TestFromParamsDefaultIsTheSeededRandomRing(t *testing.T) {
	members := span(1, 8)
	ring, err := FromParams(protocol.Params{}.Reader(), members, 99, false)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Resolve(nil, members, 99)
	if !slices.Equal(ring.Order(), want) {
		t.Fatalf("default ring %v, want Resolve's %v", ring.Order(), want)
	}
}

func TestFromParamsBadChannelsGoToTheReader(t *testing.T) {
	r := protocol.Params{"channels": "both", "rign": "ascending"}.Reader()
	if _, err := FromParams(r, span(1, 3), 1, false); err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "protocol.params.channels: both is not one of unidirectional, bidirectional") {
		t.Fatalf("reader error %v", err)
	}
	r = protocol.Params{"rign": "ascending"}.Reader()
	FromParams(r, span(1, 3), 1, false)
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "protocol.params.rign: unknown parameter (known: channels, ring)") {
		t.Fatalf("a misspelt ring: %v", err)
	}
}
