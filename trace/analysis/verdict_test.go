package analysis

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestVerdictsAreDocumented parses the table of docs/analysis.md's
// "Verdicts" section: its words must be exactly Verdicts, in order, each
// with a meaning and where it appears; and the words the check's text
// prints (a property's verdict) must be among them.
func TestVerdictsAreDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/analysis.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n## Verdicts\n")
	if i < 0 {
		t.Fatal(`docs/analysis.md has no "## Verdicts" section`)
	}
	sec := doc[i+1:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z ]+)` \\| ([^|]+) \\| ([^|]+) \\|$")
	var words []string
	for _, m := range row.FindAllStringSubmatch(sec, -1) {
		words = append(words, m[1])
		if len(strings.TrimSpace(m[2])) < 10 || len(strings.TrimSpace(m[3])) < 10 {
			t.Errorf("the row of %q says too little: %q", m[1], m[0])
		}
	}
	if !slices.Equal(words, Verdicts) {
		t.Fatalf("docs/analysis.md's verdicts %q, the code's %q", words, Verdicts)
	}
	for _, w := range Verdicts {
		if !IsVerdict(w) {
			t.Errorf("IsVerdict(%q) is false", w)
		}
	}
	for _, w := range []string{"ok", "holds", "violated", "settled", ""} {
		if IsVerdict(w) {
			t.Errorf("IsVerdict(%q) is true", w)
		}
	}
	// No verdict is spelt out elsewhere: the packages that judge runs set
	// them from these constants only.
	lit := regexp.MustCompile("Verdict[^=:`\\n]*(=|: ) *\"")
	for _, dir := range []string{".", "../report", "../htmlreport", "../../experiment", "../../cmd/manetlab"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if m := lit.Find(src); m != nil {
				t.Errorf("%s sets a verdict from a literal (%s): use analysis.Verdicts", f, m)
			}
		}
	}
}
