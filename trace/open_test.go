package trace

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestOpenRefusesSpecialFiles: a FIFO (whose open would block without a
// writer) and a link to /dev/zero (endless) are refused at once, naming
// what they are; a link to a regular file is read.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "node-1.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "node-2.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a FIFO", zero: "a character device", dir: "a directory"} {
		_, err := ScanEvents(path, nil, func(*Event, int) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "not a regular file ("+want+")") {
			t.Errorf("%s: %v, want a refusal naming %s", path, err, want)
		}
	}
	real := filepath.Join(dir, "real.jsonl")
	if err := os.WriteFile(real, []byte(`{"t":0,"node":1,"ev":"start"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "node-3.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	n := 0
	if _, err := ScanEvents(link, nil, func(*Event, int) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("a link to a regular file: %d events, %v", n, err)
	}
}

// TestProblemsAreBounded: a file of a thousand damaged lines lists the
// first MaxListed, says how many more there were, and still lists its
// cut last line; the good lines among them are read.
func TestProblemsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"t":0,"node":1,"ev":"start"}` + "\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "x%d\n", i)
	}
	b.WriteString(`{"t":1,"node":1,"ev":"end"}` + "\n")
	b.WriteString(`{"t":2,"node":1,"ev":"st`) // cut short by a killed writer
	path := filepath.Join(t.TempDir(), "node-1.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	probs, err := ScanEvents(path, nil, func(*Event, int) error { n++; return nil })
	if err != nil || n != 2 {
		t.Fatalf("%d events, %v", n, err)
	}
	if len(probs) != MaxListed+2 {
		t.Fatalf("%d problems listed, want %d: %v", len(probs), MaxListed+2, probs)
	}
	if probs[0].Line != 2 || probs[MaxListed].Msg != MsgTruncated || probs[MaxListed].Line != 1003 ||
		probs[MaxListed+1].Msg != fmt.Sprintf("%d more damaged lines not listed (the first %d are)", 1000-MaxListed, MaxListed) {
		t.Fatalf("problems %v", probs)
	}
}

// TestCreateFileRefusesLinks: a link planted where a trace goes is not
// written through: the writer fails, saying so, and the link's target is
// untouched; a regular file there is truncated as before.
func TestCreateFileRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "run", "node-1.jsonl")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(link, true); err == nil || !strings.Contains(err.Error(), "is a symbolic link: refusing to write through it") {
		t.Fatalf("Create through a link: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Fatalf("the link's target was written: %q", b)
	}
	plain := filepath.Join(dir, "run", "node-2.jsonl")
	if err := os.WriteFile(plain, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(plain, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b, _ := os.ReadFile(plain); len(b) != 0 {
		t.Fatalf("a regular file was not truncated: %q", b)
	}
}

// TestCheckOutDir: a directory writable by every user is refused, with
// the reason and a way out; one of this user's with 0755, and one that
// does not exist yet, are accepted.
func TestCheckOutDir(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckOutDir(open); err != nil {
		t.Fatalf("own 0755 directory: %v", err)
	}
	if err := CheckOutDir(filepath.Join(dir, "new")); err != nil {
		t.Fatalf("a directory still to create: %v", err)
	}
	if err := os.Chmod(open, 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := CheckOutDir(open); err == nil || !strings.Contains(err.Error(), "is writable by every user") {
		t.Fatalf("world-writable directory: %v", err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chmod(open, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(open, 65534, 65534); err != nil {
			t.Skipf("chown: %v", err)
		}
		if err := CheckOutDir(open); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Fatalf("another user's directory: %v", err)
		}
	}
}

// TestZstdFrames: over three zstd frames (one holding an RLE block, one
// with a checksum), ZstdFrames finds exactly the whole frames in every
// prefix, and Open reads the file they make decompressed, a frame cut
// short read up to it.
func TestZstdFrames(t *testing.T) {
	parts := [][]byte{[]byte(strings.Repeat("{\"t\":1,\"node\":1,\"ev\":\"send\"}\n", 400)), bytes.Repeat([]byte("a"), 5000), []byte("{\"t\":2,\"node\":2,\"ev\":\"end\"}\n")}
	var file []byte
	var ends []int
	for i, p := range parts {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(i == 1))
		if err != nil {
			t.Fatal(err)
		}
		file = enc.EncodeAll(p, file)
		ends = append(ends, len(file))
	}
	for n := 0; n <= len(file); n++ {
		want := 0
		for _, e := range ends {
			if e <= n {
				want = e
			}
		}
		got, err := ZstdFrames(file[:n])
		if err != nil || got != want {
			t.Fatalf("prefix of %d bytes: %d, %v; want %d", n, got, err, want)
		}
	}
	if _, err := ZstdFrames([]byte("{\"t\":1}\n")); err == nil {
		t.Error("plain lines taken for zstd frames")
	}
	plain := bytes.Join(parts, nil)
	dec, err := DecodeZstd(nil, file)
	if err != nil || !bytes.Equal(dec, plain) {
		t.Fatalf("DecodeZstd: %v", err)
	}
	path := filepath.Join(t.TempDir(), "nodes.jsonl")
	for _, c := range []struct {
		n    int
		want []byte
	}{{len(file), plain}, {ends[1] + 7, bytes.Join(parts[:2], nil)}} {
		if err := os.WriteFile(path, file[:c.n], 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		f.Close()
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("Open of %d bytes: %d bytes, %v; want %d", c.n, len(got), err, len(c.want))
		}
	}
}
