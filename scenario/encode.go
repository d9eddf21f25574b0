package scenario

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"

	"manetlab/internal/units"
	"manetlab/protocol"
)

// YAML writes the resolved scenario, every default filled in; Parse reads
// it back to an equal Scenario (Path aside), so a run can be repeated from
// what it recorded.
//
// The lists that grow with the scenario (faults, nodes.list,
// workload.commands) are written here, an entry a line in flow style
// ({at: 20s, crash: [8]}), and empty fields left out: the YAML library's
// emitter allocated about 36 KB per fault (1.8 GB for 50,000), and block
// style made 450,000 faults of a 15 MB file over 21 MB, beyond what Parse
// takes. The rest, a few dozen lines, goes through the library.
//
// A resolved scenario larger than MaxFileBytes is an error: the run files
// and scenario copies it goes into must read back.
func (s *Scenario) YAML() ([]byte, error) {
	rest := *s
	rest.Faults = nil
	rest.Nodes.List = nil
	rest.Workload.Commands = nil
	var n yaml.Node
	if err := n.Encode(&rest); err != nil {
		return nil, fmt.Errorf("scenario %s: encode: %w", s.Name, err)
	}
	flowScalarLists(&n)
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("scenario %s: encode: not a mapping", s.Name)
	}
	var buf bytes.Buffer
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		switch key.Value {
		case "faults":
			buf.WriteString("faults:")
			writeList(&buf, "", len(s.Faults), func(b []byte, i int) []byte { return appendFault(b, &s.Faults[i]) })
			continue
		case "nodes":
			dropKey(val, "list")
		case "workload":
			dropKey(val, "commands")
		}
		if err := encodeSection(&buf, key, val); err != nil {
			return nil, fmt.Errorf("scenario %s: encode: %w", s.Name, err)
		}
		switch key.Value {
		case "nodes":
			buf.WriteString("  list:")
			writeList(&buf, "  ", len(s.Nodes.List), func(b []byte, i int) []byte { return appendNode(b, &s.Nodes.List[i]) })
		case "workload":
			buf.WriteString("  commands:")
			var err error
			writeList(&buf, "  ", len(s.Workload.Commands), func(b []byte, i int) []byte {
				b, e := appendCommand(b, &s.Workload.Commands[i])
				if e != nil && err == nil {
					err = e
				}
				return b
			})
			if err != nil {
				return nil, fmt.Errorf("scenario %s: encode: %w", s.Name, err)
			}
		}
	}
	if buf.Len() > MaxFileBytes {
		return nil, fmt.Errorf("scenario %s: resolved (every default filled in), it takes %d bytes, more than the %d its run file and copies may hold (MaxFileBytes): write fewer faults, nodes or commands", s.Name, buf.Len(), MaxFileBytes)
	}
	return buf.Bytes(), nil
}

// encodeSection writes one top-level key and its value with the YAML
// library.
func encodeSection(buf *bytes.Buffer, key, val *yaml.Node) error {
	enc := yaml.NewEncoder(buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{key, val}}); err != nil {
		return err
	}
	return enc.Close()
}

// dropKey removes key from mapping n.
func dropKey(n *yaml.Node, key string) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i:i], n.Content[i+2:]...)
			return
		}
	}
}

// writeList writes a list after its key: " []" when empty, else one
// "- entry" line each at indent.
func writeList(buf *bytes.Buffer, indent string, n int, entry func([]byte, int) []byte) {
	if n == 0 {
		buf.WriteString(" []\n")
		return
	}
	buf.WriteByte('\n')
	line := make([]byte, 0, 128)
	for i := range n {
		line = append(line[:0], indent...)
		line = append(line, "- "...)
		line = entry(line, i)
		line = append(line, '\n')
		buf.Write(line)
	}
}

// appendFault appends {at: D, crash: [..], recover: [..]}, empty lists
// left out (Parse reads them as nil, as normalize leaves them).
func appendFault(b []byte, f *Fault) []byte {
	b = append(b, "{at: "...)
	b = appendDuration(b, f.At)
	if len(f.Crash) > 0 {
		b = appendIDs(append(b, ", crash: "...), f.Crash)
	}
	if len(f.Recover) > 0 {
		b = appendIDs(append(b, ", recover: "...), f.Recover)
	}
	return append(b, '}')
}

// appendNode appends {id: N, value: V, pos: [..], waypoints: [..]}, an
// absent value and empty lists left out.
func appendNode(b []byte, n *Node) []byte {
	b = strconv.AppendUint(append(b, "{id: "...), uint64(n.ID), 10)
	if n.Value != nil {
		b = appendFloat(append(b, ", value: "...), *n.Value)
	}
	if len(n.Pos) > 0 {
		b = appendFloats(append(b, ", pos: "...), n.Pos)
	}
	if len(n.Waypoints) > 0 {
		b = append(b, ", waypoints: ["...)
		for i, w := range n.Waypoints {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendDuration(append(b, "{at: "...), w.At)
			if len(w.Pos) > 0 {
				b = appendFloats(append(b, ", pos: "...), w.Pos)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendCommand appends {at: D, node: N, command: C, value: V}.
func appendCommand(b []byte, c *Command) ([]byte, error) {
	b = appendDuration(append(b, "{at: "...), c.At)
	b = strconv.AppendUint(append(b, ", node: "...), uint64(c.Node), 10)
	b = append(b, ", command: "...)
	b, err := appendString(b, c.Command)
	if err != nil {
		return b, err
	}
	b = appendFloat(append(b, ", value: "...), c.Value)
	return append(b, '}'), nil
}

func appendDuration(b []byte, d units.Duration) []byte {
	return append(b, d.String()...) // "1m0s", "2.5ms", "-1s": plain scalars
}

func appendIDs(b []byte, ids []protocol.NodeID) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(b, uint64(id), 10)
	}
	return append(b, ']')
}

func appendFloats(b []byte, fs []float64) []byte {
	b = append(b, '[')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendFloat(b, f)
	}
	return append(b, ']')
}

// appendFloat writes f as the YAML library does: the shortest form that
// reads back exactly, .inf, -.inf or .nan.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, ".inf"...)
	case math.IsInf(f, -1):
		return append(b, "-.inf"...)
	case math.IsNaN(f):
		return append(b, ".nan"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// plainWord is a string written unquoted: a lower-case word such as a
// command name, none of YAML's special values.
var plainWord = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// appendString writes s plain when it is a plain word, else as the YAML
// library quotes it.
func appendString(b []byte, s string) ([]byte, error) {
	switch s {
	case "null", "true", "false", "yes", "no", "on", "off", "y", "n":
	default:
		if plainWord.MatchString(s) {
			return append(b, s...), nil
		}
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		return b, err
	}
	out = bytes.TrimSuffix(out, []byte("\n"))
	if bytes.ContainsAny(out, "\n") {
		// A block scalar: not for a flow entry.
		return append(b, strconv.Quote(s)...), nil
	}
	return append(b, out...), nil
}
