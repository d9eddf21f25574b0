package sim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	_ "manetlab/ring"
	"manetlab/scenario"
)

// loadCR loads configs/ring-chang-roberts.yaml on the ideal medium.
// ideal: these tests take deliveries out of order, which the DCF medium
// never offers (its MAC orders the frames on the air).
func loadCR(t *testing.T, sets ...string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load("../configs/ring-chang-roberts.yaml", append([]string{"radio.mac=ideal"}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameTraces fails unless directories a and b hold the same files with
// the same bytes.
func sameTraces(t *testing.T, a, b string) {
	t.Helper()
	fa, _ := filepath.Glob(filepath.Join(a, "*.jsonl"))
	fb, _ := filepath.Glob(filepath.Join(b, "*.jsonl"))
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("%d trace files in %s, %d in %s", len(fa), a, len(fb), b)
	}
	for _, f := range fa {
		x, err1 := os.ReadFile(f)
		y, err2 := os.ReadFile(filepath.Join(b, filepath.Base(f)))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between %s and %s", filepath.Base(f), a, b)
		}
	}
}

// stepToProtocol steps until the next event is of class protocol and a
// delivery of msg; it fails the test at the end of the run.
func stepToDelivery(t *testing.T, c *Controller, msg string) {
	t.Helper()
	for {
		p, ok := c.Next()
		if !ok {
			t.Fatalf("no %s delivery before the end", msg)
		}
		if p.Type == "deliver" && p.Msg == msg {
			return
		}
		c.Step()
	}
}

func TestControllerWithoutChoicesIsRun(t *testing.T) {
	s := loadCR(t)
	a, b := t.TempDir(), t.TempDir()
	if _, err := Run(s, Options{Out: a}); err != nil {
		t.Fatal(err)
	}
	res, err := RunSchedule(s, Options{Out: b}, &Schedule{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Events == 0 {
		t.Fatal("no events")
	}
	sameTraces(t, a, b)
}

// session plays a session on the Chang-Roberts ring: a token taken out
// of order, a frame dropped, a node crashed; it returns the controller.
func session(t *testing.T, s *scenario.Scenario, dir string) *Controller {
	t.Helper()
	c, err := NewController(s, Options{Out: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stepToDelivery(t, c, "token")
	// Take the last offered token delivery pending, not the next one.
	var pick Pending
	for _, p := range c.Pending() {
		if p.Msg == "token" && p.Offered {
			pick = p
		}
	}
	if next, _ := c.Next(); pick.Seq == 0 || pick.Seq == next.Seq {
		t.Fatalf("no second token pending to take out of order (next %+v, pick %+v)", next, pick)
	}
	step := c.Steps()
	if err := c.Take(pick.Seq); err != nil {
		t.Fatal(err)
	}
	if log := c.Log(); log[step].Text != pick.Text || !log[step].Chosen {
		t.Fatalf("step %d is %+v, want the chosen %q", step, log[step], pick.Text)
	}
	for _, p := range c.Pending() {
		if p.Seq == pick.Seq {
			t.Fatalf("event %d still pending after Take", pick.Seq)
		}
	}
	// Drop the next token in flight.
	stepToDelivery(t, c, "token")
	next, _ := c.Next()
	if err := c.Drop(next.Seq); err != nil {
		t.Fatal(err)
	}
	if n2, _ := c.Next(); n2.Seq == next.Seq {
		t.Fatal("the dropped frame is still next")
	}
	if err := c.Take(next.Seq); err == nil {
		t.Fatal("took a dropped frame")
	}
	// Crash node 8, the best node: its pending events go.
	if err := c.Crash(8); err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Pending() {
		if p.Type == "timer" && p.Node == 8 {
			t.Fatalf("crashed node 8 still has a pending timer: %+v", p)
		}
	}
	for _, n := range c.Nodes() {
		if n.ID == 8 && n.Alive {
			t.Fatal("node 8 alive after the crash")
		}
	}
	if err := c.Crash(8); err == nil {
		t.Fatal("crashed a node twice")
	}
	if err := c.Recover(8); err != nil {
		t.Fatal(err)
	}
	for range 40 {
		c.Step()
	}
	log := c.Log()
	for i := 1; i < len(log); i++ {
		if log[i].At < log[i-1].At {
			t.Fatalf("time went back from step %d (%s at %s) to %d (%s at %s)", i-1, log[i-1].Text, log[i-1].At, i, log[i].Text, log[i].At)
		}
	}
	return c
}

func TestScheduleReplaysSession(t *testing.T) {
	s := loadCR(t)
	a, b, plain := t.TempDir(), t.TempDir(), t.TempDir()
	c := session(t, s, a)
	sched := &Schedule{Seed: s.Seed, Steps: c.Steps(), Choices: c.Choices()}
	if len(sched.Choices) != 4 {
		t.Fatalf("choices %+v, want take, drop, crash and recover", sched.Choices)
	}
	if _, err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	// Through the file and back.
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, sched.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, sched) {
		t.Fatalf("read back %+v, wrote %+v", read, sched)
	}
	if _, err := RunSchedule(s, Options{Out: b}, read); err != nil {
		t.Fatal(err)
	}
	sameTraces(t, a, b)
	// The choices changed the run: a plain run differs.
	if _, err := Run(s, Options{Out: plain}); err != nil {
		t.Fatal(err)
	}
	x, _ := os.ReadFile(filepath.Join(a, "node-8.jsonl"))
	y, _ := os.ReadFile(filepath.Join(plain, "node-8.jsonl"))
	if bytes.Equal(x, y) || !bytes.Contains(x, []byte(`"ev":"crash"`)) || !bytes.Contains(x, []byte(`"ev":"recover"`)) {
		t.Fatal("node 8's trace does not show the session's crash and recovery")
	}
	// A schedule for another scenario fails plainly.
	other := loadCR(t, "protocol.params.ring=descending")
	if _, err := RunSchedule(other, Options{Out: t.TempDir()}, read); err == nil || !strings.Contains(err.Error(), "schedule") {
		t.Fatalf("a schedule replayed on another ring: %v", err)
	}
}

func TestRewindAndRestepIsTheSame(t *testing.T) {
	s := loadCR(t)
	c := session(t, s, t.TempDir())
	defer c.Close()
	want := struct {
		P []Pending
		N []NodeState
		L []Taken
	}{c.Pending(), c.Nodes(), c.Log()}
	sched := &Schedule{Choices: c.Choices()}
	// Rewind to before the drop, then step again with the same choices.
	back, err := Replay(s, Options{Out: t.TempDir()}, sched, sched.Choices[1].Step, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if back.Steps() != sched.Choices[1].Step || len(back.Choices()) != 1 {
		t.Fatalf("rewound to step %d with %d choices", back.Steps(), len(back.Choices()))
	}
	if err := back.replay(sched.Choices[1:], len(want.L)); err != nil {
		t.Fatal(err)
	}
	got := struct {
		P []Pending
		N []NodeState
		L []Taken
	}{back.Pending(), back.Nodes(), back.Log()}
	for i := range got.L {
		got.L[i].At, want.L[i].At = 0, 0 // identical anyway; kept short in failures
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("re-stepped run differs:\n%+v\nwant\n%+v", got.N, want.N)
	}
}

func TestFIFOOfReliableChannel(t *testing.T) {
	// Hold a token back (take everything else first, but the messages of
	// its channel): its sender forwards the next token to the same
	// successor, which must not be offered before the first.
	s := loadCR(t, "protocol.params.ring=descending")
	c, err := NewController(s, Options{Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stepToDelivery(t, c, "token")
	first, _ := c.Next()
	for range 2000 {
		var take *Pending
		for _, p := range c.Pending() {
			if p.Origin == first.Origin && p.Final == first.Final {
				if !p.Offered {
					if !strings.Contains(p.Why, "FIFO") || p.Seq == first.Seq {
						t.Fatalf("%+v not offered for another reason", p)
					}
					if err := c.Take(p.Seq); err == nil || !strings.Contains(err.Error(), "FIFO") {
						t.Fatalf("took %+v: %v", p, err)
					}
					if err := c.Take(first.Seq); err != nil {
						t.Fatalf("the first token of the channel: %v", err)
					}
					return
				}
				continue
			}
			if take == nil && p.Offered {
				take = &p
			}
		}
		if take == nil {
			break
		}
		if err := c.Take(take.Seq); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no delivery held back by the channel's FIFO order")
}

func TestChoicesKeepTimeOrder(t *testing.T) {
	// A recovery queues the node's boot timers (Chang-Roberts' start timer
	// 1 s on): with the next event further away than that, they must
	// still come after it, in time order.
	s := loadCR(t, "radio.hello.period=10s", "radio.hello.timeout=30s")
	c, err := NewController(s, Options{Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for {
		p, ok := c.Next()
		if !ok {
			t.Fatal("no quiet second in the run")
		}
		if c.Now() > 2*time.Second && p.At-c.Now() > 1100*time.Millisecond {
			break
		}
		c.Step()
	}
	if err := c.Crash(3); err != nil {
		t.Fatal(err)
	}
	if err := c.Recover(3); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		c.Step()
	}
	log := c.Log()
	for i := 1; i < len(log); i++ {
		if log[i].At < log[i-1].At {
			t.Fatalf("time went back from step %d (%s at %s) to %d (%s at %s)", i-1, log[i-1].Text, log[i-1].At, i, log[i].Text, log[i].At)
		}
	}
}

func TestCutAndHealALink(t *testing.T) {
	s := loadCR(t)
	a, b := t.TempDir(), t.TempDir()
	c, err := NewController(s, Options{Out: a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c.Now() < 500*time.Millisecond {
		c.Step()
	}
	if err := c.Cut(1, 7); err != nil {
		t.Fatal(err)
	}
	if err := c.Cut(7, 1); err == nil {
		t.Fatal("cut a link twice")
	}
	for _, n := range c.Nodes() {
		if n.ID == 1 && (slices.Contains(n.Neighbors, 7) || !slices.Contains(n.Cut, 7)) {
			t.Fatalf("node 1 after the cut: neighbours %v, cut %v", n.Neighbors, n.Cut)
		}
	}
	for c.Now() < 6*time.Second {
		c.Step()
	}
	if err := c.Heal(1, 7); err != nil {
		t.Fatal(err)
	}
	sched := &Schedule{Choices: c.Choices()}
	if _, err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	tr, _ := os.ReadFile(filepath.Join(a, "node-1.jsonl"))
	down := strings.Index(string(tr), `"ev":"nbr-down","peer":7`)
	up := strings.LastIndex(string(tr), `"ev":"nbr-up","peer":7`)
	if down < 0 || up < down {
		t.Fatalf("node 1 did not lose 7 after the cut and find it after the heal:\n%s", tr)
	}
	if _, err := RunSchedule(s, Options{Out: b}, sched); err != nil {
		t.Fatal(err)
	}
	sameTraces(t, a, b)
}

func TestNotOfferedIsAboutItself(t *testing.T) {
	// Stale items (a crashed node's timers) are left out of Pending; the
	// reasons must still belong to the events they are shown on. Flooding:
	// a channel's messages are then in flight together, one frame each,
	// so some are held back (under AODV the first waits for its route).
	s := loadCR(t, "protocol.params.ring=descending", "routing.protocol=flood")
	c, err := NewController(s, Options{Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	held := 0
	for i := 0; i < 3000 && c.Step(); i++ {
		if i == 40 {
			if err := c.Crash(3); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range c.Pending() {
			if p.Offered {
				continue
			}
			held++
			if want := fmt.Sprintf("from %d to %d is FIFO", p.Origin, p.Final); p.Type != "deliver" || !strings.Contains(p.Why, want) {
				t.Fatalf("%+v: not offered for another event's reason (want %q)", p, want)
			}
		}
	}
	if held == 0 {
		t.Fatal("nothing held back: the test tests nothing")
	}
}
