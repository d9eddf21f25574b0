package scenario

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"manetlab/internal/safefs"
)

// Load reads the scenario file at path, applies the --set overrides
// ("radio.range=250"), checks every key and type, fills in defaults and
// validates. Errors name the file (and line), the field and what is
// allowed. A relative mobility.file is resolved against the file's
// directory.
func Load(path string, sets []string) (*Scenario, error) {
	// A regular file only (a FIFO would block the reader forever), of
	// at most MaxFileBytes.
	data, err := safefs.ReadInput(path, "scenario", MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return parse(data, path, path, sets)
}

// Parse reads a scenario from data as Load does; name labels errors and
// gives the default Name. A relative mobility.file stays relative to the
// working directory.
func Parse(data []byte, name string, sets []string) (*Scenario, error) {
	return parse(data, name, "", sets)
}

func parse(data []byte, name, path string, sets []string) (*Scenario, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes, at most %d (MaxFileBytes)", name, len(data), MaxFileBytes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(name, data, err)
	}
	if resolve(&doc) == nil {
		// An empty file is a scenario of defaults.
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	workloadList(&doc)
	for _, set := range sets {
		if err := applySet(&doc, set); err != nil {
			return nil, err
		}
	}
	if err := check(&doc, scenarioType, ""); err != nil {
		if fe, ok := err.(*fieldError); ok {
			return nil, blame(fe, name, sets)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := countAndList(&doc); err != nil {
		return nil, blame(err, name, sets)
	}
	s := prefilled()
	if err := aodvPreset(&doc, s); err != nil {
		return nil, blame(err, name, sets)
	}
	if err := doc.Decode(s); err != nil {
		// check has already looked at every field, so this is rare.
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.Path = path
	s.Sets = sets
	s.fill(defaultName(name))
	warns := s.dropBeyondRun()
	if err := s.Validate(); err != nil {
		if set := blameSet(sets, err.Error()); set != "" {
			return nil, fmt.Errorf("--set %s: %w", set, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.Warnings = append(warns, s.ns2Warnings()...)
	return s, nil
}

// blame names the --set override behind a field error coming from a value
// it wrote (no line in the file), else the file.
func blame(fe *fieldError, name string, sets []string) error {
	if fe.Line == 0 {
		if set := blameSet(sets, fe.Error()); set != "" {
			return fmt.Errorf("--set %s: %w", set, fe)
		}
	}
	return fe.in(name)
}

// defaultName is the base name of a file without its extension.
func defaultName(name string) string {
	base := filepath.Base(name)
	if base == "." || base == string(filepath.Separator) {
		return "scenario"
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// flowScalarLists writes lists of scalars on one line ([1000, 1000]), as
// people write positions and areas.
func flowScalarLists(n *yaml.Node) {
	if n.Kind == yaml.SequenceNode {
		flow := true
		for _, c := range n.Content {
			flow = flow && c.Kind == yaml.ScalarNode
		}
		if flow {
			n.Style = yaml.FlowStyle
		}
	}
	for _, c := range n.Content {
		flowScalarLists(c)
	}
}

// countAndList rejects a nodes section giving both a count and a list of
// another length, which would otherwise silently drop the count.
func countAndList(doc *yaml.Node) *fieldError {
	nodes := lookup(resolve(doc), "nodes")
	count, list := lookup(nodes, "count"), lookup(nodes, "list")
	if isNull(count) || isNull(list) || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil
	}
	if count.Value == strconv.Itoa(len(list.Content)) {
		return nil
	}
	return &fieldError{count.Line, "nodes.count", fmt.Sprintf("%s but nodes.list has %s (give one or the other)", count.Value, countOf(len(list.Content), "entry", "entries"))}
}

// workloadList rewrites a workload given as a list of commands, the form
// from before the generator, into the mapping {commands: list}, so that
// both forms are checked, overridden (--set workload.rate=2 on a list
// form) and decoded alike. Paths in errors then read
// workload.commands[i].
func workloadList(doc *yaml.Node) {
	root := resolve(doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "workload" {
			root.Content[i+1] = commandsMapping(root.Content[i+1])
		}
	}
}

// commandsMapping wraps a list v in a mapping {commands: v}; anything
// else is returned as it is.
func commandsMapping(v *yaml.Node) *yaml.Node {
	r := resolve(v)
	if r == nil || r.Kind != yaml.SequenceNode {
		return v
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "commands", Line: r.Line, Column: r.Column}
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: r.Line, Column: r.Column, Content: []*yaml.Node{key, v}}
}

// lookup returns the value of key in mapping n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}
