package main

import (
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"manetlab/node/hosts"
)

// TestVersionNamesTheBuild: one line with the revision, Go, the platform
// and the executable's hash, the same every time (run --hosts compares
// it with the hosts').
func TestVersionNamesTheBuild(t *testing.T) {
	out, err := runCLI(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^manetlab \S+ go\S+ [a-z0-9]+/[a-z0-9]+ sha256:[0-9a-f]{16}\n$`)
	if !re.MatchString(out) {
		t.Fatalf("version printed %q", out)
	}
	if again, _ := runCLI(t, "version"); again != out {
		t.Errorf("version changed: %q then %q", out, again)
	}
	// run --hosts reads the line of a binary for other hosts without
	// running it: from its build information and bytes, the same line.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	v, uname, err := hosts.VersionOf(exe)
	if err != nil || v+"\n" != out || uname != map[string]string{"amd64": "Linux x86_64", "arm64": "Linux aarch64"}[runtime.GOARCH] && runtime.GOOS == "linux" {
		t.Errorf("hosts.VersionOf: %q (%s), %v; version printed %q", v, uname, err, out)
	}
}

// TestLaunchReportsBadInputAsAResult: the per-host launcher refuses bad
// input with an error and still prints its result line, which run
// --hosts reads.
func TestLaunchReportsBadInputAsAResult(t *testing.T) {
	out, err := runCLI(t, "launch", "--scenario", "../../configs/static-line.yaml", "--out", t.TempDir(), "--run", "x",
		"--ids", "0-3", "--start", "1", "--host", "h1")
	if err == nil || !strings.Contains(err.Error(), "--ids") {
		t.Errorf("error %v, want --ids named", err)
	}
	if !strings.HasPrefix(out, "result {") || !strings.Contains(out, `"host":"h1"`) || !strings.Contains(out, `"error":"launch: --ids`) {
		t.Errorf("output %q, want a result line with the error", out)
	}
	_, err = runCLI(t, "launch", "--scenario", "../../configs/static-line.yaml", "--out", t.TempDir(), "--run", "x",
		"--ids", "1-2", "--start", "1", "--host", "h1")
	if err == nil || !strings.Contains(err.Error(), "the start time passed") {
		t.Errorf("a start in 1970: %v", err)
	}
}
