package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"manetlab/internal/geo"
	"manetlab/internal/safefs"
	"manetlab/internal/units"
	"manetlab/mobility"
)

// mobilityCommand groups the tools that work on mobility traces.
func mobilityCommand() *cli.Command {
	return &cli.Command{
		Name:  "mobility",
		Usage: "sample and generate ns-2 mobility traces",
		Description: `Examples:
   manetlab mobility sample configs/mobility/small.ns2 --at 0:60:0.5
   manetlab mobility gen rwp --nodes 20 --area 1000x1000 --speed 1:20 --pause 10s --duration 300s --seed 7 -o rwp.ns2`,
		Subcommands: []*cli.Command{mobilitySampleCommand(), mobilityGenCommand(), playCommand()},
		Action:      unknownCommand,
	}
}

func mobilitySampleCommand() *cli.Command {
	return &cli.Command{
		Name:      "sample",
		Usage:     "print every node's position at regular instants, as CSV",
		UsageText: "manetlab mobility sample FILE --at START:END:STEP",
		Description: `Reads an ns-2 mobility trace as ns-3 does and prints t,node,x,y,z for
every instant from START to END inclusive, STEP apart (seconds), and every
node ($node_(i) is node i). Example:
   manetlab mobility sample configs/mobility/small.ns2 --at 0:100:0.5`,
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "at", Usage: "instants as START:END:STEP in seconds, e.g. 0:100:0.5", Required: true},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("mobility sample: want one trace FILE, got %d arguments", c.NArg())
			}
			start, end, step, err := parseInstants(c.String("at"))
			if err != nil {
				return fmt.Errorf("mobility sample: %w", err)
			}
			set, warns, err := mobility.ReadNS2(c.Args().First())
			if err != nil {
				return fmt.Errorf("mobility sample: %w", err)
			}
			printWarnings(c, warns)
			return writeSamples(c.App.Writer, set, start, end, step)
		},
	}
}

// parseInstants reads --at START:END:STEP.
func parseInstants(s string) (start, end, step float64, err error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, 0, 0, fmt.Errorf("--at %q: want START:END:STEP in seconds, e.g. 0:100:0.5", s)
	}
	var v [3]float64
	for i, p := range parts {
		v[i], err = strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
			return 0, 0, 0, fmt.Errorf("--at %q: %q is not a number of seconds", s, p)
		}
	}
	start, end, step = v[0], v[1], v[2]
	switch {
	case step <= 0:
		return 0, 0, 0, fmt.Errorf("--at %q: STEP must be above 0", s)
	case start < 0:
		return 0, 0, 0, fmt.Errorf("--at %q: START must be 0 or above", s)
	case end < start:
		return 0, 0, 0, fmt.Errorf("--at %q: END is before START", s)
	}
	return start, end, step, nil
}

// writeSamples prints the CSV. Instants are computed as START + k*STEP and
// rounded to the nanosecond, so that 0.1-second steps do not drift into
// 0.30000000000000004.
func writeSamples(w io.Writer, m mobility.Model, start, end, step float64) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "t,node,x,y,z")
	for k := 0; ; k++ {
		t := start + float64(k)*step
		if t > end+step*1e-9 {
			break
		}
		ns := math.Round(t * 1e9)
		at := strconv.FormatFloat(ns/1e9, 'f', -1, 64)
		for i := range m.Len() {
			p := m.Position(i, time.Duration(ns))
			fmt.Fprintf(bw, "%s,%d,%.6f,%.6f,%.6f\n", at, i, p.X, p.Y, p.Z)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("mobility sample: %w", err)
	}
	return nil
}

func mobilityGenCommand() *cli.Command {
	return &cli.Command{
		Name:  "gen",
		Usage: "generate an ns-2 mobility trace from a model",
		Subcommands: []*cli.Command{{
			Name:      "rwp",
			Usage:     "random waypoint",
			UsageText: "manetlab mobility gen rwp --nodes N --area WxH --speed MIN:MAX --pause P --duration D --seed S [-o FILE]",
			Description: `Places N nodes uniformly in the area, then each repeatedly picks a
destination uniform in the area and a speed uniform in [MIN, MAX] m/s,
travels there and pauses P, until D. The seed reproduces the trace exactly;
the minimum speed must be above 0. Example:
   manetlab mobility gen rwp --nodes 20 --area 1000x1000 --speed 1:20 --pause 10s --duration 300s --seed 7 -o rwp.ns2`,
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "nodes", Usage: "number of nodes", Value: 10},
				&cli.StringFlag{Name: "area", Usage: "arena WIDTHxHEIGHT in metres", Value: "1000x1000"},
				&cli.StringFlag{Name: "speed", Usage: "MIN:MAX in m/s, MIN above 0", Value: "1:20"},
				&cli.StringFlag{Name: "pause", Usage: "pause at each destination (10s, 500ms or seconds)", Value: "0s"},
				&cli.StringFlag{Name: "duration", Usage: "length of the trace (300s, 5m or seconds)", Value: "300s"},
				&cli.Uint64Flag{Name: "seed", Usage: "random seed", Value: 1},
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the trace to `FILE` instead of standard output"},
			},
			Action: genRWP,
		}},
	}
}

func genRWP(c *cli.Context) error {
	cfg, err := rwpFlags(c)
	if err != nil {
		return fmt.Errorf("mobility gen rwp: %w", err)
	}
	n := c.Int("nodes")
	if n <= 0 {
		return fmt.Errorf("mobility gen rwp: --nodes %d: want at least 1", n)
	}
	duration, err := units.ParseDuration(c.String("duration"))
	if err != nil || duration <= 0 {
		return fmt.Errorf("mobility gen rwp: --duration %q: want a duration above 0 (300s, 5m or seconds)", c.String("duration"))
	}
	// One stream for placement and motion, drawn in node order, so a seed
	// gives the same trace on every machine.
	rng := rand.New(rand.NewPCG(c.Uint64("seed"), 0x6d6f7665))
	start := make([]geo.Vec, n)
	for i := range start {
		start[i] = geo.Vec{X: rng.Float64() * cfg.Area[0], Y: rng.Float64() * cfg.Area[1]}
	}
	set, err := mobility.RandomWaypoint(start, cfg, duration.D(), rng)
	if err != nil {
		return fmt.Errorf("mobility gen rwp: %w", err)
	}
	out := c.String("output")
	if out == "" {
		return mobility.WriteNS2(c.App.Writer, set)
	}
	f, err := safefs.Create(out)
	if err != nil {
		return fmt.Errorf("mobility gen rwp: %w", err)
	}
	if err := mobility.WriteNS2(f, set); err != nil {
		f.Close()
		return fmt.Errorf("mobility gen rwp: %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("mobility gen rwp: %w", err)
	}
	return nil
}

// rwpFlags reads --area, --speed and --pause into a random waypoint Config,
// naming the flag in every error.
func rwpFlags(c *cli.Context) (mobility.Config, error) {
	cfg := mobility.Config{Model: mobility.ModelRandomWaypoint}
	var err error
	if cfg.Area, err = pair(c.String("area"), "x"); err != nil || !(cfg.Area[0] > 0 && cfg.Area[1] > 0) {
		return cfg, fmt.Errorf("--area %q: want WIDTHxHEIGHT in metres, both above 0, e.g. 1000x1000", c.String("area"))
	}
	if cfg.Speed, err = pair(c.String("speed"), ":"); err != nil {
		return cfg, fmt.Errorf("--speed %q: want MIN:MAX in m/s, e.g. 1:20", c.String("speed"))
	}
	switch lo, hi := cfg.Speed[0], cfg.Speed[1]; {
	case lo == 0:
		return cfg, fmt.Errorf("--speed %q: %w", c.String("speed"), mobility.ErrZeroMinSpeed)
	case lo < 0 || hi < lo:
		return cfg, fmt.Errorf("--speed %q: want 0 < MIN <= MAX", c.String("speed"))
	}
	pause, err := units.ParseDuration(c.String("pause"))
	if err != nil {
		return cfg, fmt.Errorf("--pause: %w", err)
	}
	if pause < 0 {
		return cfg, errors.New("--pause: must be 0 or above")
	}
	cfg.Pause = pause
	return cfg, nil
}

// pair reads two finite numbers separated by sep.
func pair(s, sep string) ([2]float64, error) {
	a, b, ok := strings.Cut(s, sep)
	if !ok {
		return [2]float64{}, fmt.Errorf("no %q", sep)
	}
	var v [2]float64
	for i, p := range []string{a, b} {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return v, fmt.Errorf("%q is not a finite number", p)
		}
		v[i] = x
	}
	return v, nil
}
