// Package ns3test builds and runs the ns-3 reference programs of
// scripts/ns3 for tests that compare manetlab with ns-3 (Debian's 3.37:
// g++, pkg-config, libns3-dev and libgsl-dev, which scripts/deps.sh
// installs as root). A test skips, saying so, where they are missing.
package ns3test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// modules are the pkg-config names every program links with.
const modules = "ns3-core ns3-network ns3-mobility ns3-propagation ns3-wifi ns3-internet ns3-aodv"

var mu sync.Mutex

// Missing says why ns-3's programs cannot be built here ("" when they
// can): g++, pkg-config or ns-3's development files missing.
func Missing() string {
	for _, tool := range []string{"g++", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "no " + tool
		}
	}
	if err := exec.Command("pkg-config", append([]string{"--exists"}, strings.Fields(modules)...)...).Run(); err != nil {
		return "pkg-config finds no ns-3 (libns3-dev, libgsl-dev)"
	}
	return ""
}

// Program is the path of scripts/ns3/name.cc compiled, built once per
// version of its source and of ns-3 (kept in the user's cache directory,
// manetlab-ns3, between runs).
func Program(t testing.TB, name string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	src := filepath.Join(root(t), "scripts", "ns3", name+".cc")
	code, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"g++", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("ns-3 comparison skipped: no %s (scripts/deps.sh installs g++, pkg-config, libns3-dev and libgsl-dev as root)", tool)
		}
	}
	flags, err := exec.Command("pkg-config", append([]string{"--cflags", "--libs"}, strings.Fields(modules)...)...).Output()
	if err != nil {
		t.Skipf("ns-3 comparison skipped: pkg-config finds no ns-3 (%v; scripts/deps.sh installs libns3-dev and libgsl-dev as root)", err)
	}
	sum := sha256.Sum256(append(code, flags...))
	// The user's own cache, not a shared temporary directory where
	// another user could plant a binary.
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("ns-3 comparison skipped: no cache directory for the compiled programs (%v)", err)
	}
	dir := filepath.Join(cache, "manetlab-ns3")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name+"-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	tmp := bin + ".tmp"
	args := append([]string{"-O2", "-std=c++17", src, "-o", tmp}, strings.Fields(string(flags))...)
	if out, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
		t.Fatalf("compiling %s: %v\n%s", src, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Run runs an ns-3 program and returns its output's key=value pairs.
func Run(t testing.TB, bin string, args ...string) map[string]string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	kv := map[string]string{}
	for _, f := range strings.Fields(string(out)) {
		if k, v, ok := strings.Cut(f, "="); ok {
			if _, dup := kv[k]; !dup {
				kv[k] = v
			}
		}
	}
	return kv
}

// root is the repository's root: the directory holding go.mod above this
// file.
func root(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("ns3test: no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}
