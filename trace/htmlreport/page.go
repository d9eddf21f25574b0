package htmlreport

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"manetlab/internal/mapview"
	"manetlab/internal/safefs"
)

//go:embed page.html.tmpl
var pageTemplate string

//go:embed page.js
var pageJS string

//go:embed page.css
var pageCSS string

var page = template.Must(template.New("page").Parse(pageTemplate))

// DataElementID is the id of the <script type="application/json"> element
// that holds the page's Data.
const DataElementID = "manetlab-data"

// Write renders the page for d.
func Write(w io.Writer, d *Data) error {
	// encoding/json escapes <, > and & as \u003c..., so the JSON cannot
	// end the script element it sits in.
	js, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	title := d.Run
	if title == "" {
		title = "run"
	}
	return page.Execute(w, map[string]any{
		"Title":  title,
		"DataID": DataElementID,
		"Data":   template.JS(js),
		"Script": template.JS(mapview.JS + "\n" + pageJS),
		"Style":  template.CSS(mapview.CSS + pageCSS),
	})
}

// WriteFile builds the page for the run in dir and writes it to path.
func WriteFile(dir, path string, opt Options) error {
	d, err := Build(dir, opt)
	if err != nil {
		return err
	}
	return Save(path, d)
}

// Save writes the page for d to path.
func Save(path string, d *Data) error {
	f, err := safefs.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = Write(w, d)
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// Extract returns the Data embedded in a page written by Write.
func Extract(html []byte) (*Data, error) {
	open := []byte(`<script type="application/json" id="` + DataElementID + `">`)
	i := bytes.Index(html, open)
	if i < 0 {
		return nil, fmt.Errorf("html report: no %s element", DataElementID)
	}
	rest := html[i+len(open):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		return nil, fmt.Errorf("html report: %s element not closed", DataElementID)
	}
	var d Data
	if err := json.Unmarshal(rest[:j], &d); err != nil {
		return nil, fmt.Errorf("html report: embedded data: %w", err)
	}
	return &d, nil
}

// ParseWindow reads a window FROM:TO of two durations ("10s:12s",
// "1.5s:2500ms"); a bare number is seconds.
func ParseWindow(s string) ([2]time.Duration, error) {
	var w [2]time.Duration
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return w, fmt.Errorf("%q: want FROM:TO, e.g. 10s:12s", s)
	}
	for k, part := range []string{a, b} {
		part = strings.TrimSpace(part)
		d, err := time.ParseDuration(part)
		if err != nil {
			f, ferr := strconv.ParseFloat(part, 64)
			if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return w, fmt.Errorf("%q: %q is not a duration", s, part)
			}
			d = time.Duration(f * 1e9)
		}
		if d < 0 {
			return w, fmt.Errorf("%q: negative time", s)
		}
		w[k] = d
	}
	if w[1] <= w[0] {
		return w, fmt.Errorf("%q: TO must be after FROM", s)
	}
	return w, nil
}
