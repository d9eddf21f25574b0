package hosts

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// VersionOf is what `manetlab version` prints when run as the manetlab
// executable at path, of any platform (its Go build information and
// hash, read without running it: a binary built for the hosts need not
// run here), and its platform as `uname -sm` prints it there.
func VersionOf(path string) (version, uname string, err error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("%s: not a Go executable: %w", path, err)
	}
	rev, dirty, goos, goarch := "unknown", "", "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		case s.Key == "GOOS":
			goos = s.Value
		case s.Key == "GOARCH":
			goarch = s.Value
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	return fmt.Sprintf("manetlab %s%s %s %s/%s sha256:%s", rev, dirty, bi.GoVersion, goos, goarch, hex.EncodeToString(h.Sum(nil))[:16]), unameOf(goos, goarch), nil
}

// binary is a manetlab home can copy to hosts of one platform, and the
// version it prints there.
type binary struct {
	path, version string
}

// binaries are the manetlab binaries for the hosts, by `uname -sm`:
// this one (exe, version) for hosts of its platform, and each of
// hostBins (Options.HostBins) for its own, which it overrides.
func binaries(exe, version string, hostBins []string) (map[string]binary, error) {
	out := map[string]binary{unameOf(runtime.GOOS, runtime.GOARCH): {exe, version}}
	for _, p := range hostBins {
		v, u, err := VersionOf(p)
		if err != nil {
			return nil, fmt.Errorf("--host-bin: %w", err)
		}
		if err := CheckStatic(p); err != nil {
			return nil, fmt.Errorf("--host-bin: %w", err)
		}
		out[u] = binary{p, v}
	}
	return out, nil
}

// binaryFor is the binary of bins for a host whose `uname -sm` is uname.
func binaryFor(bins map[string]binary, uname string) (binary, bool) {
	if b, ok := bins[uname]; ok {
		return b, true
	}
	if strings.HasPrefix(uname, "Linux i") { // i386 to i686
		b, ok := bins["Linux i686"]
		return b, ok
	}
	return binary{}, false
}
