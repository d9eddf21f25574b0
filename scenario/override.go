package scenario

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var anyType = reflect.TypeFor[any]()

// applySet applies one --set path=value override to the document tree.
// The value is read as YAML, so numbers, strings and [lists] all work. The
// path is checked against the Scenario type first, so that a typo names
// the flag and the allowed keys instead of being silently ignored.
func applySet(doc *yaml.Node, set string) error {
	path, value, ok := strings.Cut(set, "=")
	if !ok || path == "" {
		return fmt.Errorf("--set %s: want path=value, e.g. radio.range=250", set)
	}
	comps := strings.Split(path, ".")
	if len(comps) > 1 && comps[0] == "workload" {
		// workload.0.at, from when workload was a list, means
		// workload.commands.0.at.
		if _, err := strconv.Atoi(comps[1]); err == nil {
			comps = append([]string{"workload", "commands"}, comps[1:]...)
		}
	}
	t, err := typeAt(scenarioType, comps)
	if err != nil {
		return fmt.Errorf("--set %s: %w", set, err)
	}
	val, err := parseValue(value)
	if err != nil {
		return fmt.Errorf("--set %s: %s: %w", set, path, err)
	}
	if path == "workload" {
		val = commandsMapping(val) // a list of commands, as in a file
	}
	if err := check(val, t, path); err != nil {
		return fmt.Errorf("--set %s: %w", set, err)
	}
	if err := setPath(resolve(doc), comps, val, ""); err != nil {
		return fmt.Errorf("--set %s: %w", set, err)
	}
	return nil
}

// typeAt finds the Go type at a dotted path below t. List entries are
// addressed by index (nodes.list.0.pos); below protocol.params anything
// goes.
func typeAt(t reflect.Type, comps []string) (reflect.Type, error) {
	path := ""
	for _, c := range comps {
		p := joinPath(path, c)
		switch t.Kind() {
		case reflect.Struct:
			keys, by := yamlFields(t)
			f, ok := by[c]
			if !ok {
				return nil, &fieldError{0, p, "unknown field (allowed: " + strings.Join(keys, ", ") + ")"}
			}
			t = f.Type
		case reflect.Slice, reflect.Array:
			if _, err := strconv.Atoi(c); err != nil {
				return nil, &fieldError{0, p, fmt.Sprintf("%q is not a list index (%s is a list)", c, path)}
			}
			t = t.Elem()
		case reflect.Map, reflect.Interface:
			t = anyType
		default:
			return nil, &fieldError{0, path, fmt.Sprintf("is %s, it has no field %q", want(t), c)}
		}
		path = p
	}
	return t, nil
}

// parseValue reads a --set value as a YAML scalar, list or mapping. Its
// line numbers are cleared: they would point into the flag, not the file.
func parseValue(value string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil {
		return nil, fmt.Errorf("%q is not a YAML value: %w", value, err)
	}
	n := resolve(&doc)
	if n == nil {
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	clearLines(n)
	return n, nil
}

func clearLines(n *yaml.Node) {
	n.Line, n.Column = 0, 0
	for _, c := range n.Content {
		clearLines(c)
	}
}

// setPath stores val at comps below n, creating mappings where the file
// has none; path is where n sits, for errors.
func setPath(n *yaml.Node, comps []string, val *yaml.Node, path string) error {
	c := comps[0]
	p := joinPath(path, c)
	last := len(comps) == 1
	if n.Kind == yaml.SequenceNode {
		i, err := strconv.Atoi(c)
		if err != nil || i < 0 || i >= len(n.Content) {
			return fmt.Errorf("%s: no entry %s (the list has %d entries)", path, c, len(n.Content))
		}
		if last {
			n.Content[i] = val
			return nil
		}
		return setPath(resolve(n.Content[i]), comps[1:], val, p)
	}
	if n.Kind != yaml.MappingNode {
		if _, err := strconv.Atoi(c); err == nil {
			return fmt.Errorf("%s: no entry %s (the list is empty)", path, c)
		}
		// A null or misplaced value becomes a mapping to hold the key.
		*n = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == c {
			if last {
				n.Content[i+1] = val
				return nil
			}
			return setPath(resolve(n.Content[i+1]), comps[1:], val, p)
		}
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: c}
	if last {
		n.Content = append(n.Content, key, val)
		return nil
	}
	if _, err := strconv.Atoi(comps[1]); err == nil {
		return fmt.Errorf("%s: no entry %s (the list is empty)", p, comps[1])
	}
	child := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	n.Content = append(n.Content, key, child)
	return setPath(child, comps[1:], val, p)
}
