package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"manetlab/node/netnstest"
	"manetlab/protocol"
	"manetlab/trace"
)

const cliScenario = `
name: cli
duration: %s
nodes: {count: 3}
radio: {range: 250, hello: {period: 300ms}}
mobility: {model: static, area: [100, 100]}
protocol: {name: baseline/floodmax, params: {period: 300ms}}
`

// buildBinary builds manetlab into a temporary directory: the node tests
// need real processes to signal and kill.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "manetlab")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startReady starts the binary and waits for its "ready <pid>" line.
func startReady(t *testing.T, bin string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		l, _ := r.ReadString('\n')
		line <- l
		r.WriteTo(new(bytes.Buffer)) // drain, so the process never blocks on stdout
	}()
	select {
	case l := <-line:
		if want := fmt.Sprintf("ready %d\n", cmd.Process.Pid); l != want {
			t.Fatalf("%s: first line %q, want %q; stderr: %s", args[0], l, want, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no ready line within 10s; stderr: %s", args[0], stderr.String())
	}
	return cmd, &stderr
}

func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration, stderr *bytes.Buffer) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v: %v; stderr: %s", cmd.Args[1:3], err, stderr.String())
		}
	case <-time.After(within):
		cmd.Process.Kill()
		t.Fatalf("%v did not stop within %s", cmd.Args[1:3], within)
	}
}

func writeScenario(t *testing.T, duration string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cli.yaml")
	if err := os.WriteFile(p, []byte(fmt.Sprintf(cliScenario, duration)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNodeAndPlayCLI runs real processes in a namespace: node prints ready,
// stops at the duration with exit status 0 and end events; the player does
// the same; a node killed with SIGKILL leaves at most a truncated last
// line, and a restart appends to its trace.
func TestNodeAndPlayCLI(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	bin := buildBinary(t)
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte("00112233445566778899aabbccddeeff\n"), 0o600)

	// A clean run: player and two node processes, signed.
	sc := writeScenario(t, "2s")
	out := t.TempDir()
	start := fmt.Sprint(time.Now().Add(300 * time.Millisecond).UnixNano())
	play, playErr := startReady(t, bin, "mobility", "play", sc, "--run", "cli", "--start", start, "--key-file", keyFile, "--period", "50ms")
	n1, err1 := startReady(t, bin, "node", "--scenario", sc, "--ids", "1-2", "--out", out, "--run", "cli", "--start", start, "--key-file", keyFile)
	n2, err2 := startReady(t, bin, "node", "--scenario", sc, "--id", "3", "--out", out, "--run", "cli", "--start", start, "--key-file", keyFile)
	waitExit(t, n1, 8*time.Second, err1)
	waitExit(t, n2, 8*time.Second, err2)
	waitExit(t, play, 8*time.Second, playErr)
	for id := protocol.NodeID(1); id <= 3; id++ {
		evs, probs, err := trace.ReadFile(trace.NodeFile(out, id))
		if err != nil || len(probs) != 0 {
			t.Fatalf("node %d: %v %v", id, err, probs)
		}
		last := evs[len(evs)-1]
		if last.Ev != trace.EvEnd || evs[len(evs)-2].Ev != trace.EvStats {
			t.Errorf("node %d: trace ends with %q, %q", id, evs[len(evs)-2].Ev, last.Ev)
		}
		if !strings.Contains(evs[len(evs)-2].Text, "delivered=") {
			t.Errorf("node %d: stats %q", id, evs[len(evs)-2].Text)
		}
		leader := protocol.None
		for _, e := range evs {
			if e.Ev == string(protocol.NoteLeader) {
				leader = e.Leader
			}
		}
		if leader == protocol.None {
			t.Errorf("node %d ended without a leader", id)
		}
	}

	// SIGTERM stops a node early and cleanly.
	long := writeScenario(t, "60s")
	out2 := t.TempDir()
	n, nerr := startReady(t, bin, "node", "--scenario", long, "--ids", "1-3", "--out", out2, "--run", "kill")
	time.Sleep(500 * time.Millisecond)
	n.Process.Signal(syscall.SIGTERM)
	waitExit(t, n, 5*time.Second, nerr)
	evs, probs, _ := trace.ReadFile(trace.NodeFile(out2, 1))
	if len(probs) != 0 || evs[len(evs)-1].Ev != trace.EvEnd {
		t.Fatalf("after SIGTERM: problems %v, last event %+v", probs, evs[len(evs)-1])
	}

	// SIGKILL mid-run, then a restart of the same run appends.
	out3 := t.TempDir()
	n, _ = startReady(t, bin, "node", "--scenario", long, "--ids", "1-3", "--out", out3, "--run", "kill")
	time.Sleep(700 * time.Millisecond)
	n.Process.Kill()
	n.Wait()
	for id := protocol.NodeID(1); id <= 3; id++ {
		evs, probs, err := trace.ReadFile(trace.NodeFile(out3, id))
		if err != nil || len(probs) > 1 || len(evs) < 3 {
			t.Fatalf("node %d after SIGKILL: %d events, problems %v, %v", id, len(evs), probs, err)
		}
	}
	n, nerr = startReady(t, bin, "node", "--scenario", long, "--id", "1", "--out", out3, "--run", "kill")
	time.Sleep(300 * time.Millisecond)
	n.Process.Signal(syscall.SIGINT)
	waitExit(t, n, 5*time.Second, nerr)
	evs, probs, _ = trace.ReadFile(trace.NodeFile(out3, 1))
	starts := 0
	for _, e := range evs {
		if e.Ev == trace.EvStart {
			starts++
		}
	}
	if evs[0].Ev != trace.EvHeader || starts != 2 || len(probs) > 1 || evs[len(evs)-1].Ev != trace.EvEnd {
		t.Errorf("after a restart: %d starts, problems %v, first %q last %q", starts, probs, evs[0].Ev, evs[len(evs)-1].Ev)
	}
}

// TestNodeCLIRejectsBadInput needs no network: errors come before any
// socket is opened.
func TestNodeCLIRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("radio: {range: -5}\n"), 0o644)
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("nodes: {count: 3}\n"), 0o644)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"node", "--scenario", bad, "--id", "1", "--out", dir, "--run", "r"}, []string{"bad.yaml", "radio.range"}},
		{[]string{"node", "--scenario", good, "--id", "9", "--out", dir, "--run", "r"}, []string{"node 9"}},
		{[]string{"node", "--scenario", good, "--ids", "3-1", "--out", dir, "--run", "r"}, []string{"3-1"}},
		{[]string{"node", "--scenario", good, "--out", dir, "--run", "r"}, []string{"--id"}},
		{[]string{"node", "--scenario", good, "--id", "1", "--out", dir}, []string{"run"}},
		{[]string{"mobility", "play", good, "--run", "r", "--period", "0s"}, []string{"period"}},
		{[]string{"node", "--scenario", good, "--id", "1", "--out", dir, "--run", "r", "--dilation", "-1"}, []string{"dilation -1"}},
		{[]string{"mobility", "play", good, "--run", "r", "--dilation", "10001"}, []string{"dilation 10001"}},
		{[]string{"run", good, "--out", dir, "--dilation", "0"}, []string{"--dilation 0"}},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		app := newApp()
		app.Writer, app.ErrWriter = &out, &errb
		err := app.Run(reorderArgs(app, append([]string{"manetlab"}, c.args...)))
		if err == nil {
			t.Errorf("%v: accepted", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error()+errb.String(), w) {
				t.Errorf("%v: error %q does not mention %q", c.args, err, w)
			}
		}
	}
}

// TestKeylessHostIsNamed: issue 21's host without the key, with real
// processes on loopback: nodes 1-2 in one process with the run's key,
// node 3 in another without it. Node 3 accepts their signed frames while
// they drop its unsigned ones, a silent one-way partition. Its frames
// prove no sender (issue 40, item 8): run --collected names the address
// they came from, the nodes that send from it (all three: one machine),
// the reason (no-hmac) and the nodes that refused them, before the
// verdict, never "node 3's frames", and exits with status 3.
func TestKeylessHostIsNamed(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	bin := buildBinary(t)
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte("00112233445566778899aabbccddeeff\n"), 0o600)
	sc := writeScenario(t, "3s")
	out := t.TempDir()
	start := fmt.Sprint(time.Now().Add(500 * time.Millisecond).UnixNano())
	play, playErr := startReady(t, bin, "mobility", "play", sc, "--run", "keyless", "--start", start, "--key-file", keyFile, "--period", "50ms")
	n1, err1 := startReady(t, bin, "node", "--scenario", sc, "--ids", "1-2", "--out", out, "--run", "keyless", "--start", start, "--key-file", keyFile)
	n2, err2 := startReady(t, bin, "node", "--scenario", sc, "--id", "3", "--out", out, "--run", "keyless", "--start", start)
	waitExit(t, n1, 10*time.Second, err1)
	waitExit(t, n2, 10*time.Second, err2)
	waitExit(t, play, 10*time.Second, playErr)

	got, err := runCLI(t, "run", sc, "--collected", "--out", out, "--run", "keyless")
	t.Logf("run --collected:\n%s", got)
	var st exitStatus
	if !errors.As(err, &st) || st.code != ExitCrossHost {
		t.Errorf("run --collected: %v, want exit status %d", err, ExitCrossHost)
	}
	want := regexp.MustCompile(`problem: frames from \S+, the address of 3 nodes \(1, 2, 3\), proving no sender, were refused by 2 nodes \(\d+ no-hmac: unsigned: it runs without the key the others have\)[^\n]*\(refused by 1, 2\)`)
	loc := want.FindStringIndex(got)
	if loc == nil || strings.Contains(got, "'s frames were refused") {
		t.Fatalf("the unsigned frames are not named by their address, or a node is blamed:\n%s", got)
	}
	if v := strings.Index(got, "messages (sent by the protocol"); v < loc[0] || !strings.HasPrefix(got, "verdict: ") {
		t.Errorf("the verdict line is not first, or the problem is not printed before the figures:\n%s", got)
	}
}
