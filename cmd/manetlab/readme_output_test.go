package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeOutput is a sample output of the docs: a fenced block marked
// "output", and the command line of the indented block before it.
type readmeOutput struct {
	file    string
	line    int
	command string
	lines   []string
}

// readmeOutputs finds the sample outputs of readmeFiles.
func readmeOutputs(t *testing.T) []readmeOutput {
	t.Helper()
	var outs []readmeOutput
	for _, name := range readmeFiles {
		cmds := fileCommands(t, name)
		f, err := os.Open(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		var cur *readmeOutput
		for ln := 1; sc.Scan(); ln++ {
			l := sc.Text()
			switch {
			case cur == nil && l == "```output":
				cur = &readmeOutput{file: name, line: ln}
				for _, c := range cmds {
					if c.line < ln {
						cur.command = c.text
					}
				}
			case cur != nil && l == "```":
				outs = append(outs, *cur)
				cur = nil
			case cur != nil:
				cur.lines = append(cur.lines, l)
			}
		}
		f.Close()
	}
	return outs
}

// matchSample reports the first line of sample not found in out, in
// order ("..." skips any lines); "" when every one is.
func matchSample(sample []string, out string) string {
	got := strings.Split(out, "\n")
	i := 0
	for _, want := range sample {
		if want == "..." {
			continue
		}
		for i < len(got) && strings.TrimRight(got[i], " ") != want {
			i++
		}
		if i == len(got) {
			return want
		}
		i++
	}
	return ""
}

// TestREADMESampleOutputs runs the command before each sample output of
// the README and its pages, as written (not shortened), and requires every
// line of the sample, in order, in what it prints: a sample cannot fall
// behind the program (issue 35: README's quickstart output no longer
// matched sim's).
func TestREADMESampleOutputs(t *testing.T) {
	outs := readmeOutputs(t)
	if len(outs) == 0 {
		t.Fatal("no sample output in the README: the scan misses the ```output blocks")
	}
	if matchSample([]string{"a", "...", "c"}, "a\nb\nc\n") != "" || matchSample([]string{"c", "a"}, "a\nb\nc\n") != "a" {
		t.Fatal("matchSample does not keep the order")
	}
	bin := buildBinary(t)
	abs, err := filepath.Abs("../../configs")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		name := fmt.Sprintf("%s:%d", o.file, o.line)
		words, err := shellWords(o.command)
		if err != nil || len(words) < 2 || words[0] != "manetlab" {
			t.Fatalf("%s: the command before the sample, %q, is no manetlab command (%v)", name, o.command, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, bin, words[1:]...)
		cmd.Dir = t.TempDir()
		if err := os.Symlink(abs, filepath.Join(cmd.Dir, "configs")); err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		cmd.Run() // a verdict's status (2: unsettled) is part of the sample's story
		cancel()
		if miss := matchSample(o.lines, stdout.String()); miss != "" {
			t.Errorf("%s: %s no longer prints\n  %s\nin order; it prints:\n%s", name, o.command, miss, stdout.String())
		}
	}
}
