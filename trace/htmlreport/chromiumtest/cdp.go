package chromiumtest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// Page is a page open in a headless Chromium driven through the DevTools
// protocol (a WebSocket carrying JSON commands): for tests that act on a
// live page (keys, clicks) and read what it shows, as a user would.
type Page struct {
	t       testing.TB
	cmd     *exec.Cmd
	cancel  context.CancelFunc
	profile string
	ws      *websocket.Conn
	id      int
}

// Open starts a headless Chromium on url for a test (skipping it as
// ForTest does) and connects to its page; Close (registered with
// t.Cleanup) stops the browser.
func Open(t testing.TB, url string, width, height int) *Page {
	t.Helper()
	bin := ForTest(t)
	profile, err := os.MkdirTemp("", "chromium-profile-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	args := append(append([]string{}, Flags...), "--user-data-dir="+profile, "--remote-debugging-port=0",
		"--remote-allow-origins=*", fmt.Sprintf("--window-size=%d,%d", width, height), url)
	p := &Page{t: t, cmd: exec.CommandContext(ctx, bin, args...), cancel: cancel, profile: profile}
	t.Cleanup(p.Close)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Chromium writes its port to DevToolsActivePort in the profile.
	var port string
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if lines := strings.Split(string(b), "\n"); err == nil && len(lines) > 1 && lines[0] != "" {
			port = lines[0]
			break
		}
	}
	if port == "" {
		t.Fatal("chromium did not open its DevTools port in 30s")
	}
	var ws string
	for end := time.Now().Add(30 * time.Second); ws == "" && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		ws = pageTarget("http://127.0.0.1:" + port + "/json/list")
	}
	if ws == "" {
		t.Fatal("chromium lists no page target")
	}
	if p.ws, err = websocket.Dial(ws, "", "http://127.0.0.1/"); err != nil {
		t.Fatal(err)
	}
	p.ws.MaxPayloadBytes = 64 << 20
	return p
}

func pageTarget(list string) string {
	r, err := http.Get(list)
	if err != nil {
		return ""
	}
	defer r.Body.Close()
	var ts []struct{ Type, WebSocketDebuggerURL string }
	if json.NewDecoder(r.Body).Decode(&ts) != nil {
		return ""
	}
	for _, x := range ts {
		if x.Type == "page" {
			return x.WebSocketDebuggerURL
		}
	}
	return ""
}

// Close stops the browser.
func (p *Page) Close() {
	if p.ws != nil {
		p.ws.Close()
	}
	p.cancel()
	p.cmd.Wait()
	os.RemoveAll(p.profile)
}

// Call sends a DevTools command and returns its result.
func (p *Page) Call(method string, params any) (json.RawMessage, error) {
	p.id++
	id := p.id
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err := websocket.Message.Send(p.ws, string(msg)); err != nil {
		return nil, err
	}
	p.ws.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		var s string
		if err := websocket.Message.Receive(p.ws, &s); err != nil {
			return nil, err
		}
		var r struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if json.Unmarshal([]byte(s), &r) != nil || r.ID != id {
			continue // an event
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	}
}

// Eval evaluates a JavaScript expression (awaiting a promise) and
// unmarshals its value into v (nil: ignored); a thrown exception fails
// the test.
func (p *Page) Eval(expr string, v any) {
	p.t.Helper()
	res, err := p.Call("Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		p.t.Fatal(err)
	}
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	if err := json.Unmarshal(res, &r); err != nil {
		p.t.Fatal(err)
	}
	if r.ExceptionDetails != nil {
		p.t.Fatalf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if v != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, v); err != nil {
			p.t.Fatalf("%s: %v (%s)", expr, err, r.Result.Value)
		}
	}
}

// WaitFor polls a JavaScript condition until it is true (an exception
// counts as false: the page may still be loading), failing the test
// after timeout.
func (p *Page) WaitFor(cond string, timeout time.Duration) {
	p.t.Helper()
	end := time.Now().Add(timeout)
	for {
		var ok bool
		p.Eval("(() => { try { return !!("+cond+"); } catch (e) { return false; } })()", &ok)
		if ok {
			return
		}
		if time.Now().After(end) {
			p.t.Fatalf("not true after %s: %s", timeout, cond)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Key presses and releases a key as a user would ("n", " ", "ArrowLeft").
func (p *Page) Key(key string) {
	p.t.Helper()
	text := key
	if len(key) > 1 {
		text = ""
	}
	for _, typ := range []string{"keyDown", "keyUp"} {
		params := map[string]any{"type": typ, "key": key}
		if typ == "keyDown" && text != "" {
			params["text"] = text
		}
		if _, err := p.Call("Input.dispatchKeyEvent", params); err != nil {
			p.t.Fatal(err)
		}
	}
}

// Click clicks the centre of the first element matching a CSS selector,
// with the mouse, as a user would.
func (p *Page) Click(selector string) {
	p.t.Helper()
	var box []float64
	sel, _ := json.Marshal(selector)
	p.Eval(fmt.Sprintf(`(() => { const e = document.querySelector(%s); if (!e) throw new Error("no element " + %s);
		e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel, sel), &box)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if _, err := p.Call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": box[0], "y": box[1], "button": "left", "clickCount": 1}); err != nil {
			p.t.Fatal(err)
		}
	}
}

// Drag presses the mouse on the centre of the first element matching a
// CSS selector, moves it by (dx, dy) pixels in a few steps and releases
// it, as a user drags.
func (p *Page) Drag(selector string, dx, dy float64) {
	p.t.Helper()
	var box []float64
	sel, _ := json.Marshal(selector)
	p.Eval(fmt.Sprintf(`(() => { const e = document.querySelector(%s); if (!e) throw new Error("no element " + %s);
		const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel, sel), &box)
	ev := func(typ string, x, y float64) {
		params := map[string]any{"type": typ, "x": x, "y": y, "button": "left"}
		if typ != "mouseMoved" {
			params["clickCount"] = 1
		} else {
			params["buttons"] = 1
		}
		if _, err := p.Call("Input.dispatchMouseEvent", params); err != nil {
			p.t.Fatal(err)
		}
	}
	ev("mousePressed", box[0], box[1])
	const steps = 5
	for i := 1; i <= steps; i++ {
		ev("mouseMoved", box[0]+dx*float64(i)/steps, box[1]+dy*float64(i)/steps)
	}
	ev("mouseReleased", box[0]+dx, box[1]+dy)
}

// Screenshot writes a PNG of the page's viewport to path.
func (p *Page) Screenshot(path string) {
	p.t.Helper()
	res, err := p.Call("Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		p.t.Fatal(err)
	}
	var r struct{ Data string }
	if err := json.Unmarshal(res, &r); err != nil {
		p.t.Fatal(err)
	}
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}
