package testbed

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// sshHosts is three network-namespace hosts on a bridge, each with a
// real sshd, that the root namespace reaches through a veth: what
// `run --hosts` needs of machines. Host 3 runs a second sshd (port 2222,
// ssh name h3fast) whose sessions see a `date` 2 s ahead; hosts 2 and 3
// run one more each (port 2223, h2slow and h3ahead) whose manetlab
// processes read a clock 200 ms behind and 250 ms ahead
// (node.SkewEnv).
type sshHosts struct {
	dir    string // keys, configs, the hosts' run directories
	config string // the ssh client's configuration (-F)
	bin    string // a static manetlab
	ns     []string
	sshd   []*exec.Cmd
	// shared: every host's root has one home directory (an NFS home).
	shared bool
	// sub is the hosts' /24 (host i is SUB.i, home SUB.100 on veth).
	sub, veth string
}

// home is the home directory of host i's root (1 to 3).
func (h *sshHosts) home(i int) string {
	if h.shared {
		i = 0
	}
	return filepath.Join(h.dir, fmt.Sprintf("home%d", i))
}

const skipSSH = "needs root, iproute2 and openssh-server (sshd, ssh, ssh-keygen) for hosts with their own sshd; CI runs as root (scripts/deps.sh installs them)"

// newSSHHosts builds the hosts, or skips t saying what is missing; with
// shared, their roots share one home directory. Its cleanup kills every
// sshd and deletes the namespaces (with the veths and the bridge),
// whatever the test did.
func newSSHHosts(t *testing.T, shared bool) *sshHosts {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip(skipSSH + " (not root)")
	}
	for _, c := range []string{"ip", "ssh", "ssh-keygen", "/usr/sbin/sshd"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skip(skipSSH + " (no " + c + ")")
		}
	}
	h := &sshHosts{dir: t.TempDir(), shared: shared}
	id := os.Getpid()
	sub := fmt.Sprintf("10.79.%d", id%250)
	sw := fmt.Sprintf("mlhsw%d", id)
	veth := fmt.Sprintf("mlhr%d", id)
	h.sub, h.veth = sub, veth
	run := func(args ...string) {
		t.Helper()
		if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, b)
		}
	}
	t.Cleanup(func() {
		for _, c := range h.sshd {
			c.Process.Kill()
			c.Wait()
		}
		for _, ns := range append(h.ns, sw) {
			if b, _ := exec.Command("ip", "netns", "pids", ns).Output(); len(b) > 0 {
				for _, p := range strings.Fields(string(b)) {
					if pid, err := strconv.Atoi(p); err == nil {
						t.Errorf("pid %d (%s) still runs in namespace %s at the end of the test", pid, cmdline(pid), ns)
						exec.Command("kill", "-KILL", p).Run()
					}
				}
			}
			exec.Command("ip", "netns", "del", ns).Run()
		}
		exec.Command("ip", "link", "del", veth).Run()
		for _, ns := range h.ns {
			os.RemoveAll(filepath.Join("/etc/netns", ns))
		}
	})
	run("ip", "netns", "add", sw)
	run("ip", "-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
	run("ip", "-n", sw, "link", "set", "br0", "up")
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		ns := fmt.Sprintf("mlhh%d-%d", id, i)
		h.ns = append(h.ns, ns)
		// Each host's root has a home of its own (the run directories'
		// default place), without the machine's shell start-up files:
		// ip netns exec mounts /etc/netns/NS/passwd over /etc/passwd.
		home := h.home(i)
		if err := os.MkdirAll(filepath.Join("/etc/netns", ns), 0o755); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(home, 0o700)
		if err := os.WriteFile(filepath.Join("/etc/netns", ns, "passwd"), rootHome(passwd, home), 0o644); err != nil {
			t.Fatal(err)
		}
		run("ip", "netns", "add", ns)
		run("ip", "-n", sw, "link", "add", fmt.Sprintf("p%d", i), "type", "veth", "peer", "name", "mlan0", "netns", ns)
		run("ip", "-n", sw, "link", "set", fmt.Sprintf("p%d", i), "master", "br0", "up")
		run("ip", "-n", ns, "link", "set", "lo", "up")
		run("ip", "-n", ns, "addr", "add", fmt.Sprintf("%s.%d/24", sub, i), "dev", "mlan0")
		run("ip", "-n", ns, "link", "set", "mlan0", "multicast", "on", "up")
		run("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", "mlan0")
	}
	// Home's cable to the bridge.
	run("ip", "link", "add", veth, "type", "veth", "peer", "name", "home", "netns", sw)
	run("ip", "-n", sw, "link", "set", "home", "master", "br0", "up")
	run("ip", "addr", "add", sub+".100/24", "dev", veth)
	run("ip", "link", "set", veth, "up")

	key := filepath.Join(h.dir, "client")
	run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
	run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(h.dir, "hostkey"))
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	// The fake clock: a date that prints the time 2 s ahead for +%s%N.
	fake := filepath.Join(h.dir, "fakebin")
	os.MkdirAll(fake, 0o755)
	date := "#!/bin/sh\nif [ \"$1\" = +%s%N ]; then echo $(( $(/usr/bin/date +%s%N) + 2000000000 )); else exec /usr/bin/date \"$@\"; fi\n"
	if err := os.WriteFile(filepath.Join(fake, "date"), []byte(date), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(h.dir, "auth"), pub, 0o600)
	os.WriteFile(filepath.Join(h.dir, "auth-fast"), append([]byte(`environment="PATH=`+fake+`:/usr/local/bin:/usr/bin:/bin" `), pub...), 0o600)
	// Skewed nodes: sessions whose manetlab processes read a wall clock
	// off by a test offset (node.SkewEnv), while date is right.
	for name, off := range map[string]string{"auth-slow": "-200ms", "auth-ahead": "250ms"} {
		os.WriteFile(filepath.Join(h.dir, name), append([]byte(`environment="MANETLAB_TEST_CLOCK_OFFSET=`+off+`" `), pub...), 0o600)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	var cfg strings.Builder
	start := func(ns, addr string, port int, auth string) {
		c := filepath.Join(h.dir, fmt.Sprintf("sshd-%s-%d.conf", ns, port))
		conf := fmt.Sprintf("ListenAddress %s\nPort %d\nHostKey %s\nPidFile none\nAuthorizedKeysFile %s\nStrictModes no\nUsePAM no\n"+
			"PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitUserEnvironment yes\nMaxSessions 32\n",
			addr, port, filepath.Join(h.dir, "hostkey"), filepath.Join(h.dir, auth))
		if err := os.WriteFile(c, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		log, _ := os.Create(c + ".log")
		cmd := exec.Command("ip", "netns", "exec", ns, "/usr/sbin/sshd", "-D", "-e", "-f", c)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		h.sshd = append(h.sshd, cmd)
		for deadline := time.Now().Add(10 * time.Second); ; {
			conn, err := net.DialTimeout("tcp", net.JoinHostPort(addr, strconv.Itoa(port)), time.Second)
			if err == nil {
				conn.Close()
				break
			}
			if time.Now().After(deadline) {
				b, _ := os.ReadFile(c + ".log")
				t.Fatalf("sshd on %s:%d does not answer: %v\n%s", addr, port, err, b)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for i, ns := range h.ns {
		addr := fmt.Sprintf("%s.%d", sub, i+1)
		start(ns, addr, 22, "auth")
		fmt.Fprintf(&cfg, "Host h%d\n  HostName %s\n", i+1, addr)
	}
	start(h.ns[2], sub+".3", 2222, "auth-fast")
	fmt.Fprintf(&cfg, "Host h3fast\n  HostName %s.3\n  Port 2222\n", sub)
	start(h.ns[1], sub+".2", 2223, "auth-slow")
	fmt.Fprintf(&cfg, "Host h2slow\n  HostName %s.2\n  Port 2223\n", sub)
	start(h.ns[2], sub+".3", 2223, "auth-ahead")
	fmt.Fprintf(&cfg, "Host h3ahead\n  HostName %s.3\n  Port 2223\n", sub)
	fmt.Fprintf(&cfg, "Host *\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n", key)
	h.config = filepath.Join(h.dir, "ssh_config")
	if err := os.WriteFile(h.config, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h.bin = buildStatic(t)
	return h
}

// rootHome is passwd with root's home directory set to home.
func rootHome(passwd []byte, home string) []byte {
	lines := strings.Split(string(passwd), "\n")
	for i, l := range lines {
		if f := strings.Split(l, ":"); len(f) == 7 && f[0] == "root" {
			f[5] = home
			lines[i] = strings.Join(f, ":")
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// buildStatic builds a static manetlab (CGO_ENABLED=0), the kind run
// --hosts copies to a host.
func buildStatic(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "manetlab")
	cmd := exec.Command(gobin, "build", "-o", bin, "../cmd/manetlab")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// leftOver lists the processes in the hosts' namespaces other than
// their sshd listeners, and ssh clients of this test's configuration
// here, waiting up to wait for them to go.
func (h *sshHosts) leftOver(wait time.Duration) []string {
	keep := map[int]bool{}
	for _, c := range h.sshd {
		keep[c.Process.Pid] = true
		// ip netns exec execs sshd: the same PID.
	}
	var left []string
	for deadline := time.Now().Add(wait); ; {
		left = nil
		for _, ns := range h.ns {
			b, _ := exec.Command("ip", "netns", "pids", ns).Output()
			for _, p := range strings.Fields(string(b)) {
				pid, _ := strconv.Atoi(p)
				if !keep[pid] {
					left = append(left, fmt.Sprintf("%s: pid %d %s", ns, pid, cmdline(pid)))
				}
			}
		}
		ps, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range ps {
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte(h.config)) {
				left = append(left, fmt.Sprintf("home: %s %s", filepath.Base(filepath.Dir(p)), strings.ReplaceAll(string(b), "\x00", " ")))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runStart starts `manetlab ARGS...` here, as a user runs run --hosts:
// SIGTERM when timeout passes (the test's cleanup kills it after), its
// standard output and error kept. The caller waits for it.
func (h *sshHosts) runStart(t *testing.T, timeout time.Duration, args ...string) (*exec.Cmd, *bytes.Buffer, *syncBuf) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, h.bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	stdout, stderr := &bytes.Buffer{}, &syncBuf{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, stderr
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// syncBuf is a buffer written by a process's copier and read by the test.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
