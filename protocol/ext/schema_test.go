package ext_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"manetlab/sim"
)

// schemas compiles schema/event.schema.json and schema/reply.schema.json
// (docs/anylang.md) with an independent JSON Schema validator.
func schemas(t *testing.T) (event, reply *jsonschema.Schema) {
	t.Helper()
	c := jsonschema.NewCompiler()
	var err error
	if event, err = c.Compile("schema/event.schema.json"); err != nil {
		t.Fatal(err)
	}
	if reply, err = c.Compile("schema/reply.schema.json"); err != nil {
		t.Fatal(err)
	}
	return event, reply
}

// tee wraps a program's command line in testdata/tee.py, which records
// both sides of the conversation into dir.
func tee(dir, cmd string) string {
	return "[python3, " + filepath.Join(root, "protocol", "ext", "testdata", "tee.py") + ", " + dir + ", " + strings.Trim(cmd, "[]") + "]"
}

// TestMessagesMatchTheSchemas records every line both sides wrote in
// runs of the Python examples (Chang-Roberts with a crash, so that the
// reliable channel gives up on a peer; Ricart-Agrawala with its
// commands; the studio's describe) and validates each against the
// contract's JSON schemas; every event of the contract occurs.
func TestMessagesMatchTheSchemas(t *testing.T) {
	need(t, "python3")
	dir := t.TempDir()
	cr := config(t, "ring-chang-roberts", crProtocol(tee(dir, example("python3", "changroberts.py"))))
	cr.Faults = append(cr.Faults, config(t, "ring-chang-roberts", "", "faults=[{at: 1.05s, crash: [3]}]").Faults...)
	if _, err := sim.Run(cr, sim.Options{Out: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	ra := config(t, "mutex-ricart-agrawala", raProtocol(tee(dir, example("python3", "ricartagrawala.py"))))
	c, err := sim.NewController(ra, sim.Options{Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c.Now() < 3*1e9 && c.Step() {
	}
	if len(c.Nodes()) == 0 || !strings.Contains(c.Nodes()[0].Describe, "clock") {
		t.Fatalf("no description: %+v", c.Nodes())
	}
	if _, err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	event, reply := schemas(t)
	files, _ := filepath.Glob(filepath.Join(dir, "tee-*.txt"))
	if len(files) != 16 {
		t.Fatalf("%d programs recorded, want 8 + 8 (and one more for the crashed node's recovery: none here)", len(files))
	}
	seen := map[string]int{}
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			side, text, _ := strings.Cut(sc.Text(), " ")
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
			if err != nil {
				t.Fatalf("%s: %v: %s", f, err, text)
			}
			s := event
			if side == "R" {
				s = reply
			} else {
				var e struct{ Event string }
				json.Unmarshal([]byte(text), &e)
				seen[e.Event]++
			}
			if err := s.Validate(v); err != nil {
				detail, _ := json.Marshal(err.(*jsonschema.ValidationError).BasicOutput())
				t.Fatalf("%s: %s line does not match its schema: %s\n%s", f, side, detail, text)
			}
			lines++
		}
	}
	for _, e := range []string{"init", "recv", "timer", "command", "neighbor", "unreachable", "describe"} {
		if seen[e] == 0 {
			t.Errorf("no %s event recorded (%v)", e, seen)
		}
	}
	t.Logf("%d lines valid; events %v", lines, seen)
}
