package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
)

// linksOf is node id's radio links now, as the studio draws them (both
// directions: Nodes lists each link at its lower ID).
func linksOf(c *Controller, id int) []int {
	var out []int
	for _, n := range c.Nodes() {
		if int(n.ID) == id {
			for _, p := range n.Neighbors {
				out = append(out, int(p))
			}
		}
		if slices.Contains(n.Neighbors, protocol.NodeID(id)) {
			out = append(out, int(n.ID))
		}
	}
	slices.Sort(out)
	return out
}

// TestMoveChangesLinks moves node 1 of the ring far away and back beside
// node 5: its links follow it at once, its neighbours lose it by their
// hellos, the run file records the new places, and the schedule, through
// its file, replays the session to the same bytes.
func TestMoveChangesLinks(t *testing.T) {
	s := loadCR(t)
	a, b := t.TempDir(), t.TempDir()
	c, err := NewController(s, Options{Out: a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c.Now() < 500*time.Millisecond {
		c.Step()
	}
	before := linksOf(c, 1)
	if len(before) != 2 {
		t.Fatalf("node 1 on the ring has links %v, want its two ring neighbours", before)
	}
	if err := c.Move(1, 5000, 5000); err != nil {
		t.Fatal(err)
	}
	if l := linksOf(c, 1); len(l) != 0 {
		t.Fatalf("node 1 far away still has links %v", l)
	}
	if err := c.Move(99, 0, 0); err == nil {
		t.Fatal("moved a node that does not exist")
	}
	for c.Now() < 6*time.Second {
		c.Step()
	}
	var p5 NodeState
	for _, n := range c.Nodes() {
		if n.ID == 5 {
			p5 = n
		}
	}
	if err := c.Move(1, p5.X+10, p5.Y); err != nil {
		t.Fatal(err)
	}
	after := linksOf(c, 1)
	if !slices.Contains(after, 5) || slices.Equal(after, before) {
		t.Fatalf("node 1 beside node 5 has links %v (before the moves %v)", after, before)
	}
	for _, n := range c.Nodes() {
		if n.ID == 1 && (n.X != p5.X+10 || n.Y != p5.Y) {
			t.Fatalf("node 1 is at (%g, %g), was put at (%g, %g)", n.X, n.Y, p5.X+10, p5.Y)
		}
	}
	sched := &Schedule{Seed: s.Seed, Steps: c.Steps(), Choices: c.Choices()}
	if _, err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(filepath.Join(a, fmt.Sprintf("node-%d.jsonl", before[0])))
	tr, _ := os.ReadFile(filepath.Join(a, "node-5.jsonl"))
	if !strings.Contains(string(old), `"ev":"nbr-down","peer":1`) || !strings.Contains(string(tr), `"ev":"nbr-up","peer":1`) {
		t.Fatalf("node %d did not lose node 1 when it left, or node 5 did not find it when it came", before[0])
	}
	run, _ := os.ReadFile(filepath.Join(a, "run.jsonl"))
	if !strings.Contains(string(run), `"node":1,"ev":"position","pos":[5000,5000`) {
		t.Fatalf("the run file does not record the move:\n%s", run)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, sched.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(read.Choices); n != 2 || read.Choices[1].Move == nil || read.Choices[1].Move.X != p5.X+10 {
		t.Fatalf("the schedule read back: %+v", read.Choices)
	}
	if _, err := RunSchedule(s, Options{Out: b}, read); err != nil {
		t.Fatal(err)
	}
	sameTraces(t, a, b)
}

// TestMoveUnderMobility moves a node of a random waypoint run (the
// medium's index is rebuilt per time window, not once, so a move must
// rebuild it): node 3 far from everyone has no links; node 5 put beside it
// there has a link to it, at once and two seconds on as both go on along
// their shifted paths (at most 2 m/s); the moved run replays byte for
// byte.
func TestMoveUnderMobility(t *testing.T) {
	s, err := scenario.Load("../configs/ring-chang-roberts.yaml", []string{"radio.mac=ideal", "mobility.model=random-waypoint",
		"mobility.area=[600,600]", "mobility.speed=[1,2]", "duration=6s"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := t.TempDir(), t.TempDir()
	c, err := NewController(s, Options{Out: a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c.Now() < 500*time.Millisecond {
		c.Step()
	}
	if err := c.Move(3, -5000, -5000); err != nil {
		t.Fatal(err)
	}
	if l := linksOf(c, 3); len(l) != 0 {
		t.Fatalf("node 3, moved 5 km away, has links %v", l)
	}
	for c.Now() < time.Second {
		c.Step()
	}
	if err := c.Move(5, -4995, -4995); err != nil { // node 5 joins it
		t.Fatal(err)
	}
	for _, at := range []time.Duration{0, 3 * time.Second} {
		for c.Now() < at {
			c.Step()
		}
		if l := linksOf(c, 3); !slices.Contains(l, 5) {
			t.Fatalf("at %v node 3, with node 5 put beside it, has links %v", c.Now(), l)
		}
	}
	sched := &Schedule{Choices: c.Choices()}
	if _, err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := RunSchedule(s, Options{Out: b}, sched); err != nil {
		t.Fatal(err)
	}
	sameTraces(t, a, b)
}

// TestScheduleMoveErrors: a move without its node, or beside another
// choice, is refused when the file is read, naming the file and choice.
func TestScheduleMoveErrors(t *testing.T) {
	for body, want := range map[string]string{
		`{"steps": 1, "choices": [{"step": 0, "move": {"x": 1, "y": 2}}]}`:                "choice 1: move: no node",
		`{"steps": 1, "choices": [{"step": 0, "crash": 2, "move": {"node": 1, "x": 1}}]}`: "choice 1: exactly one of take, drop, crash, recover, cut, heal, move",
		`{"steps": 1, "choices": [{"step": 0, "move": {"node": 1, "z": 1}}]}`:             `unknown field "z"`,
	} {
		path := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadSchedule(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}
