package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"manetlab/protocol"
)

// FaultsFileName is the record of the faults really applied in a run of
// real processes, in its run directory: one JSON line per crash or
// recovery, written by whoever applied it (the local launcher of `run`,
// or a host's launcher), when it happened. `run --collected` takes the
// run file's faults from it (docs/trace.md, "The faults record").
const FaultsFileName = "faults.jsonl"

// FaultsFile is the faults record of run directory dir.
func FaultsFile(dir string) string { return filepath.Join(dir, FaultsFileName) }

// FaultRecord is one line of the faults record: node Node crashed
// ("crash") or recovered ("recover") T nanoseconds after the run's start,
// as applied on host Host; or, by hand, its radio stopped hearing node
// Peer ("cut") or heard it again ("heal"): one half of a cut link.
type FaultRecord struct {
	Node protocol.NodeID `json:"node"`
	Ev   string          `json:"ev"`
	T    int64           `json:"t"`
	Peer protocol.NodeID `json:"peer,omitempty"`
	Host string          `json:"host,omitempty"`
}

// Check reports what makes r no fault record, naming the field: a node
// (not 0), "crash", "recover", "cut" or "heal", a peer for a cut or a
// heal only (another node), a time not before the run's start.
func (r FaultRecord) Check() error {
	link := r.Ev == EvCut || r.Ev == EvHeal
	switch {
	case r.Node == protocol.None:
		return errors.New("node: missing or 0; want a member of the scenario")
	case r.Ev != EvCrash && r.Ev != EvRecover && !link:
		return fmt.Errorf("ev: %q; want \"crash\", \"recover\", \"cut\" or \"heal\"", r.Ev)
	case link && (r.Peer == protocol.None || r.Peer == r.Node):
		return fmt.Errorf("peer: %d; a %s names the other node of the link", r.Peer, r.Ev)
	case !link && r.Peer != protocol.None:
		return fmt.Errorf("peer: %d; a %s names no peer", r.Peer, r.Ev)
	case r.T < 0:
		return fmt.Errorf("t: %d is before the run's start", r.T)
	}
	return nil
}

// AppendFaultRecord writes r as one line to w.
func AppendFaultRecord(w io.Writer, r FaultRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// maxFaultLine bounds a line of the faults record (a record is about 60
// bytes).
const maxFaultLine = 64 << 10

// ReadFaults reads the faults record at path, for a run of the members
// in member lasting dur: every line must be a record of a member, "crash"
// or "recover", at a time from 0 to below dur (a fault is never applied
// at or after the run's end). Any other line is an error naming the file,
// the line and the field. Empty lines are skipped. A missing file is
// os.ErrNotExist (wrapped).
func ReadFaults(path string, member func(protocol.NodeID) bool, dur time.Duration) ([]FaultRecord, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []FaultRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), maxFaultLine)
	for ln := 1; sc.Scan(); ln++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r FaultRecord
		if err := json.Unmarshal(line, &r); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return nil, fmt.Errorf("%s:%d: %s: %v", path, ln, te.Field, err)
			}
			return nil, fmt.Errorf("%s:%d: not a fault record (want {\"node\":ID,\"ev\":\"crash\"|\"recover\"|\"cut\"|\"heal\",\"t\":NS,\"peer\":ID,\"host\":NAME}): %v", path, ln, err)
		}
		switch err := r.Check(); {
		case err != nil:
			return nil, fmt.Errorf("%s:%d: %w", path, ln, err)
		case !member(r.Node):
			return nil, fmt.Errorf("%s:%d: node: %d is no member of the scenario", path, ln, r.Node)
		case r.Peer != protocol.None && !member(r.Peer):
			return nil, fmt.Errorf("%s:%d: peer: %d is no member of the scenario", path, ln, r.Peer)
		case r.T >= int64(dur):
			return nil, fmt.Errorf("%s:%d: t: %v is at or after the run's end %v: no fault is applied there", path, ln, time.Duration(r.T), dur)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
