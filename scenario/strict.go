package scenario

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"manetlab/protocol"
)

// fieldError is a problem at one field of the scenario tree. Line is 0
// when the node did not come from the file (a --set value).
type fieldError struct {
	Line int
	Path string
	Msg  string
}

func (e *fieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// in prefixes the error with the file name and, when known, the line.
func (e *fieldError) in(file string) error {
	if e.Line > 0 {
		return fmt.Errorf("%s:%d: %w", file, e.Line, e)
	}
	return fmt.Errorf("%s: %w", file, e)
}

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	paramsType      = reflect.TypeFor[protocol.Params]()
	scenarioType    = reflect.TypeFor[Scenario]()
)

// yamlFields lists the keys of struct type t in declaration order and maps
// each to its field, reading the yaml tags as yaml.v3 does. Callers must
// not change what it returns: it is computed once per type (a scenario of
// 50,000 faults asked 50,000 times, 56 MB).
func yamlFields(t reflect.Type) ([]string, map[string]reflect.StructField) {
	if f, ok := fieldCache.Load(t); ok {
		f := f.(*structFields)
		return f.keys, f.by
	}
	keys, by := readFields(t)
	fieldCache.Store(t, &structFields{keys, by})
	return keys, by
}

type structFields struct {
	keys []string
	by   map[string]reflect.StructField
}

var fieldCache sync.Map // reflect.Type: *structFields

func readFields(t reflect.Type) ([]string, map[string]reflect.StructField) {
	var keys []string
	by := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys = append(keys, name)
		by[name] = f
	}
	return keys, by
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// resolve follows aliases and unwraps a document to its root node.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
			continue
		}
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// check walks the YAML tree n against type t, so that an unknown key or a
// value of the wrong type is reported with its path, its line and what is
// allowed, which yaml.v3's own errors do not say. protocol.params is
// free-form: the protocol checks its own keys.
func check(n *yaml.Node, t reflect.Type, path string) error {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if t == paramsType {
		if n.Kind != yaml.MappingNode {
			return &fieldError{n.Line, path, fmt.Sprintf("%s is not a mapping of parameter names to values", show(n))}
		}
		return decodeLeaf(n, t, path)
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return decodeLeaf(n, t, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkStruct(n, t, path)
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode || (t.Kind() == reflect.Array && len(n.Content) != t.Len()) {
			return &fieldError{n.Line, path, fmt.Sprintf("%s is not %s", show(n), want(t))}
		}
		for i, e := range n.Content {
			if err := check(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		return check(n, t.Elem(), path)
	}
	return decodeLeaf(n, t, path)
}

func checkStruct(n *yaml.Node, t reflect.Type, path string) error {
	keys, by := yamlFields(t)
	if n.Kind != yaml.MappingNode {
		return &fieldError{n.Line, path, fmt.Sprintf("%s is not a mapping (allowed keys: %s)", show(n), strings.Join(keys, ", "))}
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" && k.ShortTag() == "!!merge" {
			if err := checkMerge(v, t, path); err != nil {
				return err
			}
			continue
		}
		p := joinPath(path, k.Value)
		f, ok := by[k.Value]
		if !ok {
			return &fieldError{k.Line, p, "unknown field (allowed: " + strings.Join(keys, ", ") + ")"}
		}
		if line, dup := seen[k.Value]; dup {
			return &fieldError{k.Line, p, fmt.Sprintf("given twice (first on line %d)", line)}
		}
		seen[k.Value] = k.Line
		if err := check(v, f.Type, p); err != nil {
			return err
		}
	}
	return nil
}

// checkMerge checks the value of a YAML merge key (<<: *anchor), which is
// a mapping or a list of mappings merged into the enclosing one.
func checkMerge(v *yaml.Node, t reflect.Type, path string) error {
	v = resolve(v)
	if v != nil && v.Kind == yaml.SequenceNode {
		for _, e := range v.Content {
			if err := check(e, t, path); err != nil {
				return err
			}
		}
		return nil
	}
	return check(v, t, path)
}

// decodeLeaf decodes n into a fresh value of type t to find type errors,
// and rewrites them to name the path and what was wanted.
func decodeLeaf(n *yaml.Node, t reflect.Type, path string) error {
	err := n.Decode(reflect.New(t).Interface())
	if err == nil {
		return nil
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		// The type's own message says what is allowed; drop its line
		// prefix, the fieldError carries the line.
		msg := err.Error()
		if strings.HasPrefix(msg, "line ") {
			if _, rest, ok := strings.Cut(msg, ": "); ok {
				msg = rest
			}
		}
		return &fieldError{n.Line, path, msg}
	}
	return &fieldError{n.Line, path, fmt.Sprintf("%s is not %s", show(n), want(t))}
}

// show describes a node for an error message.
func show(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// want says in words what a value of type t looks like.
func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("an integer from 0 to %d", ^uint64(0)>>(64-t.Bits()))
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Pointer:
		return want(t.Elem())
	case reflect.Slice:
		return "a list of " + plural(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("a list of %d %s", t.Len(), plural(t.Elem()))
	}
	return "a mapping"
}

func plural(t reflect.Type) string {
	switch w := want(t); {
	case w == "a number":
		return "numbers"
	case strings.HasPrefix(w, "an integer"):
		return "integers"
	case w == "a string":
		return "strings"
	}
	return "entries"
}
