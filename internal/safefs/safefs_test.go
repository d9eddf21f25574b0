package safefs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// nobody is the uid the tests give planted links: another user's.
const nobody = 65534

// needRoot skips a test that plants files owned by another user.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("planting a link owned by another user needs root (os.Lchown); CI runs as root")
	}
}

// plant makes a symbolic link at link to target owned by uid.
func plant(t *testing.T, target, link string, uid int) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, uid, uid); err != nil {
		t.Fatal(err)
	}
}

// sharedDir makes a directory of the given mode (chmod, past the umask).
func sharedDir(t *testing.T, path string, mode os.FileMode) string {
	t.Helper()
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlantedLinkInStickyDirRefused(t *testing.T) {
	needRoot(t)
	tmp := t.TempDir()
	victim := filepath.Join(tmp, "victim")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	shared := sharedDir(t, filepath.Join(tmp, "shared"), 0o777|os.ModeSticky)
	out := filepath.Join(shared, "outF")
	plant(t, victim, out, nobody)

	for name, open := range map[string]func() error{
		"OpenDir":   func() error { _, err := OpenDir(out, true); return err },
		"MkdirAll":  func() error { return MkdirAll(filepath.Join(out, "log")) },
		"Create":    func() error { _, err := Create(filepath.Join(out, "run.jsonl")); return err },
		"WriteFile": func() error { return WriteFile(filepath.Join(out, "x"), []byte("x")) },
	} {
		err := open()
		var pe *PlantedError
		if !errors.As(err, &pe) {
			t.Fatalf("%s through a link planted by uid %d in a 1777 directory: %v, want a refusal", name, nobody, err)
		}
		if !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("%s: the message does not name the link and its owner: %v", name, err)
		}
	}
	if ents, _ := os.ReadDir(victim); len(ents) != 0 {
		t.Fatalf("the victim directory got %d entries", len(ents))
	}

	// The same link as the user's own (or the directory owner's) is followed.
	if err := os.Lchown(out, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(out, "mine"), []byte("ok")); err != nil {
		t.Fatalf("a link of the user's own: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "mine")); err != nil {
		t.Fatal(err)
	}
}

func TestPlantedLinkInGroupWritableDirRefused(t *testing.T) {
	needRoot(t)
	tmp := t.TempDir()
	victim := filepath.Join(tmp, "victim")
	os.Mkdir(victim, 0o755)
	out := sharedDir(t, filepath.Join(tmp, "out"), 0o775)
	plant(t, victim, filepath.Join(out, "log"), nobody)
	_, err := Create(filepath.Join(out, "log", "node-1.log"))
	var pe *PlantedError
	if !errors.As(err, &pe) || pe.Dir != out {
		t.Fatalf("a log link planted in a group-writable directory: %v, want a refusal naming %s", err, out)
	}

	// In a directory only its owner can write, a link is the owner's doing.
	private := sharedDir(t, filepath.Join(tmp, "private"), 0o755)
	plant(t, victim, filepath.Join(private, "log"), nobody)
	if _, err := Create(filepath.Join(private, "log", "node-1.log")); err != nil {
		t.Fatalf("a link in a directory only root writes: %v", err)
	}
}

func TestFinalLinkAndForeignFileRefused(t *testing.T) {
	tmp := t.TempDir()
	victim := filepath.Join(tmp, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	link := filepath.Join(tmp, "run.jsonl")
	os.Symlink(victim, link)
	if _, err := Create(link); err == nil || !strings.Contains(err.Error(), "symbolic link: refusing to write through it") {
		t.Fatalf("Create through a final link: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("victim now holds %q", b)
	}
	if os.Geteuid() != 0 {
		t.Skip("a file of another user needs root (os.Chown)")
	}
	foreign := filepath.Join(tmp, "node-1.log")
	os.WriteFile(foreign, nil, 0o666)
	os.Chown(foreign, nobody, nobody)
	if _, err := Create(foreign); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Fatalf("Create over another user's file: %v", err)
	}
}

func TestRelativeAndDotDotPaths(t *testing.T) {
	tmp := t.TempDir()
	t.Chdir(tmp)
	if err := WriteFile("a/b/../c/f", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(tmp, "a/c/f")); err != nil || string(b) != "x" {
		t.Fatalf("a/c/f: %q %v", b, err)
	}
	os.Symlink("a/c", "l") // the user's own link, relative
	d, err := OpenDir("l", false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.OpenFile("g", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	d.Close()
	if _, err := os.Stat(filepath.Join(tmp, "a/c/g")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("loop", "loop")
	if _, err := OpenDir("loop/x", false); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("a link loop: %v", err)
	}
	os.WriteFile("file", nil, 0o644)
	if _, err := OpenDir("file", false); !errors.Is(err, syscall.ENOTDIR) {
		t.Fatalf("a file as a directory: %v", err)
	}
}

func TestOpenInputRefusesFIFOAndDirsAtOnce(t *testing.T) {
	tmp := t.TempDir()
	fifo := filepath.Join(tmp, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{fifo: "a FIFO", tmp: "a directory", "/dev/zero": "a character device"} {
		_, err := ReadInput(path, "mobility file", 1<<20)
		if err == nil || !strings.Contains(err.Error(), "not a regular file ("+kind+")") {
			t.Errorf("%s: %v, want a refusal naming %s", path, err, kind)
		}
	}
}

func TestInputSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	os.WriteFile(path, make([]byte, 1001), 0o644)
	if _, err := ReadInput(path, "schedule", 1000); err == nil || !strings.Contains(err.Error(), "1001 bytes, more than the 1000 allowed") {
		t.Fatalf("a file over the limit: %v", err)
	}
	if b, err := ReadInput(path, "schedule", 1001); err != nil || len(b) != 1001 {
		t.Fatalf("a file at the limit: %d %v", len(b), err)
	}
	// A file growing past the limit while read is stopped by Limit.
	f, _ := os.Open(path)
	defer f.Close()
	buf := make([]byte, 4096)
	r := Limit(f, path, "schedule", 500)
	total := 0
	var err error
	for err == nil {
		var n int
		n, err = r.Read(buf)
		total += n
	}
	if total != 500 || !strings.Contains(err.Error(), "more than the 500 bytes allowed") {
		t.Fatalf("Limit read %d bytes, %v", total, err)
	}
}

func TestShort(t *testing.T) {
	long := strings.Repeat("é", 1000)
	s := Short(long, 11)
	if len(s) > 40 || !strings.HasSuffix(s, "(2000 bytes)") {
		t.Fatalf("Short: %s", s)
	}
	if Short("ok", 11) != `"ok"` {
		t.Fatal(Short("ok", 11))
	}
}

func TestCheckName(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "../../x", "a/b", `a\b`, "a\x00b", strings.Repeat("n", 256)} {
		if err := CheckName("--run", bad); err == nil {
			t.Errorf("CheckName(%q) accepted it", bad)
		}
	}
	for _, good := range []string{"demo", "r-1.2_x", "...", "a..b", "ring-seed1-20261207-180000"} {
		if err := CheckName("--run", good); err != nil {
			t.Errorf("CheckName(%q): %v", good, err)
		}
	}
	if err := CheckDirPath("dir=", "runs/../../etc"); err == nil {
		t.Error("CheckDirPath accepted a .. component")
	}
	if err := CheckDirPath("dir=", "/scratch/manetlab-runs"); err != nil {
		t.Error(err)
	}
}

// TestMkdirAllConcurrent: writers making the same directories at once
// (a sweep's workers) all succeed.
func TestMkdirAllConcurrent(t *testing.T) {
	base := t.TempDir()
	for round := range 150 {
		errs := make(chan error, 16)
		for w := range 16 {
			go func() { errs <- MkdirAll(filepath.Join(base, strconv.Itoa(round), "runs", "p", strconv.Itoa(w))) }()
		}
		for range 16 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestRenameReplacesALink: renaming onto a link replaces the link and
// leaves its target alone (the run file's temporary copy onto run.jsonl).
func TestRenameReplacesALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	final, tmp := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "run.jsonl.tmp")
	os.Symlink(victim, final)
	os.WriteFile(tmp, []byte("new"), 0o644)
	if err := Rename(tmp, final); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("victim: %q", b)
	}
	if fi, err := os.Lstat(final); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("run.jsonl: %v %v", fi, err)
	}
}

// TestWriteAtomicWholeOrNothing: a write that succeeds replaces the file
// whole (0644); one that fails leaves the old file and no temporary file.
func TestWriteAtomicWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := WriteFileAtomic(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := WriteAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WriteAtomic returned %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("after a failed write the file holds %q, want the old one", b)
	}
	if err := WriteFileAtomic(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" || st.Mode().Perm() != 0o644 {
		t.Fatalf("file holds %q with mode %v, want \"new\\n\" 0644", b, st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want only the file (no temporary left)", len(ents))
	}
}
