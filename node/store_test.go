package node

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"manetlab/node/netnstest"
	"manetlab/protocol"
	_ "manetlab/protocol/protocoltest/bootcount" // registers test/boots
	"manetlab/trace"
)

// put fails t if s.Put fails.
func put(t *testing.T, s protocol.Store, key, value string) {
	t.Helper()
	if err := s.Put(key, []byte(value)); err != nil {
		t.Fatal(err)
	}
}

// mustOpen opens node id's store of run "r" in dir, failing t if a file
// had to be set aside.
func mustOpen(t *testing.T, dir string, id protocol.NodeID) *fileStore {
	t.Helper()
	s, lost := openStore(dir, "r", id)
	if lost != nil {
		t.Fatalf("open: %v", lost)
	}
	return s
}

// contents renders a store for comparisons: "k=v k=v" in key order.
func contents(s protocol.Store) string {
	var b strings.Builder
	for _, k := range s.Keys() {
		v, _ := s.Get(k)
		fmt.Fprintf(&b, "%q=%q ", k, v)
	}
	return b.String()
}

func TestStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, 3)
	if len(s.Keys()) != 0 {
		t.Fatalf("new store has keys %v", s.Keys())
	}
	if _, err := os.Stat(StoreFile(dir, 3)); !os.IsNotExist(err) {
		t.Fatalf("opening wrote a file: %v", err)
	}
	put(t, s, "zeta", "1")
	put(t, s, "alpha", "two")
	put(t, s, "", "empty key")
	put(t, s, "empty", "")
	put(t, s, "bin\x00\xff", "\x00\x01\xfe")
	put(t, s, "zeta", "overwritten")
	want := []string{"", "alpha", "bin\x00\xff", "empty", "zeta"}
	if !slices.Equal(s.Keys(), want) {
		t.Fatalf("keys %q, want %q", s.Keys(), want)
	}
	v, _ := s.Get("alpha")
	v[0] = 'X' // a caller's change must not reach the store
	if again, _ := s.Get("alpha"); string(again) != "two" {
		t.Fatalf("Get shares its slice: %q", again)
	}
	if v, ok := s.Get("empty"); !ok || len(v) != 0 {
		t.Fatalf("empty value: %q %v", v, ok)
	}
	if _, ok := s.Get("missing"); ok {
		t.Fatal("missing key found")
	}

	r := mustOpen(t, dir, 3)
	if contents(r) != contents(s) {
		t.Fatalf("reloaded %s, want %s", contents(r), contents(s))
	}
	if filepath.Base(StoreFile(dir, 3)) != "node-3.store" {
		t.Fatalf("file name %s", StoreFile(dir, 3))
	}
	// The file is what encodeStore writes, keys in order, whatever the
	// map's iteration order.
	b, _ := os.ReadFile(StoreFile(dir, 3))
	if !bytes.Equal(b, encodeStore("r", 3, r.m)) || !bytes.HasPrefix(b, []byte("mlstore\x01")) {
		t.Fatalf("file % x", b)
	}
}

// TestStoreOneFilePerNode: nodes hosted in one process, or sharing a
// directory, keep separate stores, and cleaning up one node's temporary
// files leaves another's alone.
func TestStoreOneFilePerNode(t *testing.T) {
	dir := t.TempDir()
	a, b := mustOpen(t, dir, 1), mustOpen(t, dir, 12)
	put(t, a, "k", "one")
	put(t, b, "k", "twelve")
	stray := StoreFile(dir, 12) + ".tmp-99"
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, _ := mustOpen(t, dir, 1).Get("k"); string(v) != "one" {
		t.Fatalf("node 1: %q", v)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatalf("node 1 removed node 12's temporary file: %v", err)
	}
	if v, _ := mustOpen(t, dir, 12).Get("k"); string(v) != "twelve" {
		t.Fatalf("node 12: %q", v)
	}
}

// TestStoreCrashBeforeRename: a node killed after writing its temporary
// file but before the rename leaves the old store, which loads; the
// temporary file is ignored and removed.
func TestStoreCrashBeforeRename(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, 3)
	put(t, s, "group", "old")
	newer := encodeStore("r", 3, map[string][]byte{"group": []byte("new")})
	strays := []string{StoreFile(dir, 3) + ".tmp-123", StoreFile(dir, 3) + ".tmp-456"}
	os.WriteFile(strays[0], newer, 0o644)                // complete, not renamed
	os.WriteFile(strays[1], newer[:len(newer)/2], 0o644) // cut short
	r := mustOpen(t, dir, 3)
	if v, _ := r.Get("group"); string(v) != "old" {
		t.Fatalf("after a crash before the rename: %q, want the old value", v)
	}
	for _, f := range strays {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", f, err)
		}
	}
	put(t, r, "group", "newer")
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 1 {
		t.Errorf("files after a Put: %v", left)
	}
}

// TestStoreCorrupt: a store that cannot be read gives an empty store, a
// message saying why, and the file kept aside unchanged.
func TestStoreCorrupt(t *testing.T) {
	good := encodeStore("r", 3, map[string][]byte{"a": []byte("1"), "b": []byte("22")})
	flip := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 0x20; return b }
	cases := []struct {
		name string
		file []byte
		why  string
	}{
		{"empty", nil, "truncated"},
		{"magic only", good[:8], "truncated"},
		{"cut in the body", good[:20], "truncated"},
		{"checksum cut", good[:len(good)-1], "truncated"},
		{"trailing bytes", append(bytes.Clone(good), 0), "after the end"},
		{"garbage", []byte("{\"not\": \"a store\"}\n"), "bad magic"},
		{"version 2", append([]byte("mlstore\x02"), good[8:]...), "version 2"},
		{"bit flip in a value", flip(len(good) - 5), "bad checksum"},
		{"bit flip in the checksum", flip(len(good) - 1), "bad checksum"},
		{"bit flip in the length", flip(11), "bytes"},
		{"another node's", encodeStore("r", 4, nil), "node 4's store"},
	}
	for i := range good {
		if _, _, _, err := decodeStore(good[:i]); err == nil {
			t.Fatalf("the first %d of %d bytes decode", i, len(good))
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := StoreFile(dir, 3)
			if err := os.WriteFile(path, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			s, lost := openStore(dir, "r", 3)
			if lost == nil || !strings.Contains(lost.Error(), c.why) ||
				!strings.HasPrefix(lost.Error(), "node-3.store is corrupt (") ||
				!strings.HasSuffix(lost.Error(), "starting empty; kept as node-3.store.corrupt") {
				t.Fatalf("lost = %v, want a message with %q", lost, c.why)
			}
			if len(s.Keys()) != 0 {
				t.Fatalf("keys %q", s.Keys())
			}
			if kept, err := os.ReadFile(path + ".corrupt"); err != nil || !bytes.Equal(kept, c.file) {
				t.Fatalf("kept aside: %q, %v", kept, err)
			}
			put(t, s, "a", "fresh")
			if v, _ := mustOpen(t, dir, 3).Get("a"); string(v) != "fresh" {
				t.Fatalf("after the fresh start: %q", v)
			}
		})
	}
}

func TestStoreCorruptTwiceKeepsBoth(t *testing.T) {
	dir := t.TempDir()
	path := StoreFile(dir, 3)
	for i, junk := range []string{"first", "second"} {
		os.WriteFile(path, []byte(junk), 0o644)
		_, lost := openStore(dir, "r", 3)
		aside := []string{"node-3.store.corrupt", "node-3.store.corrupt.2"}[i]
		if lost == nil || !strings.HasSuffix(lost.Error(), "kept as "+aside) {
			t.Fatalf("open %d: %v", i, lost)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, aside)); string(b) != junk {
			t.Fatalf("%s holds %q", aside, b)
		}
	}
}

// TestStoreUnreadable: a directory where the file should be cannot be
// read; it is moved aside like a corrupt file.
func TestStoreUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(StoreFile(dir, 3), 0o755); err != nil {
		t.Fatal(err)
	}
	s, lost := openStore(dir, "r", 3)
	if lost == nil || !strings.Contains(lost.Error(), "is a directory") {
		t.Fatalf("lost = %v", lost)
	}
	put(t, s, "a", "1")
	if v, _ := mustOpen(t, dir, 3).Get("a"); string(v) != "1" {
		t.Fatalf("got %q", v)
	}
}

// TestStoreOtherRun: a store left by another run in the same directory is
// not this run's: the node starts empty, says nothing, and the first Put
// replaces it.
func TestStoreOtherRun(t *testing.T) {
	dir := t.TempDir()
	old, _ := openStore(dir, "yesterday", 3)
	put(t, old, "a", "old")
	s, lost := openStore(dir, "r", 3)
	if lost != nil || len(s.Keys()) != 0 {
		t.Fatalf("lost %v, keys %q", lost, s.Keys())
	}
	put(t, s, "b", "new")
	if got := contents(mustOpen(t, dir, 3)); got != `"b"="new" ` {
		t.Fatalf("reloaded %s", got)
	}
}

// TestStorePutFails: a Put that cannot write returns the error and keeps
// the old value (and no new key).
func TestStorePutFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.Mkdir(dir, 0o755)
	s := mustOpen(t, dir, 3)
	put(t, s, "a", "old")
	var log bytes.Buffer
	s.log = &log
	if err := os.RemoveAll(dir); err != nil { // the disk is gone
		t.Fatal(err)
	}
	if err := s.Put("a", []byte("new")); err == nil {
		t.Fatal("Put succeeded without a directory")
	}
	if err := s.Put("b", []byte("new")); err == nil {
		t.Fatal("Put succeeded without a directory")
	}
	if got := contents(s); got != `"a"="old" ` {
		t.Fatalf("after failed Puts: %s", got)
	}
	if !strings.Contains(log.String(), "node 3: store ") {
		t.Fatalf("log %q", log.String())
	}
}

// FuzzDecodeStore: no input makes the decoder panic or allocate beyond
// its size, and what decodes encodes back to the same bytes.
func FuzzDecodeStore(f *testing.F) {
	f.Add(encodeStore("r", 3, map[string][]byte{"a": []byte("1"), "b": nil}))
	f.Add(encodeStore("", 1, nil))
	f.Add([]byte("mlstore\x01\x00\x00\x00\x0c"))
	f.Fuzz(func(t *testing.T, b []byte) {
		run, id, m, err := decodeStore(b)
		if err != nil {
			return
		}
		if again := encodeStore(run, id, m); !bytes.Equal(again, b) {
			t.Fatalf("decoded %q %d %q, which encodes to % x, not % x", run, id, m, again, b)
		}
	})
}

// syncBuffer is a log that several goroutines may write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// infoNotes are node id's info notes in dir, in order.
func infoNotes(t *testing.T, dir string, id protocol.NodeID) []string {
	t.Helper()
	var notes []string
	_, err := trace.ScanEvents(trace.NodeFile(dir, id), func(ev string) bool { return ev == string(protocol.NoteInfo) },
		func(e *trace.Event, _ int) error { notes = append(notes, e.Text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

// TestStoreAcrossRestarts runs three nodes in one process, then again in
// the same directory as the launcher restarts a crashed process: each
// node sees what it put in its earlier life. Then node 2's store is
// damaged and node 2 restarted alone: it starts empty, says so on its log
// and in its trace, and keeps the damaged file.
func TestStoreAcrossRestarts(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(t, "name: boots\nduration: 700ms\nnodes: {count: 3}\nmobility: {model: static, area: [50, 50]}\nprotocol: {name: test/boots}\n")
	dir := t.TempDir()
	runHost(t, Options{Scenario: s, IDs: ids(3), Out: dir, Run: "boots"})
	runHost(t, Options{Scenario: s, IDs: ids(3), Out: dir, Run: "boots"})
	for _, id := range ids(3) {
		if got := infoNotes(t, dir, id); !slices.Equal(got, []string{"boots=1", "boots=2"}) {
			t.Errorf("node %d noted %q, want boots=1 then boots=2", id, got)
		}
	}

	if err := os.WriteFile(StoreFile(dir, 2), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	runHost(t, Options{Scenario: s, IDs: []protocol.NodeID{2}, Out: dir, Run: "boots", Log: &log})
	const lost = "store: node-2.store is corrupt (not a store file (bad magic)): starting empty; kept as node-2.store.corrupt"
	if got := infoNotes(t, dir, 2); !slices.Equal(got, []string{"boots=1", "boots=2", lost, "boots=1"}) {
		t.Errorf("node 2 noted %q", got)
	}
	if !strings.Contains(log.String(), "node 2: "+lost) {
		t.Errorf("log %q", log.String())
	}
	if b, err := os.ReadFile(StoreFile(dir, 2) + ".corrupt"); string(b) != "garbage" {
		t.Errorf("kept aside: %q, %v", b, err)
	}
	// The note comes right after the start, before anything the protocol
	// does.
	var evs []string
	if _, err := trace.ScanEvents(trace.NodeFile(dir, 2), nil, func(e *trace.Event, _ int) error {
		evs = append(evs, e.Ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(evs, " "); !strings.HasSuffix(all, "recover start info info stats end") {
		t.Errorf("node 2's events: %s", all)
	}
}
