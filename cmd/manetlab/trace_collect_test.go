package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/collect"
)

// runCollect runs `trace collect` in an app of its own until ctx ends.
func runCollect(ctx context.Context, stderr io.Writer, args ...string) error {
	app := &cli.App{Name: "manetlab", Commands: []*cli.Command{traceCommand()}, Writer: io.Discard, ErrWriter: stderr}
	return app.RunContext(ctx, append([]string{"manetlab", "trace", "collect"}, args...))
}

func TestTraceCollectNeeds(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out, "--run", "r"}, "which nodes may stream"},
		{[]string{"--out", out, "--scenario", "../../configs/static-line.yaml"}, "must be told the run"},
		{[]string{"--out", out, "--run", "r", "--scenario", "../../configs/static-line.yaml", "--key-file", filepath.Join(out, "none")}, "key file"},
	} {
		err := runCollect(context.Background(), io.Discard, append(tc.args, "--listen", "127.0.0.1:0")...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// The collector started from the command line with a key file collects a
// node holding the key, and refuses one of the scenario's nodes without it
// and a node the scenario does not have.
func TestTraceCollectKeyFile(t *testing.T) {
	dir, out, local := t.TempDir(), t.TempDir(), t.TempDir()
	keyFile := filepath.Join(dir, "run.key")
	os.WriteFile(keyFile, []byte("00112233445566778899aabbccddeeff\n"), 0o600)
	key := []byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr syncWriter
	go func() {
		done <- runCollect(ctx, &stderr, "--listen", addr, "--out", out, "--run", "kf",
			"--scenario", "../../configs/static-line.yaml", "--key-file", keyFile)
	}()
	write := func(id uint32) string {
		w, err := trace.Create(trace.NodeFile(local, protoID(id)), false)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(&trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: "kf", Node: protoID(id)})
		w.Write(&trace.Event{T: 5, Node: protoID(id), Ev: trace.EvStart})
		w.Close()
		return trace.NodeFile(local, protoID(id))
	}
	stream := func(id uint32, key []byte) error {
		s := collect.Stream(collect.StreamOptions{Addr: addr, Path: write(id), Run: "kf", Node: protoID(id), Key: key,
			MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
		return s.Finish(time.Now().Add(5 * time.Second))
	}
	if err := stream(1, key); err != nil {
		t.Fatalf("node 1 with the key: %v\n%s", err, stderr.String())
	}
	if err := stream(2, nil); err == nil || !strings.Contains(err.Error(), "needs the run's key") {
		t.Errorf("node 2 without the key: %v", err)
	}
	if err := stream(9999, key); err == nil || !strings.Contains(err.Error(), "not in the run's scenario") {
		t.Errorf("node 9999: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(trace.NodeFile(local, 1))
	b, _ := os.ReadFile(trace.NodeFile(out, 1))
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("collected %q, local %q", b, a)
	}
	if !strings.Contains(stderr.String(), "nodes must prove they hold the run's key") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func protoID(id uint32) protocol.NodeID { return protocol.NodeID(id) }

// syncWriter is a buffer goroutines may write while the test reads it.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
