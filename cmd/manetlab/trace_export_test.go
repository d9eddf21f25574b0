package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/collect"
)

func TestTraceExportCommand(t *testing.T) {
	dir := simRun(t)
	for _, format := range []string{"shiviz", "netanim"} {
		out := filepath.Join(t.TempDir(), "out")
		app := newApp()
		var stderr bytes.Buffer
		app.Writer, app.ErrWriter = &bytes.Buffer{}, &stderr
		args := []string{"manetlab", "trace", "export", "--format", format, dir, "-o", out, "--nodes", "1-3", "--from", "1s", "--to", "5s"}
		if err := app.Run(reorderArgs(app, args)); err != nil {
			t.Fatalf("%s: %v\n%s", format, err, stderr.String())
		}
		data, err := os.ReadFile(out)
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %v, %d bytes", format, err, len(data))
		}
		if !strings.Contains(stderr.String(), "exported ") {
			t.Errorf("%s: stderr %q", format, stderr.String())
		}
	}
}

func TestTraceCollectCommand(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	out := t.TempDir()
	col, err := collect.Listen(addr, collect.Options{Dir: out, Run: "c1", Members: []protocol.NodeID{1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveUntil(ctx, col) }()
	local := t.TempDir()
	w, err := trace.Create(trace.NodeFile(local, 1), false)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: "c1", Node: 1})
	w.Write(&trace.Event{T: 5, Node: 1, Ev: trace.EvStart})
	w.Close()
	s := collect.Stream(collect.StreamOptions{Addr: addr, Path: trace.NodeFile(local, 1), Run: "c1", Node: 1})
	if err := s.Finish(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(trace.NodeFile(local, 1))
	b, _ := os.ReadFile(trace.NodeFile(out, 1))
	if !bytes.Equal(a, b) {
		t.Fatalf("collected %q, local %q", b, a)
	}
}
