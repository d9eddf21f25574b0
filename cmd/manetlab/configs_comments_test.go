package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// configCommands are the `manetlab ...` command lines in the comments of
// the shipped configs (continuation lines joined), by file and line.
func configCommands(t *testing.T) []readmeCommand {
	t.Helper()
	files, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	var cmds []readmeCommand
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for ln := 1; sc.Scan(); ln++ {
			text := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "#"))
			if !strings.HasPrefix(sc.Text(), "#") || !strings.HasPrefix(text, "manetlab ") {
				continue
			}
			start := ln
			for strings.HasSuffix(text, `\`) && sc.Scan() {
				ln++
				text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(strings.TrimPrefix(sc.Text(), "#"))
			}
			cmds = append(cmds, readmeCommand{filepath.Base(f), start, filepath.Base(f) + ": " + text})
		}
	}
	return cmds
}

// TestConfigCommentsPaste pastes every command line of the configs'
// comments into bash, as a reader would, with manetlab standing for a
// function that prints its arguments: bash must run it as one command
// (an unquoted '|' made a pipe into "8: command not found", issue 35),
// and every sweep among them must plan its runs with those arguments
// (--plan: the grid parses, no run is made).
func TestConfigCommentsPaste(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	cmds := configCommands(t)
	sweeps := 0
	for _, c := range cmds {
		file, line, _ := strings.Cut(c.text, ": ")
		script := "set -e\nmanetlab() { printf '%s\\0' \"$@\"; }\n" + line + "\n"
		cmd := exec.Command(bash, "-c", script)
		cmd.Dir = "../.."
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil || errb.Len() > 0 {
			t.Errorf("%s:%d: pasted into bash: %v %s\n  %s", file, c.line, err, errb.String(), line)
			continue
		}
		args := strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00")
		if len(args) == 0 || args[0] != "sweep" {
			continue
		}
		sweeps++
		for i, a := range args {
			if strings.HasPrefix(a, "configs/") {
				args[i] = "../../" + a
			}
		}
		if o, err := runCLI(t, append(args, "--plan")...); err != nil || !strings.Contains(o, "\t") {
			t.Errorf("%s:%d: sweep --plan: %v\n%s", file, c.line, err, o)
		}
	}
	if len(cmds) < 10 || sweeps < 5 {
		t.Fatalf("found %d command lines, %d sweeps: the scan misses the comments", len(cmds), sweeps)
	}
}
