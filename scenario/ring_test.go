package scenario

import (
	"fmt"
	"testing"

	"manetlab/internal/geo"
	"manetlab/protocol"
	"manetlab/protocol/logicalring"
	"manetlab/radio"
)

func init() {
	protocol.Register(protocol.Spec{Name: "test/logical-ring", LogicalRing: true,
		New: func(protocol.Config) (protocol.Process, error) { return nil, nil }})
}

// TestRingPlacementIsAPhysicalRing checks that placement: ring lays the
// nodes on a circle in the logical ring's order where each hears exactly
// its two ring neighbours under the unit-disk model.
func TestRingPlacementIsAPhysicalRing(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 8, 13, 16, 32, 64} {
		for _, ring := range []string{"random", "ascending", "descending", "[]"} {
			if ring == "[]" {
				// an explicit list: every other ID, then the rest
				ring = "["
				for i := 1; i <= n; i += 2 {
					ring += fmt.Sprint(i, ",")
				}
				for i := 2; i <= n; i += 2 {
					ring += fmt.Sprint(i, ",")
				}
				ring = ring[:len(ring)-1] + "]"
			}
			src := fmt.Sprintf("seed: 7\nnodes: {count: %d, placement: ring}\nradio: {range: 250}\nprotocol: {name: test/logical-ring, params: {ring: %s}}\n", n, ring)
			s, err := Parse([]byte(src), "ring.yaml", nil)
			if err != nil {
				t.Fatal(err)
			}
			order, err := logicalring.Resolve(s.Protocol.Params["ring"], s.MemberIDs(), s.Seed)
			if err != nil {
				t.Fatal(err)
			}
			checkPhysicalRing(t, s, order, fmt.Sprintf("n=%d ring=%s", n, ring))
		}
	}
}

func checkPhysicalRing(t *testing.T, s *Scenario, order []protocol.NodeID, what string) {
	t.Helper()
	pos := s.StartPositions()
	at := map[protocol.NodeID]geo.Vec{}
	for i, m := range s.Members() {
		at[m.ID] = pos[i]
	}
	prop, err := radio.NewPropagation(s.Radio)
	if err != nil {
		t.Fatal(err)
	}
	n := len(order)
	for k, id := range order {
		for j, other := range order {
			if j == k {
				continue
			}
			neighbour := (j-k+n)%n == 1 || (k-j+n)%n == 1
			hears := prop.InRange(geo.Dist(at[id], at[other]))
			if hears != neighbour {
				t.Fatalf("%s: node %d hears %d: %v, ring neighbours: %v (distance %.1f m)", what, id, other, hears, neighbour, geo.Dist(at[id], at[other]))
			}
		}
	}
}

// TestRingPlacementWithoutALogicalRingIsAscending: a protocol that has no
// logical ring gets the circle in ascending ID order.
func TestRingPlacementWithoutALogicalRingIsAscending(t *testing.T) {
	s, err := Parse([]byte("nodes: {count: 9, placement: ring}\n"), "ring.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkPhysicalRing(t, s, s.MemberIDs(), "floodmax")
}
