package ring

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// newProc builds node cfg.ID of alg with a network-less Env.
func newProc(alg string, members []protocol.NodeID, params protocol.Params) (protocol.Process, error) {
	spec, err := protocol.Lookup(alg)
	if err != nil {
		return nil, err
	}
	env := protonet.NewEnv(nil, members[0])
	return spec.New(protocol.Config{ID: members[0], Members: members, Params: params, Seed: 1, Env: env})
}

func TestBadParamsAreRefusedWithTheFieldName(t *testing.T) {
	members := []protocol.NodeID{1, 2, 3, 4, 5, 6, 7, 8}
	cases := []struct {
		algs   []string
		params protocol.Params
		want   string
	}{
		{algorithms, protocol.Params{"ring": []any{1, 2, 3, 42, 5, 6, 7, 8}}, "protocol.params.ring: node 42 is not a member (members: 1-8)"},
		{algorithms, protocol.Params{"ring": []any{1, 2, 3}}, "protocol.params.ring: leaves out member 4"},
		{algorithms, protocol.Params{"ring": "sideways"}, `protocol.params.ring: "sideways" is not random, ascending, descending or a list of node IDs`},
		{algorithms, protocol.Params{"initiators": []any{1, 42}}, "protocol.params.initiators: node 42 is not a member (members: 1-8)"},
		{algorithms, protocol.Params{"initiators": "some"}, `protocol.params.initiators: "some" is not all, one or a list of node IDs`},
		{algorithms, protocol.Params{"initiators": []any{1, "two"}}, "protocol.params.initiators: [1 two] is not all, one or a list of node IDs"},
		{algorithms, protocol.Params{"initiators": []any{}}, "protocol.params.initiators: an empty list is not all, one or a list of node IDs"},
		{algorithms, protocol.Params{"initiators": []any{3, 3}}, "protocol.params.initiators: node 3 is not listed once"},
		{algorithms, protocol.Params{"initiators": 2.5}, "protocol.params.initiators: 2.5 is not all, one or a list of node IDs"},
		{algorithms, protocol.Params{"start": "soon"}, "protocol.params.start: soon is not a non-negative duration"},
		{algorithms, protocol.Params{"retries": -1}, "protocol.params.retries: -1 is not a non-negative integer"},
		{algorithms, protocol.Params{"channels": "both"}, "protocol.params.channels: both is not one of unidirectional, bidirectional"},
		{[]string{HirschbergSinclair}, protocol.Params{"channels": "unidirectional"}, "protocol.params.channels: unidirectional, but the algorithm sends both ways (allowed: bidirectional)"},
		{[]string{LeLann, ChangRoberts, HirschbergSinclair}, protocol.Params{"intiators": "all"}, "protocol.params.intiators: unknown parameter (known: channels, initiators, retries, ring, rto, start)"},
		{[]string{Tanenbaum}, protocol.Params{"intiators": "all"}, "protocol.params.intiators: unknown parameter (known: channels, check, initiators, retries, ring, rto, start, timeout)"},
		{[]string{LeLann, ChangRoberts, HirschbergSinclair}, protocol.Params{"check": "1s"}, "protocol.params.check: unknown parameter"},
		{[]string{Tanenbaum}, protocol.Params{"check": "0s"}, `protocol.params.check: 0s is not a positive duration such as "2s"`},
		{[]string{Tanenbaum}, protocol.Params{"timeout": "never"}, "protocol.params.timeout: never is not a non-negative duration"},
	}
	for _, c := range cases {
		for _, alg := range c.algs {
			_, err := newProc(alg, members, c.params)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %v: New error %v, want %q", alg, c.params, err, c.want)
			}
			spec, _ := protocol.Lookup(alg)
			if _, err := spec.Complexity.Bound(members, c.params, 1); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %v: Bound error %v, want %q", alg, c.params, err, c.want)
			}
		}
	}
}

func TestGoodParams(t *testing.T) {
	members := []protocol.NodeID{2, 4, 6, 8}
	for _, c := range []struct {
		params protocol.Params
		want   []protocol.NodeID
	}{
		{nil, members},
		{protocol.Params{"initiators": "all"}, members},
		{protocol.Params{"initiators": "one"}, []protocol.NodeID{2}},
		{protocol.Params{"initiators": []any{8, 4}}, []protocol.NodeID{4, 8}},
		{protocol.Params{"initiators": []int{6}}, []protocol.NodeID{6}},
		{protocol.Params{"initiators": []any{6.0}}, []protocol.NodeID{6}}, // as JSON decodes numbers
		{protocol.Params{"initiators": 4}, []protocol.NodeID{4}},
	} {
		s, err := parse(ChangRoberts, c.params, members, 1, 0)
		if err != nil || !reflect.DeepEqual(s.initiators, c.want) {
			t.Errorf("%v: initiators %v, %v; want %v", c.params, s, err, c.want)
		}
	}
	s, err := parse(Tanenbaum, protocol.Params{"start": "2s", "rto": "50ms", "retries": 3, "check": "500ms", "timeout": 5, "channels": "bidirectional", "ring": "descending"}, members, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.start != 2*time.Second || s.check != 500*time.Millisecond || s.timeout != 5*time.Second || s.rel.Timeout != 50*time.Millisecond || s.rel.Retries != 3 {
		t.Fatalf("settings %+v", s)
	}
	if got := s.ring.Order(); !reflect.DeepEqual(got, []protocol.NodeID{8, 6, 4, 2}) {
		t.Fatalf("descending ring %v", got)
	}
}

// TestDefaultTimeoutCoversFailureDetection: the default election timeout
// outlasts the channel's detection of one dead successor.
func TestDefaultTimeoutCoversFailureDetection(t *testing.T) {
	for _, c := range []struct {
		params protocol.Params
		n      int
		want   time.Duration
	}{
		{nil, 8, 12600*time.Millisecond + 6400*time.Millisecond},
		{protocol.Params{"rto": "50ms", "retries": 3}, 4, 750*time.Millisecond + 800*time.Millisecond},
		{protocol.Params{"retries": 0}, 2, 200*time.Millisecond + 1600*time.Millisecond},
	} {
		s, err := parse(Tanenbaum, c.params, ids(c.n), 1, 0)
		if err != nil || s.timeout != c.want {
			t.Errorf("%v n=%d: timeout %v, %v; want %v", c.params, c.n, s.timeout, err, c.want)
		}
	}
	// Under AODV (route delay 1.92 s) the channel gives up 1.92 s later
	// and each member's hop may wait 1.92 s for its route.
	s, err := parse(Tanenbaum, nil, ids(8), 1, 1920*time.Millisecond)
	if want := 14520*time.Millisecond + 6400*time.Millisecond + 8*1920*time.Millisecond; err != nil || s.timeout != want || s.rel.FirstWait() != 2120*time.Millisecond {
		t.Errorf("under AODV: timeout %v, first wait %v, %v; want %v and 2.12s", s.timeout, s.rel.FirstWait(), err, want)
	}
}
