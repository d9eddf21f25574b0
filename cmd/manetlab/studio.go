package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"manetlab/internal/safefs"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/studio"
)

func studioCommand() *cli.Command {
	return &cli.Command{
		Name:      "studio",
		Usage:     "step through a simulator run in the browser: pick the next message, crash a node, rewind",
		ArgsUsage: "SCENARIO.yaml",
		UsageText: `manetlab studio SCENARIO.yaml [--set path=value]... [--seed N] [--port P] [--schedule FILE] [--out DIR]

Examples:
   manetlab studio configs/ring-chang-roberts.yaml
   manetlab studio configs/bully.yaml --port 8080
   manetlab studio configs/ring-chang-roberts.yaml --schedule lesson.json`,
		Description: `Serves a page on 127.0.0.1 (the URL is printed, with the session's token:
only its holder can act; nothing on it loads from the network) on a simulator run paused at t = 0: the map with the messages in
flight, every node's belief and state, the pending events in the order the
simulator would take them, the counts beside theory. Step (space), step to
the next note (n), run and pause (r), deliver a chosen message or fire a
timer now (click an event, d), drop a frame (x), crash or recover a node
(click it, c, v), cut or heal a radio link (click it, u), move a node (drag
it, or shift+arrows), step a round (o),
rewind (b, the slider, the history) and branch; save (s)
writes the session's schedule, which 'manetlab sim --schedule FILE' replays
to the same traces and 'studio --schedule FILE' opens at its last step.
A scenario that names no radio.mac runs on the ideal medium here (any
message can be taken next); --set radio.mac=dcf steps the DCF medium,
whose MAC orders the frames on the air. See docs/studio.md.`,
		Flags: append(scenarioFlags(),
			&cli.IntFlag{Name: "port", Usage: "TCP port on 127.0.0.1 (0: any free one)", Value: 0},
			scheduleFlag("open the session of a schedule `FILE` at its last step"),
			otherScenarioFlag(),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the session's trace directory (default: a temporary one)"},
			&cli.StringFlag{Name: "save", Usage: "where 'save' writes the schedule (default ./schedule.json)"},
		),
		Action: func(c *cli.Context) error {
			ideal, err := studioMedium(c)
			if err != nil {
				return err
			}
			s, sched, err := loadScheduled(c)
			if err != nil {
				return err
			}
			out := c.String("out")
			if out == "" {
				if out, err = os.MkdirTemp("", "manetlab-studio-"); err != nil {
					return err
				}
				defer os.RemoveAll(out)
			}
			save := c.String("save")
			if save == "" {
				save = "schedule.json"
			}
			if save, err = filepath.Abs(save); err != nil {
				return err
			}
			sets := c.StringSlice("set")
			if sched != nil {
				sets = append(append([]string(nil), sched.Set...), sets...)
			}
			st, err := studio.New(studio.Config{Scenario: s, Path: c.Args().First(), Sets: sets, Out: out, Schedule: sched, Save: save})
			if err != nil {
				return err
			}
			defer st.Close()
			ln, err := listenStudio(c.Int("port"))
			if err != nil {
				return err
			}
			srv := st.Server(ln)
			if ideal {
				fmt.Fprintln(c.App.Writer, "studio: on the ideal medium, so that any message can be taken next (the scenario names no radio.mac; --set radio.mac=dcf steps the DCF medium, whose MAC orders the frames on the air)")
			}
			fmt.Fprintf(c.App.Writer, "studio: %s on %s, seed %d: %s (Ctrl-C to stop; save writes %s)\n",
				s.Protocol.Name, s.Path, s.Seed, st.URL(ln.Addr()), save)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				srv.Close()
			}()
			if err := srv.Run(); err != nil && err != http.ErrServerClosed {
				return err
			}
			return nil
		},
	}
}

// studioMedium chooses the ideal medium (adding --set radio.mac=ideal,
// which a saved session keeps) when neither the scenario file, the
// schedule nor the command line names radio.mac: on the DCF medium, the
// default elsewhere, the MAC orders the frames on the air and none can be
// picked or dropped by hand, which is what a lesson in the studio is for.
func studioMedium(c *cli.Context) (bool, error) {
	path := c.Args().First()
	if path == "" {
		return false, nil // loadScenario says what is missing
	}
	sets := c.StringSlice("set")
	if f := c.String("schedule"); f != "" {
		sched, err := sim.ReadSchedule(f)
		if err != nil {
			return false, err
		}
		sets = append(sets, sched.Set...)
	}
	for _, set := range sets {
		if strings.HasPrefix(strings.TrimSpace(set), "radio.mac=") || strings.HasPrefix(strings.TrimSpace(set), "radio=") {
			return false, nil
		}
	}
	data, err := safefs.ReadInput(path, "scenario", scenario.MaxFileBytes)
	if err != nil {
		return false, nil // loadScenario says why
	}
	var doc struct {
		Radio map[string]any `yaml:"radio"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return false, nil // loadScenario names the error
	}
	if _, named := doc.Radio["mac"]; named {
		return false, nil
	}
	return true, c.Set("set", "radio.mac=ideal")
}

// listenStudio listens on 127.0.0.1:port; a port in use (another studio
// still open, most often) is named with the way out: --port 0.
func listenStudio(port int) (net.Listener, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("studio: port %d on 127.0.0.1 is in use (another studio still open?); give --port 0 to take any free port, or another --port", port)
	}
	if err != nil {
		return nil, fmt.Errorf("studio: --port %d: %w", port, err)
	}
	return ln, nil
}
