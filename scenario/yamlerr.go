package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// yamlLine matches yaml.v3's syntax errors: "yaml: line N: what".
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlWords put the YAML parser's wording in a reader's, by the phrase
// that begins it (the parser's own words follow in brackets).
var yamlWords = []struct{ raw, plain string }{
	{"mapping values are not allowed", `a "field: value" where YAML expects a value: indent the field as its neighbours are, or quote a value that holds ": "`},
	{"found a tab character", "a tab in the indentation: YAML indents with spaces only"},
	{"did not find expected ',' or ']'", "a [list] not closed by ]"},
	{"did not find expected ',' or '}'", "a {map} not closed by }"},
	{"did not find expected key", "a line that does not line up with the fields above it: check its indentation"},
	{"did not find expected '-' indicator", "a list item that does not line up with the items above it"},
	{"could not find expected ':'", `a field name without its ":"`},
	{"found unexpected end of stream", "the file ends inside a quoted value or a list"},
	{"found character that cannot start any token", "a character that cannot begin a value (quote the value)"},
	{"found undefined tag handle", "a value that begins with ! (quote it)"},
}

// syntaxError is the YAML parser's error err about file name (data its
// text) in a reader's words: the file and line, the field there (its
// path, from the indentation of the lines above) and what is wrong,
// the parser's own words after it.
func syntaxError(name string, data []byte, err error) error {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: not valid YAML (%s)", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	n, _ := strconv.Atoi(m[1])
	lines := strings.Split(string(data), "\n")
	plain := "not valid YAML"
	for _, w := range yamlWords {
		if strings.HasPrefix(m[2], w.raw) {
			plain = w.plain
			break
		}
	}
	if strings.HasPrefix(m[2], "did not find expected ',' or") {
		// The parser names the line before the one that opens the
		// flow collection: name the one that opens it.
		for i := max(n-1, 0); i < len(lines); i++ {
			if strings.ContainsAny(lines[i], "[{") {
				n = i + 1
				break
			}
		}
	}
	field := ""
	switch {
	case n < 1 || n > len(lines):
	case strings.HasPrefix(m[2], "found a tab character"):
		// Tabs make the indentation meaningless: the line's own key.
		field, _, _ = keyOf(lines[n-1])
	default:
		field = fieldAt(lines, n)
	}
	if field != "" {
		field += ": "
	}
	return fmt.Errorf("%s:%d: %s%s (the YAML parser: %s)", name, n, field, plain, m[2])
}

// fieldAt is the path of the field on line n (1-based) of lines: its key
// and those of the lines above it with less indentation ("nodes.count");
// "" when the line holds no key.
func fieldAt(lines []string, n int) string {
	key, ind, ok := keyOf(lines[n-1])
	if !ok {
		return ""
	}
	path := []string{key}
	for i := n - 2; i >= 0 && ind > 0; i-- {
		k, in, ok := keyOf(lines[i])
		if ok && in < ind {
			path = append([]string{k}, path...)
			ind = in
		}
	}
	return strings.Join(path, ".")
}

// keyOf is the key of a "key: ..." line and its indentation (tabs
// counted as one column, as the reader sees them), ok false for blank,
// comment and keyless lines.
func keyOf(line string) (string, int, bool) {
	t := strings.TrimLeft(line, " \t")
	ind := len(line) - len(t)
	t = strings.TrimPrefix(t, "- ")
	if t == "" || strings.HasPrefix(t, "#") {
		return "", 0, false
	}
	k, _, found := strings.Cut(t, ":")
	k = strings.TrimSpace(k)
	if !found || k == "" || strings.ContainsAny(k, " [{\"'") {
		return "", 0, false
	}
	return k, ind, true
}
