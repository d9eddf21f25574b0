package hosts

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// hostInfo is what the check of a host found and prepared.
type hostInfo struct {
	base   string // the host's Dir, absolute
	runDir string // base/RUN: the run directory there
	bin    string // the manetlab run there
	copied bool   // this binary was copied there
	// home is this machine's address as the host sees it (the client
	// address of $SSH_CONNECTION): where its nodes reach the collector.
	home  string
	iface string
	nets  []netip.Prefix // the interface's IPv4 addresses
	clock clockSample
	// setup is how long one command of that manetlab took over the
	// connection (a start of the launcher takes about as long).
	setup time.Duration
}

// file is one file copied to a host's run directory (in/).
type file struct {
	name string
	data []byte
}

// prepare checks host c and readies its run directory: it creates
// DIR/RUN/HOST (refusing one that exists) and its in/ (mode 0700), finds a
// manetlab of the version of its platform's binary there (bins, by
// `uname -sm`) or copies that binary, measures the clock offset, and
// copies files into in/ (the key among them, created 0600).
func prepare(ctx context.Context, c *conn, run string, bins map[string]binary, files []file) (*hostInfo, error) {
	if err := c.master(ctx); err != nil {
		return nil, err
	}
	u, err := c.run(ctx, nil, "uname -sm")
	if err != nil {
		return nil, fmt.Errorf("uname: %w", err)
	}
	uname := strings.TrimSpace(string(u))
	b, ok := binaryFor(bins, uname)
	if !ok {
		return nil, fmt.Errorf("%s runs %s, and no manetlab for it was given (this one is built for %s/%s): build one, CGO_ENABLED=0 GOOS=... GOARCH=... go build -o manetlab-OS-ARCH ./cmd/manetlab, and give it with --host-bin", c.host.Target, uname, runtime.GOOS, runtime.GOARCH)
	}
	version, exe := b.version, b.path
	dir := c.host.Dir
	if dir == "" {
		dir = DefaultDir
	}
	d := quote(dir)
	if rest, ok := strings.CutPrefix(dir, "~/"); ok {
		d = `"$HOME"/` + quote(rest)
	}
	// The run directory is DIR/RUN/HOST: with a home shared by every
	// host (NFS), each host's mkdir of its own succeeds, and a run of
	// that name run before on that host is refused.
	rel := run + "/" + safeName(c.host.Target)
	vbin := versionedBin(version)
	script := `set -e; d=` + d + `; mkdir -p "$d"; cd "$d"; pwd; mkdir -p ` + quote(run) + `; mkdir ` + quote(rel) + `; mkdir -m 700 ` + quote(rel+"/in") + `
uname -sm; echo "${SSH_CONNECTION:-}"
v=none; for b in ` + quote(vbin) + ` bin/manetlab; do if [ -x "$b" ]; then v=$("$b" version 2>/dev/null || echo none); [ "$v" = ` + quote(version) + ` ] && { v="$b $v"; break; }; fi; done; echo "$v"
p=$(command -v manetlab || true); echo "${p:-none}"
if [ -n "$p" ]; then "$p" version 2>/dev/null || echo none; else echo none; fi
ip -o -4 addr show 2>/dev/null || true
echo ` + linkMarker + `; ip -o link show 2>/dev/null || true`
	out, err := c.run(ctx, nil, script)
	if err != nil {
		return nil, fmt.Errorf("cannot prepare the run directory: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 6 {
		return nil, fmt.Errorf("%s: the check printed %q, want six lines or more", c.host.Target, out)
	}
	hi := &hostInfo{base: lines[0], runDir: lines[0] + "/" + rel}
	conn := strings.Fields(lines[2])
	if len(conn) != 4 {
		return nil, fmt.Errorf("%s: $SSH_CONNECTION is %q: cannot tell which address this machine has there", c.host.Target, lines[2])
	}
	hi.home = conn[0]
	addrs, linkLines := lines[6:], []string(nil)
	if i := slices.Index(addrs, linkMarker); i >= 0 {
		addrs, linkLines = addrs[:i], addrs[i+1:]
	}
	hi.iface = c.host.Iface
	if hi.iface == "" {
		if hi.iface = ifaceOf(addrs, conn[2]); hi.iface == "" {
			return nil, fmt.Errorf("%s: no interface holds %s, the address ssh reached: name one (iface=IF in the host list)", c.host.Target, conn[2])
		}
	}
	// The interface, before anything is copied or started anywhere.
	hi.nets = ifaceNets(addrs, hi.iface)
	if err := checkIface(hi.iface, links(linkLines), hi.nets); err != nil {
		return nil, err
	}
	switch b, v, _ := strings.Cut(lines[3], " "); {
	case v == version:
		hi.bin = hi.base + "/" + b
	case lines[5] == version:
		hi.bin = lines[4]
	default:
		if err := copyBinary(ctx, c, hi, exe, version); err != nil {
			return nil, err
		}
	}
	// The time of one manetlab command there: the launcher's start.
	t0 := time.Now()
	v, err := c.run(ctx, nil, quote(hi.bin)+" version")
	if err != nil {
		return nil, fmt.Errorf("%s version: %w", hi.bin, err)
	}
	hi.setup = time.Since(t0)
	if got := strings.TrimSpace(string(v)); got != version {
		return nil, fmt.Errorf("%s: %s version printed %q, want %q", c.host.Target, hi.bin, got, version)
	}
	if hi.clock, err = measureClock(ctx, c); err != nil {
		return nil, err
	}
	for _, f := range files {
		if _, err := c.run(ctx, bytes.NewReader(f.data), "umask 077; cat > "+quote(hi.runDir+"/in/"+f.name)); err != nil {
			return nil, fmt.Errorf("copy %s: %w", f.name, err)
		}
	}
	return hi, nil
}

// ifaceOf finds, in `ip -o -4 addr show` lines, the interface holding
// address addr.
func ifaceOf(lines []string, addr string) string {
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 4 && f[2] == "inet" && strings.SplitN(f[3], "/", 2)[0] == addr {
			name, _, _ := strings.Cut(f[1], "@")
			return name
		}
	}
	return ""
}

// unameOf is what `uname -sm` prints on a machine of this binary's
// platform.
func unameOf(goos, goarch string) string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "arm": "armv7l", "riscv64": "riscv64", "ppc64le": "ppc64le", "s390x": "s390x"}[goarch]
	if arch == "" {
		arch = goarch
	}
	sys := map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD"}[goos]
	if sys == "" {
		sys = goos
	}
	return sys + " " + arch
}

// copyBinary copies exe, the binary of version for the host's
// platform, to DIR/bin/manetlab-HASH on the host; exe must be static (no dynamic loader), so that it
// runs whatever the host's libraries.
func copyBinary(ctx context.Context, c *conn, hi *hostInfo, exe, version string) error {
	if err := CheckStatic(exe); err != nil {
		return fmt.Errorf("%s has no manetlab of this version, and %w", c.host.Target, err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer f.Close()
	// A temporary file of this host's own, renamed over the name of
	// this version: hosts sharing DIR copy at once without mixing their
	// bytes, a run of another version keeps its own binary (a node
	// recovered mid-run starts the version it started with), and a
	// binary is never seen half written.
	bin := hi.base + "/" + versionedBin(version)
	tmp := bin + ".tmp-" + safeName(c.host.Target) + "-$$"
	if _, err := c.run(ctx, f, "mkdir -p "+quote(hi.base+"/bin")+" && cat > "+tmp+" && chmod 755 "+tmp+" && mv -f "+tmp+" "+quote(bin)); err != nil {
		return fmt.Errorf("copy %s: %w", exe, err)
	}
	hi.bin, hi.copied = bin, true
	return nil
}

// versionedBin is where, under DIR, a copied manetlab of version goes:
// bin/manetlab-HASH, HASH of the version line (revision, platform and
// executable's hash), so that hosts of several platforms or runs of
// several versions share one DIR safely.
func versionedBin(version string) string {
	h := sha256.Sum256([]byte(version))
	return "bin/manetlab-" + hex.EncodeToString(h[:6])
}

// CheckStatic says whether the executable at exe can be copied to
// another machine: a static build, which needs no dynamic loader nor
// shared library there.
func CheckStatic(exe string) error {
	f, err := elf.Open(exe)
	if err != nil {
		return fmt.Errorf("%s is not an ELF executable to copy: %v", exe, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked, so it cannot be copied to a host: build a static one with CGO_ENABLED=0 go build -o manetlab ./cmd/manetlab and run that", exe)
		}
	}
	return nil
}

// clockSample is one host's clock offset, measured over the round trip
// of a command.
type clockSample struct {
	Offset, RTT time.Duration
}

// clockSamples is how many round trips measure a host's clock.
const clockSamples = 5

// measureClock reads the host's clock clockSamples times over one
// session that prints `date +%s%N` for every line it reads, and keeps
// the sample with the smallest round trip: the offset is the host's
// time less the midpoint of the round trip here. One session: a
// session's own start (a shell, the login's start-up files) would fall
// in the round trip before the reading, and bias the offset by half of
// it.
func measureClock(ctx context.Context, c *conn) (clockSample, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := c.command(ctx, `sh -c 'while read -r _; do date +%s%N; done'`)
	in, err := cmd.StdinPipe()
	if err != nil {
		return clockSample{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return clockSample{}, err
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return clockSample{}, fmt.Errorf("clock: %w", err)
	}
	defer cmd.Wait()
	defer in.Close()
	br := bufio.NewReader(out)
	var samples []clockSample
	for range clockSamples + 1 {
		t0 := time.Now()
		if _, err := in.Write([]byte("\n")); err != nil {
			return clockSample{}, fmt.Errorf("%s: clock: %v %s", c.host.Target, err, strings.TrimSpace(errb.String()))
		}
		line, err := br.ReadString('\n')
		t1 := time.Now()
		if err != nil {
			return clockSample{}, fmt.Errorf("%s: clock: date +%%s%%N: %v %s", c.host.Target, err, strings.TrimSpace(errb.String()))
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			return clockSample{}, fmt.Errorf("%s: date +%%s%%N printed %q, want nanoseconds (GNU date)", c.host.Target, strings.TrimSpace(line))
		}
		samples = append(samples, offsetOf(t0, t1, ns))
	}
	// The first reading waited for the session to start.
	return best(samples[1:]), nil
}

// offsetOf is the sample of a round trip from t0 to t1 that read remote
// (Unix nanoseconds) on the host.
func offsetOf(t0, t1 time.Time, remote int64) clockSample {
	mid := t0.UnixNano() + t1.Sub(t0).Nanoseconds()/2
	return clockSample{Offset: time.Duration(remote - mid), RTT: t1.Sub(t0)}
}

// best is the sample with the smallest round trip.
func best(s []clockSample) clockSample {
	b := s[0]
	for _, x := range s[1:] {
		if x.RTT < b.RTT {
			b = x
		}
	}
	return b
}
