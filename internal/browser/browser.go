//go:build !js

// Package browser drives the three browser engines the page must work in — Chromium (through the Chrome DevTools
// Protocol, with chromedp), Firefox (through WebDriver BiDi) and WebKitGTK, the engine of Safari (through its W3C
// WebDriver server, WebKitWebDriver, with MiniBrowser on an Xvfb display) — behind one small interface: open a
// page, evaluate JavaScript (and await a promise), draw pointer strokes with real input events, close.
//
// Each engine is found on $PATH (or at its Debian place), or at the path in an environment variable
// (CHROME_PATH, FIREFOX_PATH, WEBKIT_DRIVER_PATH and MINIBROWSER_PATH); a missing one is reported as an error that
// wraps ErrNotInstalled, so that a test can skip (or fail under CI) with the reason.
package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The engines, as Start takes them.
const (
	Chromium = "chromium"
	Firefox  = "firefox"
	WebKit   = "webkit"
)

// Engines lists every engine Start knows, in a fixed order.
var Engines = []string{Chromium, Firefox, WebKit}

// ErrNotInstalled is wrapped by the error of an engine that is not installed on this machine.
var ErrNotInstalled = errors.New("browser not installed")

// Point is a position in the page's viewport, in CSS pixels.
type Point struct{ X, Y float64 }

// Browser is one running browser with a fresh profile (no cache, no service worker, no storage from before),
// showing one page.
type Browser interface {
	// Engine is the engine's name and version, e.g. "Firefox 153.7.0".
	Engine() string
	// Navigate loads url and returns once its load event has fired.
	Navigate(ctx context.Context, url string) error
	// Reload reloads the current page and returns once its load event has fired.
	Reload(ctx context.Context) error
	// Eval evaluates a JavaScript expression in the page and decodes its value, as JSON, into out (which may
	// be nil). A thrown exception is an error.
	Eval(ctx context.Context, expr string, out any) error
	// Await is Eval for an expression whose value is a promise: it decodes what the promise resolves to.
	Await(ctx context.Context, expr string, out any) error
	// Stroke presses the primary mouse button at pts[0], moves through the other points, and releases it at
	// the last, as real input events (the page sees trusted pointer and mouse events).
	Stroke(ctx context.Context, pts []Point) error
	// Close ends the browser and removes its profile.
	Close() error
}

// Options are what Start needs beyond the engine's name; the zero value works.
type Options struct {
	// Binary overrides where the browser is found (for WebKit: the WebKitWebDriver binary).
	Binary string
	// Width and Height are the viewport's size in CSS pixels (default 1280 × 1800).
	Width, Height int
	// Logf, if set, receives the page's errors: uncaught exceptions and console errors.
	Logf func(format string, args ...any)
	// Storage is what site data the browser grants pages (the engine's defaults when zero).
	Storage Storage
}

// Storage is what site data (cookies, Web Storage, IndexedDB, the Cache API, service workers) a browser grants
// pages, set as a visitor or an administrator sets it.
type Storage int

const (
	// StorageDefault is the engine's own default.
	StorageDefault Storage = iota
	// StorageNoThirdParty denies it to a frame whose site is not its top page's, unpartitioned: Chromium with
	// third-party cookies blocked and without storage partitioning (as Playwright launches it, or an enterprise
	// policy); Firefox blocking third-party cookies (network.cookie.cookieBehavior 1). WebKitGTK has no setting
	// that denies only third-party frames (it partitions them), so there it is StorageNone.
	StorageNoThirdParty
	// StorageNone denies it to every page, top-level ones too: a visitor who blocks site data. Chromium's
	// cookie setting "block" (profile.default_content_setting_values.cookies 2); Firefox's cookieBehavior 2;
	// WebKitGTK with local storage and IndexedDB turned off and cookies never accepted.
	StorageNone
)

func (o *Options) defaults() {
	if o.Width == 0 {
		o.Width = 1280
	}
	if o.Height == 0 {
		o.Height = 1800
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}

// Start starts a browser of the given engine with a fresh profile. ctx bounds only the start; the browser runs
// until Close.
func Start(ctx context.Context, engine string, o Options) (Browser, error) {
	o.defaults()
	switch engine {
	case Chromium:
		return startChromium(ctx, o)
	case Firefox:
		return startFirefox(ctx, o)
	case WebKit:
		return startWebKit(ctx, o)
	}
	return nil, fmt.Errorf("unknown browser engine %q (want one of %s)", engine, strings.Join(Engines, ", "))
}

// Installed reports whether an engine can be started here: nil, or an error wrapping ErrNotInstalled that says
// what is missing and how to install it.
func Installed(engine string) error {
	switch engine {
	case Chromium:
		_, err := findChromium("")
		return err
	case Firefox:
		_, err := findFirefox("")
		return err
	case WebKit:
		_, _, _, err := findWebKit("")
		return err
	}
	return fmt.Errorf("unknown browser engine %q", engine)
}

// evalTimeout bounds one evaluation of WaitFor's expression.
const evalTimeout = 20 * time.Second

// WaitFor evaluates expr every interval until its value (awaited, if it is a promise) is truthy, and returns
// that value as JSON. It fails when ctx ends or timeout passes first, with the last evaluation's error, if any.
func WaitFor(ctx context.Context, b Browser, expr string, timeout, interval time.Duration) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if interval <= 0 {
		interval = 50 * time.Millisecond
	}
	probe := `(async () => { const v = await (` + expr + "\n); return v ? v : false; })()"
	var last error
	for {
		var v json.RawMessage
		// Each evaluation gets its own deadline: WebKitGTK's driver now and then never answers one sent while a
		// page loads (seen under load: the whole wait hung on it), and the next evaluation is answered.
		call, cancelCall := context.WithTimeout(ctx, evalTimeout)
		err := b.Await(call, probe, &v)
		cancelCall()
		if err == nil && string(v) != "false" {
			return v, nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil && ctx.Err() == context.DeadlineExceeded {
				return nil, fmt.Errorf("%w (the last evaluation: %v)", ctx.Err(), last)
			}
			return nil, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// jsonOf wraps a JavaScript expression so that it evaluates to its value as a JSON string ("null" for
// undefined); awaited, it first awaits the value.
func jsonOf(expr string, awaited bool) string {
	if awaited {
		return "(async () => { const v = await (" + expr + "\n); return JSON.stringify(v === undefined ? null : v); })()"
	}
	return "(() => { const v = (" + expr + "\n); return JSON.stringify(v === undefined ? null : v); })()"
}

// decode stores a JSON text into out (unless out is nil).
func decode(text string, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		return fmt.Errorf("decoding the page's value %.200s: %w", text, err)
	}
	return nil
}

// closeGrace is how long a browser gets to end by itself before it is killed.
const closeGrace = 5 * time.Second
