package scenario

import (
	"math"
	"reflect"
	"testing"
	"time"

	"manetlab/mobility"
)

func TestMembersDeterministic(t *testing.T) {
	a := mustParse(t, "nodes: {count: 50}")
	b := mustParse(t, "nodes: {count: 50}")
	c := mustParse(t, "nodes: {count: 50}", "seed=2")
	ma, mb, mc := a.Members(), b.Members(), c.Members()
	if !reflect.DeepEqual(ma, mb) {
		t.Error("same seed gave different members")
	}
	if reflect.DeepEqual(ma, mc) {
		t.Error("seeds 1 and 2 gave the same values")
	}
	distinct := map[float64]bool{}
	for i, m := range ma {
		if m.ID != mc[i].ID || int(m.ID) != i+1 || m.Index != i {
			t.Errorf("member %d: %+v (IDs must be 1..n in order whatever the seed)", i, m)
		}
		if m.Value < 0 || m.Value >= 100 || math.Abs(m.Value*1000-math.Round(m.Value*1000)) > 1e-6 {
			t.Errorf("value %v not in [0,100) with 3 decimals", m.Value)
		}
		distinct[m.Value] = true
	}
	if len(distinct) < 45 {
		t.Errorf("only %d distinct values among 50", len(distinct))
	}
	// values: id gives value = ID.
	for _, m := range mustParse(t, "nodes: {count: 5, values: id}").Members() {
		if m.Value != float64(m.ID) {
			t.Errorf("values id: %+v", m)
		}
	}
}

func TestGivenValueLeavesOthers(t *testing.T) {
	a := mustParse(t, "nodes: {list: [{}, {}, {}]}").Members()
	b := mustParse(t, "nodes: {list: [{}, {value: 42}, {}]}").Members()
	if b[1].Value != 42 || a[0] != b[0] || a[2] != b[2] {
		t.Errorf("giving node 2's value moved the others: %v vs %v", a, b)
	}
}

// positions samples every node at a few instants.
func positions(t *testing.T, s *Scenario) [][3]float64 {
	t.Helper()
	m, err := s.MobilityModel()
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != s.Nodes.size() {
		t.Fatalf("model has %d nodes, scenario %d", m.Len(), s.Nodes.size())
	}
	var out [][3]float64
	for _, at := range []time.Duration{0, 7 * time.Second, 31 * time.Second} {
		for i := range m.Len() {
			p := m.Position(i, at)
			out = append(out, [3]float64{p.X, p.Y, p.Z})
		}
	}
	return out
}

func TestMobilityDeterministic(t *testing.T) {
	src := "nodes: {count: 15}\nmobility: {model: random-waypoint, area: [500, 300], speed: [1, 5]}\n"
	a, b, c := mustParse(t, src), mustParse(t, src), mustParse(t, src, "seed=9")
	pa, pb, pc := positions(t, a), positions(t, b), positions(t, c)
	if !reflect.DeepEqual(pa, pb) {
		t.Error("same seed gave different motion")
	}
	if reflect.DeepEqual(pa, pc) {
		t.Error("seeds 1 and 9 gave the same motion")
	}
	for _, p := range pa {
		if p[0] < 0 || p[0] > 500 || p[1] < 0 || p[1] > 300 {
			t.Fatalf("position %v outside the 500x300 area", p)
		}
	}
	// Placement and motion do not share a stream with the values: node
	// values from the same seed must not equal the x coordinates scaled.
	if a.Members()[0].Value == math.Floor(pa[0][0]/500*1e5)/1e3 {
		t.Error("values and placement draw from the same stream")
	}
}

func TestStartPositions(t *testing.T) {
	s := mustParse(t, "nodes: {count: 10, placement: grid}\nmobility: {area: [400, 300]}\n")
	pos := s.StartPositions()
	// 10 nodes: ceil(sqrt(10)) = 4 columns, 3 rows: cells 100 x 100.
	if pos[0].X != 50 || pos[0].Y != 50 || pos[3].X != 350 || pos[4].X != 50 || pos[4].Y != 150 || pos[9].Y != 250 {
		t.Errorf("grid = %v", pos)
	}
	// A listed position wins over placement and does not move the others.
	a := mustParse(t, "nodes: {list: [{}, {}, {}]}").StartPositions()
	b := mustParse(t, "nodes: {list: [{}, {pos: [1, 2, 3]}, {}]}").StartPositions()
	if b[1].X != 1 || b[1].Y != 2 || b[1].Z != 3 || a[0] != b[0] || a[2] != b[2] {
		t.Errorf("listed position: %v vs %v", a, b)
	}
	m, err := mustParse(t, "nodes: {list: [{pos: [5, 5]}]}").MobilityModel()
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Position(0, 10*time.Second); p.X != 5 || p.Y != 5 || m.MaxSpeed() != 0 {
		t.Errorf("static node at %v, max speed %v", p, m.MaxSpeed())
	}
}

func TestWaypoints(t *testing.T) {
	src := `nodes:
  list:
    - pos: [0, 0]
      waypoints: [{at: 10s, pos: [100, 0]}]
    - pos: [50, 50]
mobility: {model: waypoints}
`
	m, err := mustParse(t, src).MobilityModel()
	if err != nil {
		t.Fatal(err)
	}
	var _ mobility.Model = m
	if p := m.Position(0, 10*time.Second); math.Abs(p.X-100) > 1e-9 || p.Y != 0 {
		t.Errorf("node 0 at 10s: %v, want (100, 0)", p)
	}
	if p := m.Position(1, 5*time.Second); p.X != 50 || p.Y != 50 {
		t.Errorf("node 1 without waypoints moved: %v", p)
	}
}
