package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/node/link"
)

// readmeSkipped are the README's command lines that are not run (each
// key starts the lines it stands for), with why: synopses with
// placeholders, and the runs on other machines. Every
// entry must still be in the README.
var readmeSkipped = map[string]string{
	"manetlab run SCENARIO.yaml [--out DIR] [--seed N] [--set path=value]... [--json]":                         "synopsis",
	"manetlab sim SCENARIO.yaml [--out DIR] [--seed N] [--set path=value]... [--json]":                         "synopsis",
	"manetlab sweep SCENARIO.yaml --vary path=v1|v2... [--seeds N] [--json] [--metric M --html F]":             "synopsis",
	"manetlab node --scenario S --id N --out DIR --run NAME ...":                                               "synopsis",
	"manetlab mobility play S --run NAME ...":                                                                  "synopsis",
	"manetlab mobility sample FILE.ns2 --at START:END:STEP":                                                    "synopsis",
	"manetlab mobility gen rwp --nodes N --area WxH --speed MIN:MAX --pause P --duration D --seed S [-o FILE]": "synopsis",
	"manetlab trace merge|check|report|export|collect ...":                                                     "synopsis",
	"manetlab explore SCENARIO.yaml [--strategy bfs|dfs|random|pct]":                                           "synopsis",
	"manetlab studio":                   "serves a page until interrupted (go test ./studio runs it in Chromium)",
	"manetlab run SCENARIO.yaml --live": "serves a page during a run (TestRunLiveInChromium runs it in Chromium)",
	"manetlab sim configs/ring-chang-roberts.yaml --schedule schedule.json":                      "needs a schedule saved in the studio (go test ./sim -run Schedule replays one)",
	"manetlab run SCENARIO.yaml [--out DIR] [--seed N] [--set path=value]... [--json] [--quiet]": "synopsis",
	"manetlab run configs/quickstart.yaml --hosts h1,h2,h3":                                      "needs machines reachable over ssh (go test ./testbed runs --hosts on namespace hosts with their own sshd)",
}

// readmeFiles are the files whose commands TestREADMEExamplesRun runs, in
// order: README.md and the reference pages its sections moved to (issue
// 35), relative to the repository.
var readmeFiles = []string{"README.md", "docs/usage.md", "docs/sim.md", "docs/run.md", "docs/sweep.md",
	"docs/aggregator.md", "docs/scenarios.md", "docs/protocols.md", "docs/development.md"}

// readmeCommand is one command line of the README's code blocks.
type readmeCommand struct {
	file string
	line int
	text string // as written, continuation lines joined, comment dropped
}

// readmeCommands finds the command lines in the indented code blocks of
// readmeFiles: those that start with "manetlab " or "go run
// ./cmd/manetlab ", and, for the entries of readmeSkipped, anywhere in a
// code line.
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	for _, name := range readmeFiles {
		cmds = append(cmds, fileCommands(t, name)...)
	}
	return cmds
}

// fileCommands is readmeCommands of one file.
func fileCommands(t *testing.T, name string) []readmeCommand {
	t.Helper()
	f, err := os.Open(filepath.Join("../..", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []readmeCommand
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		raw := sc.Text()
		if !strings.HasPrefix(raw, "    ") {
			continue
		}
		text := strings.TrimSpace(raw)
		start := ln
		for strings.HasSuffix(text, `\`) && sc.Scan() {
			ln++
			text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(sc.Text())
		}
		if i := strings.Index(text, "manetlab "); i > 0 && !strings.HasPrefix(text, "go run ./cmd/manetlab ") {
			if _, skip := skipReason(text[i:]); skip {
				cmds = append(cmds, readmeCommand{name, start, text[i:]})
			}
			continue
		}
		if strings.HasPrefix(text, "manetlab ") || strings.HasPrefix(text, "go run ./cmd/manetlab ") {
			cmds = append(cmds, readmeCommand{name, start, dropComment(text)})
		}
	}
	return cmds
}

// skipReason says why the README line text is not run, if it is not.
func skipReason(text string) (string, bool) {
	for k, why := range readmeSkipped {
		if strings.HasPrefix(text, k) {
			return why, true
		}
	}
	return "", false
}

// dropComment cuts a shell comment ("  # ...") outside quotes.
func dropComment(s string) string {
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}

// shellWords splits a command line as a POSIX shell would, for the
// quoting the README uses ('...', "...", backslash).
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			if c == '"' {
				quote = 0
			} else if c == '\\' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unbalanced %c", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// optionalFlags writes the README's optional flag groups ("[--json]",
// "[--stabilisation 15s]") as given and drops other optional words
// ("[more dirs]"); a YAML list value (faults=[]) is no group.
func optionalFlags(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "[") {
			out = append(out, w)
			continue
		}
		group := []string{strings.TrimPrefix(w, "[")}
		for !strings.HasSuffix(group[len(group)-1], "]") && i+1 < len(words) {
			i++
			group = append(group, words[i])
		}
		group[len(group)-1] = strings.TrimSuffix(group[len(group)-1], "]")
		if strings.HasPrefix(group[0], "-") {
			out = append(out, group...)
		}
	}
	return out
}

// TestREADMEExamplesRun runs every command line of the README's code
// blocks, in order, with the built binary, in a scratch directory where
// configs/ is the repository's, so that the README's examples cannot rot.
// Adjustments, all of them: "go run ./cmd/manetlab" is the built binary;
// sim, sweep and run get --set duration=2s appended (quick, and it drops
// quickstart's later faults with a warning, as a user's shorter run
// would); optional flags in brackets are given; trace collect listens on
// 127.0.0.1:0 instead of port 47100 (other tests may hold that port) and is
// stopped after a second of listening; trace check may exit 1 with its
// report (a violation is its documented answer). run needs multicast on
// lo or root for a private network namespace, and is skipped otherwise.
// readmeSkipped lists the lines not run.
func TestREADMEExamplesRun(t *testing.T) {
	cmds := readmeCommands(t)
	for k := range readmeSkipped {
		if !slices.ContainsFunc(cmds, func(c readmeCommand) bool { return strings.HasPrefix(c.text, k) }) {
			t.Errorf("readmeSkipped lists %q, which the README no longer has", k)
		}
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	abs, err := filepath.Abs("../../configs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(dir, "configs")); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cmds {
		name := fmt.Sprintf("%s:%d", c.file, c.line)
		if why, skip := skipReason(c.text); skip {
			t.Logf("%s: not run (%s): %s", name, why, c.text)
			continue
		}
		t.Run(name, func(t *testing.T) {
			words, err := shellWords(c.text)
			if err != nil {
				t.Fatalf("%s: %v", c.text, err)
			}
			words = optionalFlags(words)
			if words[0] == "go" {
				words = words[3:] // go run ./cmd/manetlab
			} else {
				words = words[1:] // manetlab
			}
			runCommandLine(t, bin, dir, c.text, words)
		})
		ran++
	}
	if ran < 15 {
		t.Errorf("ran %d README commands; the parser is missing some", ran)
	}
}

// runCommandLine runs one README command (args after the binary's name).
func runCommandLine(t *testing.T, bin, dir, text string, args []string) {
	switch args[0] {
	case "sim", "sweep", "run":
		args = append(args, "--set", "duration=2s")
	}
	if args[0] == "run" {
		if _, err := link.Loopback(); err != nil && os.Geteuid() != 0 {
			t.Skipf("%s: run needs multicast on lo or root for a private network namespace: %v", text, err)
		}
		args = append(args, "--quiet")
	}
	server := len(args) > 1 && args[0] == "trace" && args[1] == "collect"
	if server {
		for i := range args {
			if strings.HasSuffix(args[i], ":47100") {
				args[i] = "127.0.0.1:0"
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if server {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			t.Fatalf("%s: ended at once (%v)\n%s%s", text, err, stdout.String(), stderr.String())
		case <-time.After(time.Second):
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		}
		return
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && args[0] == "trace" && args[1] == "check" &&
		strings.Contains(stderr.String(), "a property is invalid") && stdout.Len() > 0 {
		t.Logf("%s: exit 1, a property is invalid (trace check's documented answer)", text)
		return
	}
	if errors.As(err, &ee) && (ee.ExitCode() == 1 || ee.ExitCode() == 2) && strings.Contains(stderr.String(), "the verdict is") && stdout.Len() > 0 {
		t.Logf("%s: exit %d, the verdict's documented status (docs/analysis.md, \"Exit statuses\")", text, ee.ExitCode())
		return
	}
	if err != nil {
		t.Fatalf("%s (ran %q): %v\nstdout:\n%s\nstderr:\n%s", text, args, err, stdout.String(), stderr.String())
	}
	if stdout.Len() == 0 && stderr.Len() == 0 {
		t.Errorf("%s: printed nothing", text)
	}
}
