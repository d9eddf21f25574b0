package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"manetlab/node"
	"manetlab/protocol"
	"manetlab/scenario"
)

// nodeCommand runs real node processes. Its flags are a contract with the
// `run` launcher and the testbed scripts: change them only together.
func nodeCommand() *cli.Command {
	return &cli.Command{
		Name:  "node",
		Usage: "run one or several nodes of a scenario over UDP multicast (the real driver)",
		UsageText: `manetlab node --scenario S (--id N | --ids 1-50[,60,70-80]) --out DIR --run NAME
    [--start UNIX_NS] [--group 239.77.0.1:47000] [--control 239.77.0.2:47001]
    [--iface IF] [--ttl 0] [--key-file F] [--set path=value]... [--seed N]
    [--trace-sink HOST:PORT] [--max-offset 500ms] [--dilation K]`,
		Description: `Runs the scenario's protocol for the given nodes over the real radio: UDP
multicast on --group, positions from the mobility player on --control (or
the scenario's mobility model until the player is heard), the scenario's
propagation and loss models applied at the receiver. Writes DIR/node-<id>.jsonl
per node (appending if the file already holds this run: a restart) and, once
its sockets are open and processes started, prints "ready <pid>" on standard
output. Stops at --start plus the scenario's duration, or on SIGINT/SIGTERM,
writing "stats" and "end" events, and exits 0.

With --dilation K (K > 1) the nodes run in dilated time: their run clock
(trace times t, the air stamps) advances at 1/K of the host's clock since
--start and every timer fires K times later, so the run lasts K times the
scenario's duration and the host's delays (a datagram's arrival lag) are K
times shorter in the model's time (docs/node.md, "Dilated time"). Every
node and the player of a run need the same K.

The HMAC key comes from --key-file, else from $MANETLAB_KEY: white space at
both ends is trimmed, an even number of hex digits is decoded as hex, anything
else is used as raw bytes. Every node and the player of a run need the same key.

Example (one machine, three nodes in one process, no player needed for a
static scenario):
   manetlab node --scenario configs/static-line.yaml --ids 1-3 --out runs/real --run demo`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "scenario", Usage: "scenario `FILE` (YAML)", Required: true},
			&cli.UintFlag{Name: "id", Usage: "host node `N`"},
			&cli.StringFlag{Name: "ids", Usage: "host several nodes, e.g. 1-50,60,70-80"},
			&cli.StringFlag{Name: "out", Usage: "trace `DIR`", Required: true},
			&cli.StringFlag{Name: "group", Value: node.DefaultGroup, Usage: "data multicast group and port"},
			&cli.BoolFlag{Name: "debug", Usage: "also log the protocols' debug lines to stderr"},
			&cli.DurationFlag{Name: "max-offset", Usage: "largest clock offset between the machines: frames stamped further ahead, or before this process started less this, are refused; a negative value turns the checks off", DefaultText: "500ms"},
			&cli.StringFlag{Name: "trace-sink", Usage: "also stream the traces to a collector at `HOST:PORT` (manetlab trace collect)"},
			&cli.StringFlag{Name: "host", Usage: "name this machine `NAME` in the stats (run --hosts does)"},
			&cli.BoolFlag{Name: "control-stdin", Usage: "once started, read faults by hand from standard input, a line each: \"crash ID\", \"recover ID\", \"cut ID PEER\" (ID's radio drops PEER's frames), \"heal ID PEER\"; each is answered on standard output \"" + node.ControlDonePrefix + " T_NS\" or \"" + node.ControlDonePrefix + " error: WHY\" (what the launcher gives)"},
		}, realFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return fmt.Errorf("node: unexpected argument %q (the scenario goes in --scenario)", c.Args().First())
			}
			ids, err := hostedIDs(c)
			if err != nil {
				return err
			}
			s, err := scenarioFlag(c)
			if err != nil {
				return err
			}
			key, err := node.LoadKey(c.String("key-file"))
			if err != nil {
				return err
			}
			if key != nil && c.Int64("start") == 0 && !c.Bool("start-stdin") {
				fmt.Fprintf(c.App.ErrWriter, "node: warning: a key without --start: the run is known on the wire by its name alone, so frames recorded in an earlier run named %q would pass (run and the testbed pass --start)\n", c.String("run"))
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			later, faults := stdinInputs(c)
			h, err := node.Start(ctx, node.Options{
				Scenario: s, IDs: ids, Out: c.String("out"), Run: c.String("run"), Start: c.Int64("start"),
				Group: c.String("group"), Control: c.String("control"), Iface: c.String("iface"), TTL: c.Int("ttl"),
				Key: key, MaxOffset: c.Duration("max-offset"), Log: c.App.ErrWriter, StartLater: later, Faults: faults,
				TraceError: func(id protocol.NodeID, err error) {
					fmt.Fprintf(c.App.Writer, "%s %d %s\n", node.TraceErrorPrefix, id, strings.ReplaceAll(err.Error(), "\n", " "))
				}, Debug: c.Bool("debug"), TraceSink: c.String("trace-sink"), Dilation: c.Int("dilation"), Host: c.String("host"),
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "ready %d\n", os.Getpid())
			_, err = h.Wait()
			return err
		},
	}
}

// hostedIDs reads --id or --ids (exactly one of them).
func hostedIDs(c *cli.Context) ([]protocol.NodeID, error) {
	switch {
	case c.IsSet("id") && c.IsSet("ids"):
		return nil, errors.New("node: give --id or --ids, not both")
	case c.IsSet("id"):
		id := c.Uint("id")
		if id == 0 || id > 1<<32-1 {
			return nil, fmt.Errorf("node: --id %d: node IDs run from 1", id)
		}
		return []protocol.NodeID{protocol.NodeID(id)}, nil
	case c.IsSet("ids"):
		return node.ParseIDs(c.String("ids"))
	}
	return nil, errors.New("node: which node? give --id N or --ids 1-50")
}

// scenarioFlag loads --scenario with the --set and --seed overrides.
func scenarioFlag(c *cli.Context) (*scenario.Scenario, error) {
	sets := c.StringSlice("set")
	if c.IsSet("seed") {
		sets = append(sets, fmt.Sprintf("seed=%d", c.Uint64("seed")))
	}
	return scenario.Load(c.String("scenario"), sets)
}

// realFlags are the flags node and the mobility player share: the run
// they belong to, the control group, the link and the scenario overrides.
// Both sides of a run must agree on them.
func realFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "run", Usage: "run `NAME`, the same for every node and the player", Required: true},
		&cli.Int64Flag{Name: "start", Usage: "run start, Unix `NS` (default: now)"},
		&cli.BoolFlag{Name: "start-stdin", Usage: "once ready, read the start from standard input, a line \"start UNIX_NS\" (the launcher's readiness handshake; the end of input first stops the process)"},
		&cli.StringFlag{Name: "control", Value: node.DefaultControl, Usage: "location (control) multicast group and port"},
		&cli.StringFlag{Name: "iface", Usage: "network interface (default: lo, which needs multicast; name one for several machines)"},
		&cli.IntFlag{Name: "ttl", Value: 0, Usage: "multicast TTL: 0 stays on this host, 1 for a LAN"},
		&cli.StringFlag{Name: "key-file", Usage: "HMAC key `FILE` (hex or raw bytes; default $MANETLAB_KEY)"},
		&cli.IntFlag{Name: "dilation", Value: 1, Usage: "run in dilated time: the run clock and every timer `K` times slower than the host's clock"},
	}, scenarioFlags()...)
}

// startLater is, with --start-stdin, the channel the start read from
// standard input comes on (a line "start UNIX_NS", after the process
// said it is ready); it is closed, stopping the process, when the input
// ends or says something else first. Nil without the flag.
func startLater(c *cli.Context) <-chan int64 {
	ch, _ := stdinInputs(c)
	return ch
}

// stdinInputs reads standard input: with --start-stdin its first line is
// the start (startLater's channel; nil without the flag); with
// --control-stdin every later line is a fault by hand, handed to the
// nodes on the second channel (nil without the flag) and answered on
// standard output once applied or refused.
func stdinInputs(c *cli.Context) (<-chan int64, <-chan node.Control) {
	waitStart, control := c.Bool("start-stdin"), c.Bool("control-stdin")
	if !waitStart && !control {
		return nil, nil
	}
	var later chan int64
	var faults chan node.Control
	if waitStart {
		later = make(chan int64, 1)
	}
	if control {
		faults = make(chan node.Control)
	}
	in := c.App.Reader
	if in == nil {
		in = os.Stdin
	}
	go func() {
		sc := bufio.NewScanner(in)
		if waitStart && !readStart(c, sc, later) {
			return
		}
		for control && sc.Scan() {
			fc, err := parseControl(sc.Text())
			if err == nil {
				fc.Done = make(chan node.ControlDone, 1)
				faults <- fc
				d := <-fc.Done
				if err = d.Err; err == nil {
					fmt.Fprintf(c.App.Writer, "%s %d\n", node.ControlDonePrefix, int64(d.T))
					continue
				}
			}
			fmt.Fprintf(c.App.Writer, "%s error: %s\n", node.ControlDonePrefix, strings.ReplaceAll(err.Error(), "\n", " "))
		}
	}()
	return later, faults
}

// readStart reads the start line into ch (closing it); false, with ch
// closed empty, when the input ends or says something else.
func readStart(c *cli.Context, sc *bufio.Scanner, ch chan<- int64) bool {
	defer close(ch)
	if !sc.Scan() {
		return false
	}
	f := strings.Fields(sc.Text())
	if len(f) == 2 && f[0] == "start" {
		if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil && ns > 0 {
			ch <- ns
			return true
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: --start-stdin: read %.40q, want \"start UNIX_NS\": stopping\n", c.Command.Name, sc.Text())
	return false
}

// parseControl reads a fault by hand: "crash ID", "recover ID", "cut ID
// PEER" or "heal ID PEER".
func parseControl(line string) (node.Control, error) {
	f := strings.Fields(line)
	id := func(s string) (protocol.NodeID, error) {
		v, err := strconv.ParseUint(s, 10, 32)
		if err != nil || v == 0 {
			return 0, fmt.Errorf("%.20q is no node ID", s)
		}
		return protocol.NodeID(v), nil
	}
	var fc node.Control
	var err error
	switch {
	case len(f) == 2 && (f[0] == node.OpCrash || f[0] == node.OpRecover):
		fc.Op = f[0]
		fc.Node, err = id(f[1])
	case len(f) == 3 && (f[0] == node.OpCut || f[0] == node.OpHeal):
		fc.Op = f[0]
		if fc.Node, err = id(f[1]); err == nil {
			fc.Peer, err = id(f[2])
		}
	default:
		err = fmt.Errorf("read %.40q, want \"crash ID\", \"recover ID\", \"cut ID PEER\" or \"heal ID PEER\"", line)
	}
	return fc, err
}
