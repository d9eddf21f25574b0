package scenario

import (
	"strings"
	"testing"
)

// TestYAMLSyntaxErrors: a scenario that is not valid YAML is refused with
// the file, the line, the field there and what is wrong in a reader's
// words, never the parser's wording alone (issue 35, item 11).
func TestYAMLSyntaxErrors(t *testing.T) {
	cases := []struct{ doc, want string }{
		{"name: x\nnodes:\n  count: 5\n   placement: grid\n",
			`s.yaml:4: nodes.count.placement: a "field: value" where YAML expects a value: indent the field as its neighbours are`},
		{"name: x\nnodes: [1, 2\n", "s.yaml:2: nodes: a [list] not closed by ]"},
		{"name: x\n\tnodes: 3\n", "s.yaml:2: nodes: a tab in the indentation: YAML indents with spaces only"},
		{"name: \"x\n", "s.yaml:2: the file ends inside a quoted value or a list"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc), "s.yaml", nil)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !strings.Contains(err.Error(), "(the YAML parser: ") ||
			strings.HasPrefix(strings.TrimPrefix(err.Error(), "s.yaml: "), "yaml:") {
			t.Errorf("%q: %v\nwant it to begin %q", c.doc, err, c.want)
		}
	}
}
