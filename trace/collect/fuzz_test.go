package collect

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/internal/fuzzseed"
	"manetlab/protocol"
	"manetlab/trace"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite the seed corpora under testdata/fuzz")

// fuzzRun, fuzzMembers and fuzzMaxLine are the collector the fuzz
// targets talk to: lines of 4 KiB at most, for the fuzzer to reach.
const (
	fuzzRun     = "fz"
	fuzzMaxLine = minMaxLine
)

var fuzzMembers = []protocol.NodeID{1, 2, 3}

// fuzzTrace is node id's stream as a node writes it: header and events.
func fuzzTrace(run string, id protocol.NodeID, n int) []byte {
	var b []byte
	h := trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: run, Node: id, Driver: "node"}
	b = append(trace.AppendJSON(b, &h), '\n')
	for i := range n {
		e := trace.Event{T: int64(i) * 1e6, Node: id, Ev: trace.EvSend, Seq: uint64(i + 1), Text: strings.Repeat("x", i*7)}
		b = append(trace.AppendJSON(b, &e), '\n')
	}
	return b
}

func helloLine(h hello) []byte {
	if h.Proto == "" {
		h.Proto = Proto
	}
	b, _ := json.Marshal(h)
	return append(b, '\n')
}

// connSeeds are the client byte streams FuzzConn starts from (keyed: the
// collector has a key the fuzzer does not).
func connSeeds() map[string]struct {
	data  []byte
	keyed bool
} {
	type seed = struct {
		data  []byte
		keyed bool
	}
	good := append(helloLine(hello{Run: fuzzRun, Node: 2, Host: "h", Size: 10}), fuzzTrace(fuzzRun, 2, 5)...)
	return map[string]seed{
		"good":              {good, false},
		"good-keyed":        {good, true},
		"forged-mac":        {append(helloLine(hello{Run: fuzzRun, Node: 2, Nonce: strings.Repeat("ab", nonceSize), MAC: strings.Repeat("00", 32)}), fuzzTrace(fuzzRun, 2, 1)...), true},
		"partial-last-line": {good[:len(good)-5], false},
		"other-node-header": {append(helloLine(hello{Run: fuzzRun, Node: 2}), fuzzTrace(fuzzRun, 3, 2)...), false},
		"other-run":         {append(helloLine(hello{Run: "x", Node: 2}), fuzzTrace("x", 2, 2)...), false},
		"not-a-member":      {append(helloLine(hello{Run: fuzzRun, Node: 4000}), fuzzTrace(fuzzRun, 4000, 2)...), false},
		"no-header":         {append(helloLine(hello{Run: fuzzRun, Node: 1}), "{\"t\":1,\"node\":1,\"ev\":\"send\"}\n"...), false},
		"old-proto":         {helloLine(hello{Proto: "manetlab-trace/1", Run: fuzzRun, Node: 1}), false},
		"long-hello":        {append(bytes.Repeat([]byte{' '}, maxHello+10), '\n'), false},
		"long-line":         {append(append(helloLine(hello{Run: fuzzRun, Node: 1}), fuzzTrace(fuzzRun, 1, 1)...), bytes.Repeat([]byte{'y'}, fuzzMaxLine+1)...), false},
		"not-json":          {[]byte("GET / HTTP/1.0\r\n\r\n"), false},
		"empty":             {nil, false},
	}
}

// FuzzConn runs one connection of arbitrary client bytes through the
// collector's handshake and stream: it must not panic or hang; with a key
// it must accept nothing; without one, a file appears only for a member,
// holds only complete lines of what followed the hello, starting with
// that node's header, and is closed when the connection ends.
func FuzzConn(f *testing.F) {
	for _, s := range connSeeds() {
		f.Add(s.data, s.keyed)
	}
	dir := f.TempDir() // one per worker process; emptied by each run
	f.Fuzz(func(t *testing.T, data []byte, keyed bool) {
		clearDir(t, dir)
		opt := Options{Dir: dir, Run: fuzzRun, Members: fuzzMembers, MaxLine: fuzzMaxLine, HelloTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
		if keyed {
			opt.Key = testKey
		}
		c, err := newCollector(opt)
		if err != nil {
			t.Fatal(err)
		}
		srv, cli := net.Pipe()
		cs := &connState{conn: srv}
		cs.elem = c.pending.PushBack(cs)
		c.conns[srv] = cs
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.handle(cs)
			srv.Close()
		}()
		go io.Copy(io.Discard, cli)
		cli.Write(data)
		cli.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the collector hung")
		}
		if st := c.Stats(); st.Files != 0 {
			t.Errorf("%d files open after the connection", st.Files)
		}
		names, _ := filepath.Glob(filepath.Join(dir, "node-*"))
		if keyed && len(names) > 0 {
			t.Fatalf("a collector with a key accepted an unsigned client: %v", names)
		}
		if len(names) == 0 {
			return
		}
		if len(names) > 1 {
			t.Fatalf("one connection wrote %v", names)
		}
		got, _ := os.ReadFile(names[0])
		i := bytes.IndexByte(data, '\n')
		var h hello
		json.Unmarshal(data[:i+1], &h)
		if names[0] != trace.NodeFile(dir, protocol.NodeID(h.Node)) || !c.members[protocol.NodeID(h.Node)] {
			t.Fatalf("wrote %s for a hello of node %d", names[0], h.Node)
		}
		rest := data[i+1:]
		if !bytes.HasPrefix(rest, got) || (len(got) > 0 && got[len(got)-1] != '\n') {
			t.Fatalf("the file (%d bytes) is not complete lines of what followed the hello", len(got))
		}
		if len(got) > 0 {
			if msg := checkHeader(got, fuzzRun, protocol.NodeID(h.Node)); msg != "" {
				t.Fatalf("the file starts with a bad header: %s", msg)
			}
		}
	})
}

// clearDir removes what a previous run left in dir.
func clearDir(t *testing.T, dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		if err := os.Remove(n); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeConn stands for the connection in receive, which only sets its
// deadlines.
type fakeConn struct{ net.Conn }

func (fakeConn) SetReadDeadline(time.Time) error { return nil }

// chunker returns data in reads of the sizes given (cycled; 0 counts as
// 1), as TCP may cut it.
type chunker struct {
	data  []byte
	sizes []byte
	k     int
}

func (c *chunker) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 4096
	if len(c.sizes) > 0 {
		n = max(int(c.sizes[c.k%len(c.sizes)])*37, 1)
		c.k++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// expectReceive is what receive must do with a stream: the complete lines
// before the first line longer than max, if the first line is the header;
// a rule error for a long line or a bad header.
func expectReceive(data []byte, run string, id protocol.NodeID, maxLine int) (file []byte, rule bool) {
	end := 0
	for end < len(data) {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			return data[:end], len(data)-end > maxLine
		}
		if i > maxLine {
			return data[:end], true
		}
		if end == 0 && checkHeader(data[:i+1], run, id) != "" {
			return nil, true
		}
		end += i + 1
	}
	return data[:end], false
}

// streamSeeds are the streams and read sizes FuzzStream starts from.
func streamSeeds() map[string][2][]byte {
	tr := fuzzTrace(fuzzRun, 1, 12)
	return map[string][2][]byte{
		"good":            {tr, {1, 2, 3}},
		"partial":         {tr[:len(tr)-3], {200}},
		"max-line":        {append(append(bytes.Clone(tr), bytes.Repeat([]byte{'z'}, fuzzMaxLine)...), '\n'), {7}},
		"long-line":       {append(append(bytes.Clone(tr), bytes.Repeat([]byte{'z'}, fuzzMaxLine+1)...), '\n'), {255, 1}},
		"other-node":      {fuzzTrace(fuzzRun, 2, 3), {}},
		"newlines":        {[]byte("\n\n"), {0}},
		"long-first-line": {bytes.Repeat([]byte{'z'}, fuzzMaxLine+2), {9}},
	}
}

// FuzzStream feeds a stream, cut into reads of arbitrary sizes, to
// receive: the file must hold exactly the complete lines before the
// first one too long, after a valid header, whatever the cuts.
func FuzzStream(f *testing.F) {
	for _, s := range streamSeeds() {
		f.Add(s[0], s[1])
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data, sizes []byte) {
		clearDir(t, dir)
		c, err := newCollector(Options{Dir: dir, Run: fuzzRun, Members: fuzzMembers, MaxLine: fuzzMaxLine})
		if err != nil {
			t.Fatal(err)
		}
		ns := &nodeState{path: trace.NodeFile(dir, 1)}
		err = c.receive(fakeConn{}, &chunker{data: data, sizes: sizes}, ns, fuzzRun, 1)
		if ns.f != nil {
			ns.f.Close()
		}
		got, _ := os.ReadFile(ns.path)
		want, rule := expectReceive(data, fuzzRun, 1, fuzzMaxLine)
		if !bytes.Equal(got, want) || ns.size != int64(len(got)) {
			t.Fatalf("file %q (size %d), want %q", got, ns.size, want)
		}
		var re *ruleError
		if errors.As(err, &re) != rule {
			t.Fatalf("error %v, want a rule error: %t", err, rule)
		}
	})
}

// TestWriteSeedCorpus rewrites the committed corpora with -write-corpus.
func TestWriteSeedCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -write-corpus to rewrite testdata/fuzz")
	}
	for name, s := range connSeeds() {
		if err := fuzzseed.Write("FuzzConn", name, s.data, s.keyed); err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range streamSeeds() {
		if err := fuzzseed.Write("FuzzStream", name, s[0], s[1]); err != nil {
			t.Fatal(err)
		}
	}
}
