// Package launchtest is a fake `manetlab node` and `manetlab mobility
// play` for tests of the launcher: it honours their command-line contract
// (flags, the "ready <pid>" line, the start time, the duration, SIGTERM,
// node-<id>.jsonl appended on recovery) without any network, and elects
// the best node of the scenario by fiat. Misbehaviour is chosen through
// the environment variable MANETLAB_FAKE (see Main).
//
// It imports protocol, scenario and trace; only tests use it.
package launchtest

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// Env names the variable that makes a fake misbehave: a comma-separated
// list of fail=ID (exit 1 with a message before ready), hang=ID (never
// print ready), garble=ID (print something else than ready),
// failrestart=ID (fail as fail=ID, but only when the node's trace
// already holds something: its recoveries fail),
// ignoreterm=ID (ignore SIGTERM and SIGINT), die=ID@SECONDS (exit 3 that
// long after the start), diskfull=ID (report a trace it cannot write, as
// a node on a full disk does). ID 0 means the player.
const Env = "MANETLAB_FAKE"

// PIDDir is the directory, inside --out (the player uses its --run name
// under os.TempDir() instead), where every fake records its PID, so tests
// can check that none is left running.
const PIDDir = "fake-pids"

// ArgsLog is the file inside --out where every fake node appends its
// command line, one per start.
const ArgsLog = "fake-args.log"

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// Main runs the fake with args (without the program name: "node ..." or
// "mobility play ...") and returns the exit status.
func Main(args []string) int {
	if err := run(args); err != nil {
		fmt.Fprintln(os.Stderr, "manetlab:", err)
		return 1
	}
	return 0
}

func run(args []string) error {
	player := false
	switch {
	case len(args) >= 1 && args[0] == "node":
		args = args[1:]
	case len(args) >= 3 && args[0] == "mobility" && args[1] == "play":
		player = true
		args = append(args[3:], "--scenario", args[2])
	default:
		return fmt.Errorf("fake: unknown command %q", args)
	}
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	var sets multi
	fs.Var(&sets, "set", "")
	path := fs.String("scenario", "", "")
	id := fs.Uint("id", 0, "")
	idList := fs.String("ids", "", "")
	out := fs.String("out", "", "")
	runName := fs.String("run", "", "")
	startNS := fs.Int64("start", 0, "")
	startStdin := fs.Bool("start-stdin", false, "")
	controlStdin := fs.Bool("control-stdin", false, "")
	seed := fs.Uint64("seed", 0, "")
	dilation := fs.Int64("dilation", 1, "")
	for _, s := range []string{"group", "control", "iface", "key-file", "ttl", "period", "trace-sink", "host"} {
		fs.String(s, "", "")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *seed != 0 {
		sets = append(sets, fmt.Sprintf("seed=%d", *seed))
	}
	s, err := scenario.Load(*path, sets)
	if err != nil {
		return err
	}
	var ids []protocol.NodeID
	if *id != 0 {
		ids = []protocol.NodeID{protocol.NodeID(*id)}
	} else if *idList != "" {
		if ids, err = parseIDs(*idList); err != nil {
			return err
		}
	}
	if !player && (len(ids) == 0 || *out == "" || *runName == "") {
		return fmt.Errorf("fake node needs --id or --ids, --out and --run")
	}
	me := ids
	if player {
		me = []protocol.NodeID{0}
	}
	mode := modes(me)
	pidDir := filepath.Join(*out, PIDDir)
	if player {
		pidDir = filepath.Join(os.TempDir(), "manetlab-fake-"+*runName, PIDDir)
	}
	os.MkdirAll(pidDir, 0o755)
	os.WriteFile(filepath.Join(pidDir, strconv.Itoa(os.Getpid())), nil, 0o644)
	if !player {
		f, err := os.OpenFile(filepath.Join(*out, ArgsLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d %s\n", os.Getpid(), strings.Join(args, " "))
			f.Close()
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	if mode["ignoreterm"] {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	restarted := false
	for _, id := range ids {
		if st, err := os.Stat(trace.NodeFile(*out, id)); err == nil && st.Size() > 0 {
			restarted = true
		}
	}
	switch {
	case mode["fail"], mode["failrestart"] && restarted:
		return fmt.Errorf("fake: told to fail")
	case mode["hang"]:
		select {}
	case mode["garble"]:
		fmt.Println("hello there")
	default:
		fmt.Printf("ready %d\n", os.Getpid())
	}
	if *startStdin {
		// The readiness handshake: the start comes once every process
		// is ready.
		var ns int64
		if _, err := fmt.Fscanf(os.Stdin, "start %d\n", &ns); err != nil {
			return fmt.Errorf("fake: --start-stdin: %v", err)
		}
		*startNS = ns
	}
	start := time.Unix(0, *startNS)
	k := time.Duration(max(*dilation, 1))
	end := start.Add(s.Duration.D() * k)
	if player {
		return wait(sig, time.Until(end), mode)
	}

	files := map[protocol.NodeID]*os.File{}
	for _, id := range ids {
		f, err := os.OpenFile(trace.NodeFile(*out, id), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		files[id] = f
		if st, _ := f.Stat(); st.Size() == 0 {
			write(f, &trace.Event{Node: id, Ev: trace.EvHeader, Schema: trace.Schema, Run: *runName,
				Driver: "node", Protocol: s.Protocol.Name, Seed: s.Seed})
		}
	}
	select {
	case <-time.After(time.Until(start)):
	case <-sig:
		return nil
	}
	best, bestV := protocol.None, 0.0
	for _, m := range s.Members() {
		if best == protocol.None || protocol.Better(m.ID, m.Value, best, bestV) {
			best, bestV = m.ID, m.Value
		}
	}
	now := func() int64 { return int64(max(0, time.Since(start)) / k) }
	for _, id := range ids {
		write(files[id], &trace.Event{T: now(), Node: id, Ev: trace.EvStart})
		write(files[id], &trace.Event{T: now(), Node: id, Ev: string(protocol.NoteLeader), Leader: best})
		if mode["diskfull"] {
			// What a node prints when its trace cannot be written.
			fmt.Printf("trace-error %d trace %s: write: no space left on device\n", id, trace.NodeFile(*out, id))
		}
	}
	if *controlStdin {
		go control(files, now)
	}
	err = wait(sig, time.Until(end), mode)
	for _, id := range ids {
		write(files[id], &trace.Event{T: now(), Node: id, Ev: trace.EvEnd})
	}
	return err
}

// control answers the faults by hand on standard input as a node does
// (--control-stdin): a crash or a recovery of a hosted node is written to
// its trace, a cut or a heal only remembered; each answered on standard
// output with the time, or refused as a node refuses it.
func control(files map[protocol.NodeID]*os.File, now func() int64) {
	down := map[protocol.NodeID]bool{}
	cut := map[[2]protocol.NodeID]bool{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		var ids []protocol.NodeID
		for _, x := range f[1:] {
			v, _ := strconv.ParseUint(x, 10, 32)
			ids = append(ids, protocol.NodeID(v))
		}
		why, t := "", now()
		switch {
		case len(ids) == 0 || files[ids[0]] == nil:
			why = "not hosted by this process"
		case f[0] == "crash" && down[ids[0]], f[0] == "recover" && !down[ids[0]]:
			why = fmt.Sprintf("node %d is %s already", ids[0], map[bool]string{true: "down", false: "up"}[down[ids[0]]])
		case f[0] == "crash" || f[0] == "recover":
			down[ids[0]] = f[0] == "crash"
			write(files[ids[0]], &trace.Event{T: t, Node: ids[0], Ev: f[0]})
			if f[0] == "recover" {
				write(files[ids[0]], &trace.Event{T: t, Node: ids[0], Ev: trace.EvStart})
			}
		case (f[0] == "cut" || f[0] == "heal") && len(ids) == 2 && cut[[2]protocol.NodeID(ids)] != (f[0] == "cut"):
			cut[[2]protocol.NodeID(ids)] = f[0] == "cut"
		default:
			why = "cannot " + sc.Text()
		}
		if why != "" {
			fmt.Printf("control-done error: %s\n", why)
			continue
		}
		fmt.Printf("control-done %d\n", t)
	}
}

// wait returns after d, or on a signal; die=ID@S makes it exit 3 early.
func wait(sig chan os.Signal, d time.Duration, mode map[string]bool) error {
	for k := range mode {
		if secs, ok := strings.CutPrefix(k, "die@"); ok {
			s, _ := strconv.ParseFloat(secs, 64)
			time.Sleep(time.Duration(s * float64(time.Second)))
			fmt.Fprintln(os.Stderr, "fake: told to die")
			os.Exit(3)
		}
	}
	select {
	case <-time.After(d):
	case <-sig:
	}
	return nil
}

func write(f *os.File, e *trace.Event) {
	f.Write(append(trace.AppendJSON(nil, e), '\n'))
}

// modes are the misbehaviours Env asks of any of ids ("die@S" for die).
func modes(ids []protocol.NodeID) map[string]bool {
	m := map[string]bool{}
	for _, item := range strings.Split(os.Getenv(Env), ",") {
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			continue
		}
		v, at, hasAt := strings.Cut(v, "@")
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			continue
		}
		for _, id := range ids {
			if protocol.NodeID(n) == id {
				if hasAt {
					k += "@" + at
				}
				m[k] = true
			}
		}
	}
	return m
}

// parseIDs reads "1-50,60,70-80".
func parseIDs(s string) ([]protocol.NodeID, error) {
	var ids []protocol.NodeID
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("--ids %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 32); err != nil {
				return nil, fmt.Errorf("--ids %q: %w", s, err)
			}
		}
		for i := a; i <= b; i++ {
			ids = append(ids, protocol.NodeID(i))
		}
	}
	return ids, nil
}

// PIDs lists the PIDs the fakes of a run recorded under dir/PIDDir.
func PIDs(dir string) []int {
	es, _ := os.ReadDir(filepath.Join(dir, PIDDir))
	var out []int
	for _, e := range es {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// PlayerPIDDir is where the fake player of run name records its PID.
func PlayerPIDDir(run string) string {
	return filepath.Join(os.TempDir(), "manetlab-fake-"+run)
}

// Running reports whether pid is a live process (not a zombie).
func Running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}
