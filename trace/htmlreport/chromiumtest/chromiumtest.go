// Package chromiumtest runs a headless Chromium on the project's
// self-contained HTML pages, for the tests that check what their scripts
// draw. It finds the browser, skips a test without one (scripts/deps.sh
// installs it), and dumps a page's DOM after its scripts ran.
//
// It imports the standard library and golang.org/x/net/websocket (the
// DevTools protocol of Page, cdp.go).
package chromiumtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// Flags keep a headless Chromium to the local file: no network services,
// no updates.
var Flags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync"}

// Find returns the path of a Chromium or Chrome binary, or "".
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// ForTest returns the browser for a test, or skips it: under -short, or
// when none is installed. With MANETLAB_REQUIRE_CHROMIUM set (CI), a
// missing browser fails the test instead.
func ForTest(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	bin := Find()
	if bin == "" {
		if os.Getenv("MANETLAB_REQUIRE_CHROMIUM") != "" {
			t.Fatal("chromium is not installed (MANETLAB_REQUIRE_CHROMIUM is set): run scripts/deps.sh as root")
		}
		t.Skip("chromium is not installed: run scripts/deps.sh as root (or apt-get install chromium) to test HTML pages in a browser")
	}
	return bin
}

// DumpDOM loads the HTML file at path in headless Chromium, with a fresh
// profile, and returns the DOM once the page's scripts have run.
func DumpDOM(ctx context.Context, bin, path string) (string, error) {
	profile, err := os.MkdirTemp("", "chromium-profile-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(profile)
	args := append(append([]string{}, Flags...), "--user-data-dir="+profile, "--dump-dom", "file://"+path)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", bin, err, tail(stderr.String(), 2000))
	}
	return stdout.String(), nil
}

var (
	dataError = regexp.MustCompile(`data-error="([^"]*)"`)
	dataReady = regexp.MustCompile(`<body[^>]*data-ready="1"`)
)

// ReadyDOM renders the page at path for a test (skipping it without a
// browser, see ForTest) and returns its DOM, failing the test when the
// page's script reported an error (data-error on an element) or did not
// finish (no data-ready="1" on the body): the contract of the project's
// pages.
func ReadyDOM(t testing.TB, path string) string {
	t.Helper()
	bin := ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dom, err := DumpDOM(ctx, bin, path)
	if err != nil {
		t.Fatal(err)
	}
	if m := dataError.FindStringSubmatch(dom); m != nil {
		t.Fatalf("%s: the page's script failed: %s", path, m[1])
	}
	if !dataReady.MatchString(dom) {
		t.Fatalf("%s: body has no data-ready=\"1\": the script did not finish\n%s", path, tail(dom, 3000))
	}
	return dom
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
