package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// beatEvery is how often home tells a host's launcher it is still there
// (a "beat" line); a launcher asked to stop when home is lost
// (--stop-lost-hosts) stops after --host-timeout without one.
const beatEvery = 5 * time.Second

// send writes a line to the host's launcher (an error once its input
// is closed or its session gone).
func (x *session) send(line string) error {
	x.inMu.Lock()
	defer x.inMu.Unlock()
	if x.stdin == nil || x.inClosed {
		return errors.New("its launcher's input is closed")
	}
	_, err := io.WriteString(x.stdin, line+"\n")
	return err
}

// stop orders the host's launcher to stop: "stop", then the end of its
// input (a launcher takes the end alone for a lost home, not an order).
func (x *session) stop() {
	x.inMu.Lock()
	defer x.inMu.Unlock()
	if x.stdin != nil && !x.inClosed {
		io.WriteString(x.stdin, "stop\n")
		x.stdin.Close()
		x.inClosed = true
	}
}

// beat sends "beat" every beatEvery until the session ends.
func (x *session) beat() {
	t := time.NewTicker(beatEvery)
	defer t.Stop()
	for {
		select {
		case <-x.done:
			return
		case <-t.C:
			x.send("beat")
		}
	}
}

// probe asks the host, over a new connection, what became of a launcher
// whose session ended without its result: "done" (its result file is
// there), "alive" (it runs on), "gone" (it died), or an error (the host
// cannot be reached).
func (x *session) probe(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	dir := quote(x.info.runDir)
	b, err := x.c.run(ctx, nil, "cd "+dir+" && if [ -s "+ResultFile+" ]; then echo done; elif [ -s "+PIDFile+" ] && kill -0 \"$(cat "+PIDFile+")\" 2>/dev/null; then echo alive; else echo gone; fi")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// lostHost is a host whose connection was given up while its launcher
// ran on: home gathers its result after the run's end.
func (x *session) lostHost(progress io.Writer, start time.Time, why string) {
	x.mu.Lock()
	x.connLost = time.Now()
	x.mu.Unlock()
	fmt.Fprintf(progress, "run: host %s: connection given up at %s of the run (%s); the other hosts go on, and home gathers its records after the run's end\n",
		x.c.host.Target, time.Since(start).Round(100*time.Millisecond), why)
}

// awaitLost waits, for each host whose connection was lost, until its
// launcher's result is in its run directory (its run ended) or wait has
// passed after end, and takes that result. It returns the causes of
// hosts whose result could not be had.
func awaitLost(ctx context.Context, ss []*session, end time.Time, wait time.Duration, progress io.Writer) []string {
	var causes []string
	for _, x := range ss {
		x.mu.Lock()
		lost := !x.connLost.IsZero()
		x.mu.Unlock()
		if !lost {
			continue
		}
		deadline := end.Add(wait)
		var last error
		for {
			b, err := x.c.run(ctx, nil, "cat "+quote(x.info.runDir+"/"+ResultFile)+" 2>/dev/null; true")
			if err == nil && len(strings.TrimSpace(string(b))) > 0 {
				var r HostResult
				if err = json.Unmarshal(b, &r); err == nil {
					x.res = &r
					fmt.Fprintf(progress, "run: host %s: reached again; its launcher's result read from its run directory\n", x.c.host.Target)
					if r.Interrupted {
						causes = append(causes, fmt.Sprintf("host %s: lost, and its launcher stopped its nodes before the end, as asked (--stop-lost-hosts)", x.c.host.Target))
					}
					break
				}
			}
			last = err
			if time.Now().After(deadline) || ctx.Err() != nil {
				why := "its run had not ended"
				if last != nil {
					why = last.Error()
				}
				causes = append(causes, fmt.Sprintf("host %s: lost, and its result could not be read by %s after the run's end (%s)", x.c.host.Target, wait, why))
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}
	return causes
}
