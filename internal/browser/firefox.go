//go:build !js

package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/coder/websocket"
)

// firefox drives headless Firefox through WebDriver BiDi (https://w3c.github.io/webdriver-bidi/), the
// protocol Firefox serves on --remote-debugging-port, over a websocket.
type firefox struct {
	proc    *process
	bidi    *bidiConn
	top     string // the browsing context (tab) the page is in
	version string
	profile string
	once    sync.Once
}

func findFirefox(flagPath string) (string, error) {
	for _, p := range []string{flagPath, os.Getenv("FIREFOX_PATH")} {
		if p != "" {
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("no Firefox at %s: %w", p, ErrNotInstalled)
			}
			return p, nil
		}
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no firefox-esr on $PATH (Debian: apt-get install firefox-esr; or set FIREFOX_PATH): %w", ErrNotInstalled)
}

// firefoxPrefs quiet a fresh profile's first run; the remote agent sets the rest of what automation needs
// (remote.prefs.recommended).
const firefoxPrefs = `user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.disabledForTesting", true);
`

func startFirefox(ctx context.Context, o Options) (b Browser, err error) {
	bin, err := findFirefox(o.Binary)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "browser-firefox-")
	if err != nil {
		return nil, err
	}
	prefs := firefoxPrefs
	switch o.Storage {
	case StorageNoThirdParty: // block third-party cookies, and with them a third-party frame's storage
		prefs += "user_pref(\"network.cookie.cookieBehavior\", 1);\n"
	case StorageNone: // block every site's cookies and storage
		prefs += "user_pref(\"network.cookie.cookieBehavior\", 2);\n"
	}
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs), 0o644); err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	// Port 0: Firefox picks a free port and prints its address.
	const banner = "WebDriver BiDi listening on "
	addr := make(chan string, 1)
	cmd := exec.Command(bin, "--headless", "--no-remote", "--remote-debugging-port=0", "--profile", profile, "about:blank")
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1")
	proc, err := startProcess(cmd, func(line string) {
		if _, a, ok := strings.Cut(line, banner); ok {
			select {
			case addr <- strings.TrimSpace(a):
			default:
			}
		}
	})
	if err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("starting Firefox: %w", err)
	}
	f := &firefox{proc: proc, profile: profile}
	defer func() {
		if err != nil {
			f.Close()
			err = fmt.Errorf("starting Firefox: %w\n%s", err, proc.tail())
		}
	}()
	var ws string
	select {
	case ws = <-addr:
	case <-proc.done:
		return nil, errors.New("it exited before serving WebDriver BiDi")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if f.bidi, err = dialBiDi(ctx, ws+"/session", func(method string, params json.RawMessage) {
		if method == "log.entryAdded" {
			var e struct{ Level, Type, Text string }
			if json.Unmarshal(params, &e) == nil && (e.Level == "error" || e.Type == "javascript") {
				o.Logf("%s %s: %s", e.Type, e.Level, e.Text)
			}
		}
	}); err != nil {
		return nil, err
	}
	var sess struct {
		Capabilities struct{ BrowserName, BrowserVersion string }
	}
	if err := f.bidi.call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}, &sess); err != nil {
		return nil, err
	}
	f.version = "Firefox " + sess.Capabilities.BrowserVersion
	if err := f.bidi.call(ctx, "session.subscribe", map[string]any{"events": []string{"log.entryAdded"}}, nil); err != nil {
		return nil, err
	}
	var tree struct{ Contexts []struct{ Context string } }
	if err := f.bidi.call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0}, &tree); err != nil {
		return nil, err
	}
	if len(tree.Contexts) == 0 {
		return nil, errors.New("it has no tab")
	}
	f.top = tree.Contexts[0].Context
	if err := f.bidi.call(ctx, "browsingContext.setViewport", map[string]any{"context": f.top,
		"viewport": map[string]any{"width": o.Width, "height": o.Height}}, nil); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *firefox) Engine() string { return f.version }

func (f *firefox) Navigate(ctx context.Context, url string) error {
	return f.bidi.call(ctx, "browsingContext.navigate", map[string]any{"context": f.top, "url": url, "wait": "complete"}, nil)
}

func (f *firefox) Reload(ctx context.Context) error {
	return f.bidi.call(ctx, "browsingContext.reload", map[string]any{"context": f.top, "wait": "complete"}, nil)
}

func (f *firefox) Eval(ctx context.Context, expr string, out any) error {
	return f.eval(ctx, expr, false, out)
}

func (f *firefox) Await(ctx context.Context, expr string, out any) error {
	return f.eval(ctx, expr, true, out)
}

func (f *firefox) eval(ctx context.Context, expr string, awaited bool, out any) error {
	var r struct {
		Type   string
		Result struct {
			Type  string
			Value json.RawMessage
		}
		ExceptionDetails struct {
			Text      string
			Exception struct {
				Type  string
				Value json.RawMessage
			}
		}
	}
	if err := f.bidi.call(ctx, "script.evaluate", map[string]any{"expression": jsonOf(expr, awaited),
		"target": map[string]any{"context": f.top}, "awaitPromise": awaited, "resultOwnership": "none"}, &r); err != nil {
		return err
	}
	if r.Type == "exception" {
		return fmt.Errorf("the page threw: %s", r.ExceptionDetails.Text)
	}
	if r.Result.Type != "string" {
		return fmt.Errorf("the page's value is a %s, not the JSON text asked for", r.Result.Type)
	}
	var text string
	if err := json.Unmarshal(r.Result.Value, &text); err != nil {
		return err
	}
	return decode(text, out)
}

func (f *firefox) Stroke(ctx context.Context, pts []Point) error {
	if len(pts) == 0 {
		return nil
	}
	return f.bidi.call(ctx, "input.performActions", map[string]any{"context": f.top, "actions": []any{pointerActions(pts, false)}}, nil)
}

func (f *firefox) Close() error {
	f.once.Do(func() {
		if f.bidi != nil {
			ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
			f.bidi.call(ctx, "browser.close", map[string]any{}, nil)
			cancel()
			f.bidi.close()
		}
		f.proc.stop(closeGrace)
		os.RemoveAll(f.profile)
	})
	return nil
}

// pointerActions is one mouse's input source for WebDriver's actions (classic and BiDi alike): move to the
// first point, press, move through the others, release. Classic WebDriver implementations may insist on
// integer coordinates; BiDi takes fractions.
func pointerActions(pts []Point, integers bool) map[string]any {
	coord := func(v float64) any {
		if integers {
			return int(math.Round(v))
		}
		return v
	}
	move := func(p Point) map[string]any {
		return map[string]any{"type": "pointerMove", "x": coord(p.X), "y": coord(p.Y), "origin": "viewport", "duration": 0}
	}
	actions := []any{move(pts[0]), map[string]any{"type": "pointerDown", "button": 0}}
	for _, p := range pts[1:] {
		actions = append(actions, move(p))
	}
	actions = append(actions, map[string]any{"type": "pointerUp", "button": 0})
	return map[string]any{"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"}, "actions": actions}
}

// bidiConn is a WebDriver BiDi session's websocket: commands with their answers, and events.
type bidiConn struct {
	ws      *websocket.Conn
	mu      sync.Mutex
	next    int
	waiting map[int]chan bidiMessage
	closed  chan struct{}
	err     error // why the connection ended, once closed is closed
}

type bidiMessage struct {
	Type    string          `json:"type"` // "success", "error" or "event"
	ID      *int            `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

func dialBiDi(ctx context.Context, url string, event func(method string, params json.RawMessage)) (*bidiConn, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(256 << 20) // a page's value can be large (a finished set's report)
	c := &bidiConn{ws: ws, waiting: map[int]chan bidiMessage{}, closed: make(chan struct{})}
	go func() {
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				c.err = err
				close(c.closed)
				return
			}
			var m bidiMessage
			if err := json.Unmarshal(data, &m); err != nil {
				continue
			}
			if m.Type == "event" {
				event(m.Method, m.Params)
				continue
			}
			if m.ID == nil {
				continue
			}
			c.mu.Lock()
			ch := c.waiting[*m.ID]
			delete(c.waiting, *m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}()
	return c, nil
}

// call sends a command and decodes its result into out (which may be nil).
func (c *bidiConn) call(ctx context.Context, method string, params any, out any) error {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan bidiMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
	}()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	if err := c.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Type == "error" {
			return fmt.Errorf("%s: %s: %s", method, m.Error, m.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-c.closed:
		return fmt.Errorf("%s: the connection closed: %w", method, c.err)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *bidiConn) close() { c.ws.Close(websocket.StatusNormalClosure, "") }
