package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"manetlab/internal/safefs"
	"manetlab/node"
	"manetlab/node/hosts"
	"manetlab/node/launch"
	"manetlab/scenario"
	"manetlab/trace"
)

// runHosts is `run --hosts`: the scenario across the machines listed,
// over ssh (node/hosts).
func runHosts(c *cli.Context, s *scenario.Scenario, name, out string) error {
	for _, f := range []string{"wrap", "collected"} {
		if c.IsSet(f) {
			return fmt.Errorf("--hosts and --%s do not go together: --hosts starts a launcher on every host itself", f)
		}
	}
	hs, err := hosts.Parse(c.String("hosts"))
	if err != nil {
		return err
	}
	version, err := versionLine()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var key []byte
	if p := c.String("key-file"); p != "" {
		b, err := safefs.ReadInput(p, "--key-file", node.MaxKeyFileBytes)
		if err != nil {
			return err
		}
		if key = []byte(strings.TrimSpace(string(b))); len(key) == 0 {
			return fmt.Errorf("--key-file %s: empty", p)
		}
	}
	ttl := 1
	if c.IsSet("ttl") {
		if ttl = c.Int("ttl"); ttl < 1 || ttl > 255 {
			return fmt.Errorf("--ttl %d: want 1 to 255 across machines", ttl)
		}
	}
	opt := hosts.Options{
		Hosts: hs, SSHConfig: c.String("ssh-config"), Scenario: s,
		Out: out, Run: name, Replace: c.Bool("replace"), Key: key, Version: version, Exe: exe,
		MaxOffset: c.Duration("max-offset"), StartDelay: c.Duration("start-delay"),
		IDsPerProcess: c.Int("ids-per-process"), Group: c.String("group"), Control: c.String("control"),
		Iface: c.String("iface"), TTL: ttl, Dilation: c.Int("dilation"), Collector: c.String("collector"),
		HostTimeout: c.Duration("host-timeout"), StopLostHosts: c.Bool("stop-lost-hosts"), HostBins: c.StringSlice("host-bin"),
		Progress: c.App.ErrWriter, Quiet: c.Bool("quiet"),
	}
	if opt.Progress == nil {
		opt.Progress = os.Stderr
	}
	printWarnings(c, s.Warnings)
	// The collector writes every host's traces under out, on this
	// machine: the same estimate as a local run's, before any host is
	// contacted.
	if err := checkReal(c, s, out, opt.Dilation); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(c.Context)
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		// The first signal stops every host (their launchers write what
		// was gathered); a second one quits at once, and the hosts'
		// launchers stop when their ssh sessions end.
		select {
		case sig := <-sigs:
			cancel(interruption{sig})
			select {
			case sig := <-sigs:
				fmt.Fprintf(opt.Progress, "run: %s again: quitting now\n", signalName(sig))
				os.Exit(1)
			case <-c.Context.Done():
			}
		case <-ctx.Done():
		}
	}()
	stopLive := func() {}
	if c.Bool("live") {
		ln, err := liveListener(c)
		if err != nil {
			return err
		}
		defer ln.Close()
		manual, launched := make(chan launch.ManualFault), make(chan struct{})
		opt.Manual = manual
		lv, stopPage := startLive(ctx, opt.Progress, ln, s, name, out, manualFaults{ch: manual, done: launched})
		// The hosts' faults records come home at the end: the page hears
		// of each fault from its launcher as it is applied.
		opt.Applied = func(r trace.FaultRecord) { lv.State().Fault(r, time.Now()) }
		stopLive = func() { close(launched); stopPage() }
	}
	res, err := hosts.Run(ctx, opt)
	stopLive()
	if err != nil && (res == nil || res.Elapsed == 0 || res.Start.IsZero()) {
		return fmt.Errorf("run %s: %w", name, err)
	}
	if res.Unapplied != "" {
		printWarnings(c, []string{res.Unapplied})
	}
	printWarnings(c, res.Notes)
	var causes []string
	if err != nil {
		causes = append(causes, fmt.Sprintf("run %s: %v", name, err))
	}
	if werr := writeProcStats(&res.Result); werr != nil {
		causes = append(causes, fmt.Sprintf("log/processes.json: %v", werr))
	}
	var status *exitStatus // cross-host problems (3), else the verdict's (1, 2)
	if serr := printSummary(c, trace.Disk, out, &res.Result); serr != nil {
		if st := (exitStatus{}); errors.As(serr, &st) {
			status = &st
		} else {
			causes = append(causes, fmt.Sprintf("summary: %v", serr))
		}
	}
	switch {
	case res.Interrupted:
		by := ""
		if sig, ok := context.Cause(ctx).(interruption); ok {
			by = " by " + signalName(sig.sig)
		}
		causes = append(causes, fmt.Sprintf("interrupted%s after %s; what was gathered is in %s", by, res.Elapsed.Round(time.Millisecond), out))
	case len(res.Failures) > 0:
		causes = append(causes, res.Failures...)
	}
	return runStatus(causes, status) // as for a run on one machine
}
