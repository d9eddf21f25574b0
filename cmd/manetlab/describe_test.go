package main

import (
	"path/filepath"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
)

// TestEveryProtocolDescribesItself runs every shipped protocol in the
// simulator's Controller (on its example config, or the quickstart
// renamed) and checks that each live node describes its state in a line
// (protocol.Describer, which the studio shows) and that the lines change
// as the run goes; and that every message of the algorithm says what it
// carries (protocol.MessageDescriber) in the line the studio shows.
func TestEveryProtocolDescribesItself(t *testing.T) {
	configs, _ := filepath.Glob("../../configs/*.yaml")
	byName := map[string]*scenario.Scenario{}
	for _, path := range configs {
		if strings.Contains(path, "static-1") || strings.Contains(path, "bench") {
			continue // large
		}
		s, err := scenario.Load(path, nil)
		if err != nil || len(s.MemberIDs()) > 40 {
			continue
		}
		if old, ok := byName[s.Protocol.Name]; !ok || len(s.MemberIDs()) < len(old.MemberIDs()) {
			byName[s.Protocol.Name] = s
		}
	}
	for _, name := range protocol.Names() {
		if strings.Contains(name, "test") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			s := byName[name]
			if name == "ext/stdio" {
				s = anylangScenario(t) // a program per node: examples/anylang
			}
			if s == nil {
				var err error
				if s, err = scenario.Load("../../configs/quickstart.yaml", []string{"protocol.name=" + name}); err != nil {
					t.Fatal(err)
				}
			}
			c, err := sim.NewController(s, sim.Options{Out: t.TempDir()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			seen := map[string]bool{}
			msgs := 0
			for i := 0; i < 4000 && c.Step(); i++ {
				// Every message of the algorithm says what it carries
				// (protocol.MessageDescriber), in the studio's line.
				if p, ok := c.Next(); ok && p.Type == "deliver" && p.Class == sim.ClassProtocol {
					msgs++
					if p.Line == p.Text || !strings.Contains(p.Line, ": ") {
						t.Fatalf("%s: message %q says nothing of what it carries (line %q)", s.Path, p.Text, p.Line)
					}
				}
				if i%50 != 0 {
					continue
				}
				for _, n := range c.Nodes() {
					if n.Alive && n.Describe == "" {
						t.Fatalf("node %d of %s at %s describes nothing", n.ID, s.Path, c.Now())
					}
					seen[n.Describe] = true
				}
			}
			if msgs == 0 {
				t.Fatalf("%s: no message of the algorithm in 4000 steps", s.Path)
			}
			if len(seen) < 2 {
				t.Fatalf("%s: one line all along: %v", s.Path, seen)
			}
		})
	}
}
