package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"reflect"
	"strings"
	"testing"

	"manetlab/internal/fuzzseed"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite the seed corpora under testdata/fuzz")

// fuzzMaxLine is the line limit under fuzzing, low enough for the fuzzer
// to reach.
const fuzzMaxLine = 256

// scanSeeds are the trace files FuzzScan starts from: lines as the
// writer writes them, and the damage readers must survive.
func scanSeeds() map[string][]byte {
	v, pos := 3.5, [3]float64{1, 2, 0}
	evs := []Event{
		{Ev: EvHeader, Schema: Schema, Run: "r", Driver: "node", Protocol: "baseline/floodmax", Node: 3, Seed: 7, Host: "h"},
		{T: 1e6, Wall: 1.7e18, HLC: &HLC{Wall: 1.7e18, Logical: 2}, Node: 3, Ev: EvSend, Kind: "election", Seq: 1, Bytes: 40},
		{T: 2e6, Node: 3, Ev: EvRecv, From: 2, To: 3, Seq: 9, Origin: 1, OSeq: 4, Hops: 2, Kind: "ok"},
		{T: 3e6, Node: 3, Ev: "leader", Leader: 5, Value: &v, Epoch: "1.5", Text: "élu \"x\"\n\t<>&\u2028"},
		{T: 4e6, Node: 3, Ev: EvPosition, Pos: &pos},
		{T: 5e6, Node: 3, Ev: EvDrop, From: 4, Reason: "range"},
	}
	var good []byte
	for i := range evs {
		good = append(AppendJSON(good, &evs[i]), '\n')
	}
	return map[string][]byte{
		"good":           good,
		"truncated":      good[:len(good)-7],
		"no-ev":          []byte("{\"t\":1,\"node\":2}\n"),
		"not-an-object":  []byte("[1,2]\nnull\n\"s\"\n"),
		"empty-lines":    []byte("\n\n  \n\r\n"),
		"crlf":           bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")),
		"long-line":      append([]byte(`{"t":1,"ev":"x","text":"`+strings.Repeat("y", fuzzMaxLine)+`"}`+"\n"), good...),
		"bad-utf8":       []byte("{\"t\":1,\"node\":1,\"ev\":\"info\",\"text\":\"\xff\xfe\"}\n"),
		"big-numbers":    []byte("{\"t\":1e400,\"node\":99999999999,\"ev\":\"x\"}\n{\"t\":9223372036854775807,\"node\":4294967295,\"ev\":\"x\",\"value\":1e308}\n"),
		"escaped-ev":     []byte("{\"t\":1,\"node\":1,\"ev\":\"se\\u006ed\"}\n"),
		"duplicate-keys": []byte("{\"t\":1,\"ev\":\"send\",\"ev\":\"recv\",\"node\":1,\"node\":2}\n"),
		"empty":          nil,
	}
}

// FuzzScan feeds arbitrary bytes to the trace reader, keeping every
// event and only sends: it must not fail or panic, every event it gives
// has a type, each line gives at most one event or problem, and every
// event it decodes is written back by AppendJSON exactly as
// encoding/json does and reads back equal.
func FuzzScan(f *testing.F) {
	for _, b := range scanSeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte{'\n'}) + 1
		var evs []Event
		probs, err := scanLines(bytes.NewReader(data), "fuzz", fuzzMaxLine, nil, func(e *Event, line int) error {
			if e.Ev == "" {
				t.Errorf("line %d: an event without a type", line)
			}
			evs = append(evs, *e)
			return nil
		})
		if err != nil {
			t.Fatalf("scan failed: %v", err)
		}
		if len(evs)+len(probs) > lines {
			t.Errorf("%d events and %d problems from %d lines", len(evs), len(probs), lines)
		}
		for _, e := range evs {
			got := AppendJSON(nil, &e)
			want, err := json.Marshal(&e)
			if err != nil {
				t.Fatalf("json.Marshal(%+v): %v", e, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("AppendJSON wrote\n%s\njson.Marshal\n%s", got, want)
			}
			var back Event
			if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, e) {
				t.Errorf("%s reads back as %+v (%v), not %+v", got, back, err, e)
			}
		}
		sends := 0
		_, err = scanLines(bytes.NewReader(data), "fuzz", fuzzMaxLine, func(ev string) bool { return ev == EvSend }, func(e *Event, line int) error {
			if e.Ev != EvSend {
				t.Errorf("line %d: the scan for sends gave a %q", line, e.Ev)
			}
			sends++
			return nil
		})
		if err != nil {
			t.Fatalf("filtered scan failed: %v", err)
		}
		if all := countEv(evs, EvSend); sends > all {
			t.Errorf("the filtered scan gave %d sends, the full one %d", sends, all)
		}
		stop := errors.New("stop")
		if len(evs) > 0 {
			if _, err := scanLines(bytes.NewReader(data), "fuzz", fuzzMaxLine, nil, func(*Event, int) error { return stop }); !errors.Is(err, stop) {
				t.Errorf("fn's error came back as %v", err)
			}
		}
	})
}

func countEv(evs []Event, ev string) int {
	n := 0
	for _, e := range evs {
		if e.Ev == ev {
			n++
		}
	}
	return n
}

// TestWriteSeedCorpus rewrites the committed corpus with -write-corpus.
func TestWriteSeedCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -write-corpus to rewrite testdata/fuzz")
	}
	for name, b := range scanSeeds() {
		if err := fuzzseed.Write("FuzzScan", name, b); err != nil {
			t.Fatal(err)
		}
	}
}
