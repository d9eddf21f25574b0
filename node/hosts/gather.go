package hosts

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"manetlab/internal/safefs"
	"manetlab/trace"
)

// gatherTimeout bounds the commands that bring a host's records home.
const gatherTimeout = 60 * time.Second

// gather brings home what the host recorded: the faults its launcher
// applied (faults.jsonl), and of every node trace there the bytes the
// collector did not get (a node killed and not recovered stops streaming
// with it), appended to the trace in out. It returns the faults and
// notes of what it fetched or could not read.
func (x *session) gather(out string) ([]trace.FaultRecord, []string) {
	ctx, cancel := context.WithTimeout(context.Background(), gatherTimeout)
	defer cancel()
	name := x.c.host.Target
	var notes []string
	b, err := x.c.run(ctx, nil, "cat "+quote(x.info.runDir+"/"+trace.FaultsFileName)+" 2>/dev/null; true")
	if err != nil {
		return nil, []string{fmt.Sprintf("host %s: its faults record could not be read: %v", name, err)}
	}
	faults, bad := parseFaults(b, name)
	for _, m := range bad {
		notes = append(notes, fmt.Sprintf("host %s: %s: %s", name, trace.FaultsFileName, m))
	}
	if err := x.fetchLogs(ctx, out); err != nil {
		notes = append(notes, fmt.Sprintf("host %s: its logs (%s/log) could not be fetched: %v", name, x.info.runDir, err))
	}
	b, err = x.c.run(ctx, nil, "cd "+quote(x.info.runDir)+` && for f in node-*.jsonl; do [ -f "$f" ] && echo "$(wc -c < "$f") $f"; done; true`)
	if err != nil {
		return faults, append(notes, fmt.Sprintf("host %s: its traces could not be listed: %v", name, err))
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 || !strings.HasPrefix(f[1], "node-") || strings.ContainsAny(f[1], "/") {
			continue
		}
		size, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		home := filepath.Join(out, f[1])
		have := int64(0)
		if st, err := os.Lstat(home); err == nil {
			have = st.Size()
		}
		if have >= size {
			continue
		}
		tail, err := x.c.run(ctx, nil, "tail -c +"+strconv.FormatInt(have+1, 10)+" "+quote(x.info.runDir+"/"+f[1]))
		if err == nil && int64(len(tail)) != size-have {
			err = fmt.Errorf("got %d bytes, want %d", len(tail), size-have)
		}
		if err == nil {
			err = appendTo(home, tail)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: the collector got %d of its %d bytes on host %s, and the rest could not be fetched: %v", f[1], have, size, name, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("%s: the collector got %d of its %d bytes; the last %d fetched from host %s after the run", f[1], have, size, size-have, name))
	}
	return faults, notes
}

// fetchLogs copies the host's process logs (DIR/RUN/HOST/log/*.log) into
// out/log/hosts/NAME/, over one ssh command (tar).
func (x *session) fetchLogs(ctx context.Context, out string) error {
	b, err := x.c.run(ctx, nil, "cd "+quote(x.info.runDir+"/log")+" && tar -cf - --no-recursion -- *.log 2>/dev/null || true")
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	dir := filepath.Join(out, "log", "hosts", safeName(x.c.host.Target))
	if err := safefs.MkdirAll(dir); err != nil {
		return err
	}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Base(h.Name)
		if h.Typeflag != tar.TypeReg || name != h.Name || !strings.HasSuffix(name, ".log") {
			continue
		}
		f, err := trace.OpenNoFollow(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_TRUNC)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}

// parseFaults reads a host's faults.jsonl; lines that are not a fault
// record of that host are left out, each with why.
func parseFaults(b []byte, host string) ([]trace.FaultRecord, []string) {
	var out []trace.FaultRecord
	var bad []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r trace.FaultRecord
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		err := dec.Decode(&r)
		if err == nil {
			err = r.Check()
		}
		switch {
		case err != nil:
		case r.Host != host:
			err = fmt.Errorf("host %q: want %q", r.Host, host)
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("line %d left out: %v", n, err))
			continue
		}
		out = append(out, r)
	}
	return out, bad
}

func appendTo(path string, b []byte) error {
	f, err := trace.OpenNoFollow(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeFaults writes the gathered faults to out/faults.jsonl, one record
// a line, in time order.
func writeFaults(out string, fs []trace.FaultRecord) error {
	var buf bytes.Buffer
	for _, f := range fs {
		if err := trace.AppendFaultRecord(&buf, f); err != nil {
			return err
		}
	}
	f, err := trace.CreateFile(trace.FaultsFile(out))
	if err != nil {
		return err
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeRunDirs removes the run directories made on the hosts, when the
// run did not start.
func removeRunDirs(ss []*session) {
	ctx, cancel := context.WithTimeout(context.Background(), gatherTimeout)
	defer cancel()
	for _, x := range ss {
		if x.info != nil {
			// DIR/RUN/HOST, then DIR/RUN when no other host (of a
			// shared DIR) has its directory there.
			x.c.run(ctx, nil, "rm -rf "+quote(x.info.runDir)+"; rmdir "+quote(path.Dir(x.info.runDir))+" 2>/dev/null; true")
		}
	}
}
