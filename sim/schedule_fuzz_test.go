package sim

import (
	"bytes"
	"strings"
	"testing"
)

// scheduleSeeds are the files FuzzReadSchedule starts from: what the
// studio and the explorer write, and shapes the reader must refuse.
var scheduleSeeds = []string{
	"{\n  \"scenario\": \"configs/ring-chang-roberts.yaml\",\n  \"seed\": 1,\n  \"set\": [\"radio.mac=ideal\"],\n  \"steps\": 12,\n  \"choices\": [\n    {\"step\":3,\"take\":17,\"what\":\"token 1→2\"},\n    {\"step\":5,\"crash\":2},\n    {\"step\":6,\"cut\":[1,3]},\n    {\"step\":7,\"move\":{\"node\":1,\"x\":120,\"y\":80}}\n  ]\n}\n",
	`{"steps": 0, "choices": []}`,
	`{"steps": 1, "choices": [{"step": 0, "take": 1, "drop": 2}]}`,
	`{"steps": 1, "choices": [{"step": 2}, {"step": 1, "heal": [1]}]}`,
	`{"steps": 1, "choices": [{"step": 0, "take": 1, "what": "` + strings.Repeat("x", MaxWhatBytes+1) + `"}]}`,
	`{"steps": 1, "` + strings.Repeat("k", 1000) + `": 1}`,
	`{"steps": "many"}`,
	``,
}

// FuzzReadSchedule feeds arbitrary files to the schedule reader: it must
// not panic, its messages must stay short whatever the file holds (they
// quote at most a prefix of a value), and what it accepts must be written
// back (Schedule.JSON) to a file that reads the same.
func FuzzReadSchedule(f *testing.F) {
	for _, s := range scheduleSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSchedule(bytes.NewReader(data), "fuzz")
		if err != nil {
			if len(err.Error()) > 400 {
				t.Fatalf("a message of %d bytes: %.200s", len(err.Error()), err)
			}
			return
		}
		for i, ch := range s.Choices {
			if len(ch.What) > MaxWhatBytes {
				t.Fatalf("choice %d: a what of %d bytes accepted", i+1, len(ch.What))
			}
		}
		b := s.JSON()
		again, err := ParseSchedule(bytes.NewReader(b), "again")
		if err != nil {
			t.Fatalf("the schedule written back does not read: %v\n%s", err, b)
		}
		if b2 := again.JSON(); !bytes.Equal(b, b2) {
			t.Fatalf("written back, then read and written again, it differs:\n%s\n%s", b, b2)
		}
	})
}
