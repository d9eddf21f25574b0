package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"manetlab/internal/safefs"
	"manetlab/scenario"
	"manetlab/trace"
)

// LockFileName is the file in a run directory that a run holds an
// exclusive lock (flock) on while it runs: a second run on the same
// directory is refused instead of appending to the first one's traces.
const LockFileName = "run.lock"

// ScenarioFileName is the copy of the scenario, as resolved at the start
// (overrides, seed and defaults applied), that every process of a run
// reads, recoveries included: editing the scenario file during a run
// changes nothing in it.
const ScenarioFileName = "scenario.yaml"

// lockOut takes the exclusive lock of run directory dir (which exists),
// or says which process holds it. The lock lasts until the returned file
// is closed, or the process ends however it ends.
func lockOut(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFileName)
	f, err := trace.OpenNoFollow(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := tryLock(f); err != nil {
		holder := ""
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = fmt.Sprintf(" (pid %d holds its lock %s)", pid, path)
			}
		}
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("output directory %s is in use by another run%s: wait for it to end, or choose another --out", dir, holder)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Who holds it, for the message above; the lock is what counts.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// OpenOut readies run directory dir for a run that is not launched
// from here (run --hosts gathers one there): it checks and creates dir
// and dir/log, takes its lock (closing the returned file releases it),
// and refuses a directory holding another run's files unless replace,
// which removes them first, as Run does.
func OpenOut(dir string, replace bool) (*os.File, error) {
	if err := trace.CheckOutDir(dir); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if err := safefs.MkdirAll(filepath.Join(dir, "log")); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	lock, err := lockOut(dir)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if err := clearOut(dir, replace); err != nil {
		lock.Close()
		return nil, fmt.Errorf("run: %w", err)
	}
	return lock, nil
}

// previousRun lists what a run leaves in dir that a new run would mix
// with its own: the run file, node traces (one file each or combined),
// node stores (which a node restarted after a crash reads back), the
// scenario copy and the faults record. Logs apart: they are appended to, one run after the
// other.
func previousRun(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, e := range es {
		n := e.Name()
		switch {
		case n == trace.RunFileName, n == trace.RunFileName+".tmp", n == trace.NodesFileName, n == ScenarioFileName, n == trace.FaultsFileName,
			strings.HasPrefix(n, "node-") && (strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".store") || strings.Contains(n, ".store.tmp-")):
			found = append(found, n)
		}
	}
	slices.Sort(found)
	return found, nil
}

// clearOut refuses a run directory that holds another run's files, unless
// replace: then it removes them (links themselves, never what they point
// to) and the previous logs.
func clearOut(dir string, replace bool) error {
	found, err := previousRun(dir)
	if err != nil || len(found) == 0 {
		return err
	}
	if !replace {
		what := strings.Join(found, ", ")
		if len(found) > 5 {
			what = strings.Join(found[:5], ", ") + fmt.Sprintf(" and %d more", len(found)-5)
		}
		of := ""
		if h, err := trace.ReadHeader(trace.RunFile(dir)); err == nil && h.Run != "" {
			of = fmt.Sprintf(" of run %q", h.Run)
		}
		return fmt.Errorf("output directory %s already holds the files%s (%s): a new run would mix its traces with them; choose another --out, or pass --replace to remove them first", dir, of, what)
	}
	// The logs: files, and the hosts' logs of a run --hosts
	// (log/hosts/NAME/); RemoveAll removes a link, never what it
	// points to.
	logs, _ := filepath.Glob(filepath.Join(dir, "log", "*"))
	for _, p := range logs {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("--replace: %w", err)
		}
	}
	for _, p := range prefix(dir, found) {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--replace: %w", err)
		}
	}
	return nil
}

func prefix(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out
}

// writeScenarioCopy writes s, as resolved, to dir/ScenarioFileName, for
// every process of the run to read, and returns its path.
func writeScenarioCopy(dir string, s *scenario.Scenario) (string, error) {
	y, err := s.YAML()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, ScenarioFileName)
	f, err := trace.CreateFile(path)
	if err != nil {
		return "", err
	}
	_, err = f.Write(y)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("the scenario's copy: %w", err)
	}
	// It must read back as the scenario the launcher runs.
	back, err := scenario.Load(path, nil)
	if err != nil {
		return "", fmt.Errorf("the scenario's copy %s: %w", path, err)
	}
	if yb, err := back.YAML(); err != nil || string(yb) != string(y) {
		return "", fmt.Errorf("the scenario's copy %s does not read back as the scenario", path)
	}
	return path, nil
}
