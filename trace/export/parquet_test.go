package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"manetlab/internal/tidy/tidytest"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// parquetRun simulates a moving floodmax run (positions, sends, drops,
// notes) and returns its trace directory.
func parquetRun(t *testing.T) string {
	t.Helper()
	y := "seed: 5\nduration: 6s\nnodes: {count: 6}\nradio: {range: 300, hello: {period: 500ms}}\n" +
		"mobility: {model: random-waypoint, area: [600, 600], speed: [5, 15], pause: 0s}\nprotocol: {name: baseline/floodmax, params: {period: 400ms}}\n"
	s, err := scenario.Parse([]byte(y), "parquet.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mergedEvents reads the run as analysis.Merge orders it, header apart.
func mergedEvents(t *testing.T, dir string) []trace.Event {
	var buf bytes.Buffer
	if _, err := analysis.Merge([]string{dir}, &buf); err != nil {
		t.Fatal(err)
	}
	var out []trace.Event
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, trace.MaxLine+1)
	for sc.Scan() {
		var e trace.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out[1:]
}

// eventRow is what the Parquet table should hold for e, in
// ParquetColumns order.
func eventRow(e trace.Event) []any {
	nz := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	row := []any{e.T, uint32(e.Node), e.Ev, nz(e.Kind), uint32(e.From), uint32(e.To), e.Seq, uint32(e.Origin), e.OSeq,
		int64(e.Hops), int64(e.Bytes), nz(e.Reason), uint32(e.Leader), nil, nz(e.Epoch), uint32(e.Peer), nz(e.Text), nil, nil, nil, nil, nil, nil, nz(e.Src)}
	if e.Value != nil {
		row[13] = *e.Value
	}
	if e.Pos != nil {
		row[17], row[18], row[19] = e.Pos[0], e.Pos[1], e.Pos[2]
	}
	if e.Wall != 0 {
		row[20] = e.Wall
	}
	if e.HLC != nil {
		row[21], row[22] = e.HLC.Wall, e.HLC.Logical
	}
	return row
}

// TestParquetHoldsEveryEvent reads the export back with Arrow's reader
// and checks every cell against the merged trace.
func TestParquetHoldsEveryEvent(t *testing.T) {
	dir := parquetRun(t)
	path := filepath.Join(t.TempDir(), "events.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Parquet([]string{dir}, f, Options{})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	names, rows := tidytest.ReadWithArrow(t, path)
	for i, c := range ParquetColumns {
		if names[i] != c.Name {
			t.Fatalf("columns %v", names)
		}
	}
	evs := mergedEvents(t, dir)
	if rep.Events != len(evs) || len(rows) != len(evs) || rep.Hosts != 7 { // 6 nodes and the run file's node 0
		t.Fatalf("%d events reported, %d rows, %d merged; %d hosts", rep.Events, len(rows), len(evs), rep.Hosts)
	}
	kinds := map[string]bool{}
	var pos, value bool
	for i, e := range evs {
		pos, value = pos || e.Pos != nil, value || e.Value != nil
		if want := eventRow(e); !reflect.DeepEqual(rows[i], want) {
			t.Fatalf("event %d: parquet %v, want %v", i, rows[i], want)
		}
		kinds[e.Ev] = true
	}
	for _, ev := range []string{trace.EvSend, trace.EvRecv} {
		if !kinds[ev] {
			t.Errorf("the run has no %s event: the test checks too little", ev)
		}
	}
	if !pos || !value {
		t.Errorf("positions %v, values %v: the test checks too little", pos, value)
	}

	// --nodes and --from/--to select rows as for the other formats.
	var buf bytes.Buffer
	rep, err = Parquet([]string{dir}, &buf, Options{Nodes: []protocol.NodeID{2}, From: 1e9, To: 3e9})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range evs {
		if e.Node == 2 && e.T >= 1e9 && e.T < 3e9 {
			want++
		}
	}
	if rep.Events != want || want == 0 || rep.Hosts != 1 {
		t.Fatalf("node 2 in [1s,3s): %d events, want %d (%d hosts)", rep.Events, want, rep.Hosts)
	}
}
