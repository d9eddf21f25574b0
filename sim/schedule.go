package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"manetlab/internal/safefs"
	"manetlab/protocol"
)

// Schedule is a session of a Controller as a file (JSON, docs/studio.md):
// the choices made, each at the step it was made, and the step the
// session stood at. Replayed on the same scenario and seed it reaches the
// same state, and `manetlab sim --schedule` writes the same traces.
type Schedule struct {
	// Scenario, Seed and Set say what the session ran (the file path as
	// given, the seed, the --set overrides); `sim --schedule` takes Seed
	// and Set when its command line gives none.
	Scenario string   `json:"scenario,omitempty"`
	Seed     uint64   `json:"seed,omitempty"`
	Set      []string `json:"set,omitempty"`
	// ScenarioHash is the hash of the scenario the session ran
	// (scenario.Hash: the file with Set and Seed applied): `sim
	// --schedule` and `studio --schedule` refuse a schedule whose hash
	// is not that of the scenario given them, naming both ("" in
	// schedules written before it: not checked).
	ScenarioHash string `json:"scenario_hash,omitempty"`
	// Steps is where the session stood when saved; the studio opens there.
	Steps   int      `json:"steps"`
	Choices []Choice `json:"choices"`
	// Violation, in a schedule `explore` found, is what it violates: the
	// studio opens such a schedule with it shown (docs/explore.md).
	Violation *Violation `json:"violation,omitempty"`
}

// Violation is the property a schedule violates, as explore found it:
// the property, what happened (one line, naming the nodes as "node N")
// and the step it shows at.
type Violation struct {
	Property string `json:"property"`
	Witness  string `json:"witness"`
	Step     int    `json:"step"`
}

// Choice is one decision, made after Step steps: take a pending event
// next (Take, its Pending.Seq), drop a frame in flight (Drop), crash or
// recover a node, cut or heal a radio link, move a node (Move). What is
// the event as the studio listed it; a replay checks it, so that a
// schedule applied to another scenario fails plainly instead of choosing
// something else.
type Choice struct {
	Step    int             `json:"step"`
	Take    uint64          `json:"take,omitempty"`
	Drop    uint64          `json:"drop,omitempty"`
	Crash   protocol.NodeID `json:"crash,omitempty"`
	Recover protocol.NodeID `json:"recover,omitempty"`
	// Cut and Heal name a radio link by its two nodes.
	Cut  []protocol.NodeID `json:"cut,omitempty"`
	Heal []protocol.NodeID `json:"heal,omitempty"`
	// Move puts a node at a place (move.go).
	Move *MoveTo `json:"move,omitempty"`
	What string  `json:"what,omitempty"`
}

// MaxScheduleBytes bounds a schedule file, about 300,000 choices: an
// 83 MB schedule took 1.44 GB to read (issue 40).
const MaxScheduleBytes = 8 << 20

// MaxWhatBytes bounds a choice's "what", the event as the studio
// described it (a few dozen bytes).
const MaxWhatBytes = 1024

// maxField bounds the scenario's path and each --set of a schedule:
// messages quote them whole.
const maxField = 4096

// ReadSchedule reads a schedule file: a regular file (a FIFO or a device
// is refused at once) of at most MaxScheduleBytes.
func ReadSchedule(path string) (*Schedule, error) {
	f, err := safefs.OpenInput(path, "schedule", MaxScheduleBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseSchedule(safefs.Limit(f, path, "schedule", MaxScheduleBytes), path)
}

// ParseSchedule reads a schedule from r; name labels errors.
func ParseSchedule(r io.Reader, path string) (*Schedule, error) {
	var s Schedule
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		// A decoding error may quote a key of the file whole.
		if msg := err.Error(); len(msg) > 200 {
			return nil, fmt.Errorf("schedule %s: %s… (%d bytes)", path, safefs.Cut(msg, 200), len(msg))
		}
		return nil, fmt.Errorf("schedule %s: %w", path, err)
	}
	if v := s.Violation; v != nil && (len(v.Property) > maxField || len(v.Witness) > maxField) {
		return nil, fmt.Errorf("schedule %s: violation: property or witness longer than %d bytes", path, maxField)
	}
	if len(s.Scenario) > maxField {
		return nil, fmt.Errorf("schedule %s: scenario %s is longer than %d bytes", path, safefs.Short(s.Scenario, 60), maxField)
	}
	for _, set := range s.Set {
		if len(set) > maxField {
			return nil, fmt.Errorf("schedule %s: set %s is longer than %d bytes", path, safefs.Short(set, 60), maxField)
		}
	}
	last := 0
	for i, ch := range s.Choices {
		if len(ch.What) > MaxWhatBytes {
			return nil, fmt.Errorf("schedule %s: choice %d: what %s is longer than the %d bytes an event's description takes", path, i+1, safefs.Short(ch.What, 60), MaxWhatBytes)
		}
		n := 0
		if len(ch.Cut) != 0 && len(ch.Cut) != 2 || len(ch.Heal) != 0 && len(ch.Heal) != 2 {
			return nil, fmt.Errorf("schedule %s: choice %d: a link is two nodes, [a, b]", path, i+1)
		}
		for _, set := range []bool{ch.Take != 0, ch.Drop != 0, ch.Crash != 0, ch.Recover != 0, len(ch.Cut) == 2, len(ch.Heal) == 2, ch.Move != nil} {
			if set {
				n++
			}
		}
		switch {
		case ch.Move != nil && ch.Move.Node == 0:
			return nil, fmt.Errorf("schedule %s: choice %d: move: no node (\"move\": {\"node\": 1, \"x\": 120, \"y\": 80})", path, i+1)
		case n != 1:
			return nil, fmt.Errorf("schedule %s: choice %d: exactly one of take, drop, crash, recover, cut, heal, move", path, i+1)
		case ch.Step < last:
			return nil, fmt.Errorf("schedule %s: choice %d: step %d comes before the previous choice's %d", path, i+1, ch.Step, last)
		}
		last = ch.Step + 1
	}
	return &s, nil
}

// JSON is the schedule as its file holds it: indented, one choice a line.
func (s *Schedule) JSON() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n")
	if s.Scenario != "" {
		fmt.Fprintf(&b, "  \"scenario\": %s,\n", mustJSON(s.Scenario))
	}
	fmt.Fprintf(&b, "  \"seed\": %d,\n", s.Seed)
	if len(s.Set) > 0 {
		fmt.Fprintf(&b, "  \"set\": %s,\n", mustJSON(s.Set))
	}
	if s.ScenarioHash != "" {
		fmt.Fprintf(&b, "  \"scenario_hash\": %s,\n", mustJSON(s.ScenarioHash))
	}
	fmt.Fprintf(&b, "  \"steps\": %d,\n  \"choices\": [", s.Steps)
	for i, ch := range s.Choices {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    %s", mustJSON(ch))
	}
	if len(s.Choices) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]")
	if s.Violation != nil {
		fmt.Fprintf(&b, ",\n  \"violation\": %s", mustJSON(s.Violation))
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
