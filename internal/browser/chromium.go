//go:build !js

package browser

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium drives headless Chromium through the DevTools protocol (chromedp, over a pipe).
type chromium struct {
	ctx     context.Context
	cancel  func()
	version string
	profile string
	once    sync.Once
}

func findChromium(flagPath string) (string, error) {
	for _, p := range []string{flagPath, os.Getenv("CHROME_PATH")} {
		if p != "" {
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("no Chromium at %s: %w", p, ErrNotInstalled)
			}
			return p, nil
		}
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium on $PATH (Debian: apt-get install chromium; or set CHROME_PATH): %w", ErrNotInstalled)
}

func startChromium(ctx context.Context, o Options) (Browser, error) {
	bin, err := findChromium(o.Binary)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "browser-chromium-")
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	extra, err := chromiumStorage(profile, o.Storage)
	if err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true), chromedp.UserDataDir(profile), chromedp.WindowSize(o.Width, o.Height),
		chromedp.CombinedOutput(&out))
	opts = append(opts, extra...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	cctx, cancelC := chromedp.NewContext(actx)
	c := &chromium{ctx: cctx, profile: profile, cancel: func() { cancelC(); cancelA() }}
	chromedp.Listen(cctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			o.Logf("page exception: %s", text)
		case *runtime.EventConsoleAPICalled:
			if e.Type != runtime.ConsoleAPICalledTypeError {
				return
			}
			var parts []string
			for _, a := range e.Args {
				if len(a.Value) > 0 {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			o.Logf("console error: %s", strings.Join(parts, " "))
		}
	})
	// The first action starts the browser and opens its tab, which live as long as cctx; ctx bounds the start.
	stop := context.AfterFunc(ctx, c.cancel)
	_, err = chromedp.Run(cctx, chromedp.Navigate("about:blank"))
	if err == nil {
		var v browser.GetVersionResult
		v, err = chromedp.CallBrowser(cctx, browser.GetVersion, cdp.Empty{})
		c.version = strings.Replace(v.Product, "/", " ", 1)
	}
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("starting Chromium: %w\n%s", err, tailOf(out.String(), 20))
	}
	return c, nil
}

func (c *chromium) Engine() string { return c.version }

// run runs an action in the browser's page, bounded by ctx as well as by the browser's life.
func run[T any](c *chromium, ctx context.Context, a chromedp.Action[T]) (T, error) {
	rctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	v, err := chromedp.Run(rctx, a)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return v, err
}

func (c *chromium) Navigate(ctx context.Context, url string) error {
	_, err := run(c, ctx, chromedp.Navigate(url))
	return err
}

func (c *chromium) Reload(ctx context.Context) error {
	_, err := run(c, ctx, chromedp.Reload())
	return err
}

func (c *chromium) Eval(ctx context.Context, expr string, out any) error {
	text, err := run(c, ctx, chromedp.Evaluate[string](jsonOf(expr, false)))
	if err != nil {
		return err
	}
	return decode(text, out)
}

func (c *chromium) Await(ctx context.Context, expr string, out any) error {
	text, err := run(c, ctx, chromedp.Evaluate[string](jsonOf(expr, true), chromedp.EvalAwaitPromise))
	if err != nil {
		return err
	}
	return decode(text, out)
}

func (c *chromium) Stroke(ctx context.Context, pts []Point) error {
	if len(pts) == 0 {
		return nil
	}
	// clickCount 1 on the press and the release: without it Chromium fires no click (a one-point stroke is one).
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MouseMoved, pts[0].X, pts[0].Y),
		chromedp.MouseEvent(chromedp.MousePressed, pts[0].X, pts[0].Y, chromedp.ButtonLeft, chromedp.ClickCount(1))}
	for _, p := range pts[1:] {
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, p.X, p.Y, chromedp.ButtonLeft))
	}
	last := pts[len(pts)-1]
	steps = append(steps, chromedp.MouseEvent(chromedp.MouseReleased, last.X, last.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	_, err := run(c, ctx, chromedp.Steps(steps...))
	return err
}

func (c *chromium) Close() error {
	c.once.Do(func() {
		c.cancel() // closes the browser and waits for it
		os.RemoveAll(c.profile)
	})
	return nil
}

// tailOf is the last n lines of s.
func tailOf(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// chromiumStorage writes the profile's preferences for what site data pages get, and returns the flags it needs.
func chromiumStorage(profile string, s Storage) ([]chromedp.ExecAllocatorOption, error) {
	var prefs string
	var flags []chromedp.ExecAllocatorOption
	switch s {
	case StorageDefault:
		return nil, nil
	case StorageNoThirdParty:
		// Third-party cookies blocked (the setting's two spellings, old and new), and no partitioned storage to
		// fall back on: a frame of another site is denied its storage.
		prefs = `{"profile": {"block_third_party_cookies": true, "cookie_controls_mode": 1}}`
		// chromedp's default disable-features, and storage partitioning.
		flags = append(flags, chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,ThirdPartyStoragePartitioning"))
	case StorageNone:
		prefs = `{"profile": {"default_content_setting_values": {"cookies": 2}}}`
	default:
		return nil, fmt.Errorf("unknown storage setting %d", s)
	}
	dir := filepath.Join(profile, "Default")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return flags, os.WriteFile(filepath.Join(dir, "Preferences"), []byte(prefs), 0o644)
}
