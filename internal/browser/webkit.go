//go:build !js

package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// webkit drives WebKitGTK, the engine of Safari, through its W3C WebDriver server (WebKitWebDriver, Debian
// package webkit2gtk-driver), which runs the MiniBrowser that ships with WebKitGTK in automation mode. WebKitGTK
// has no headless mode: the browser gets a display of its own, a private Xvfb.
type webkit struct {
	xvfb, driver *process
	root         string // http://127.0.0.1:PORT, the driver
	base         string // root + /session/ID
	caps         map[string]any
	o            Options
	http         *http.Client
	version      string
	once         sync.Once

	mu        sync.Mutex
	lastURL   string // the page last navigated to, opened again in a new session
	recovered bool   // a lost session has been replaced once
}

// errSessionLost is the driver's answer once the browser it ran has gone (crashed): "invalid session id".
var errSessionLost = errors.New("the browser's WebDriver session is lost")

// findWebKit finds WebKitWebDriver, the MiniBrowser it runs, and Xvfb.
func findWebKit(flagPath string) (driver, minibrowser, xvfb string, err error) {
	driver = flagPath
	if driver == "" {
		driver = os.Getenv("WEBKIT_DRIVER_PATH")
	}
	if driver == "" {
		if driver, err = exec.LookPath("WebKitWebDriver"); err != nil {
			return "", "", "", fmt.Errorf("no WebKitWebDriver on $PATH (Debian: apt-get install webkit2gtk-driver; or set WEBKIT_DRIVER_PATH): %w", ErrNotInstalled)
		}
	} else if _, err := os.Stat(driver); err != nil {
		return "", "", "", fmt.Errorf("no WebKitWebDriver at %s: %w", driver, ErrNotInstalled)
	}
	minibrowser = os.Getenv("MINIBROWSER_PATH")
	if minibrowser == "" {
		// Debian's libwebkit2gtk-4.1-0 (or -4.0, or the GTK 4 build's 6.0) ships it under its library folder.
		found, _ := filepath.Glob("/usr/lib/*-linux-gnu*/webkit*gtk-*/MiniBrowser")
		if len(found) == 0 {
			return "", "", "", fmt.Errorf("no MiniBrowser under /usr/lib/*/webkit2gtk-*/ (it comes with libwebkit2gtk; or set MINIBROWSER_PATH): %w", ErrNotInstalled)
		}
		minibrowser = found[len(found)-1]
	}
	if xvfb, err = exec.LookPath("Xvfb"); err != nil {
		return "", "", "", fmt.Errorf("no Xvfb on $PATH, which WebKitGTK needs for a display (Debian: apt-get install xvfb): %w", ErrNotInstalled)
	}
	return driver, minibrowser, xvfb, nil
}

func startWebKit(ctx context.Context, o Options) (b Browser, err error) {
	driverBin, minibrowser, xvfbBin, err := findWebKit(o.Binary)
	if err != nil {
		return nil, err
	}
	w := &webkit{http: &http.Client{}, o: o}
	defer func() {
		if err != nil {
			tail := ""
			if w.driver != nil {
				tail = "\n" + w.driver.tail()
			}
			w.Close()
			err = fmt.Errorf("starting WebKitGTK: %w%s", err, tail)
		}
	}()

	// A private display: Xvfb picks a free display number and writes it to the pipe given by -displayfd.
	r, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(xvfbBin, "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", o.Width+200, o.Height+300), "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{wr}
	w.xvfb, err = startProcess(cmd, nil)
	wr.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("starting Xvfb: %w", err)
	}
	display := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n') // Xvfb writes "N\n" and keeps the pipe open
		display <- strings.TrimSpace(line)
	}()
	var disp string
	select {
	case disp = <-display:
	case <-time.After(20 * time.Second):
	case <-ctx.Done():
	}
	r.Close()
	if _, err := strconv.Atoi(strings.TrimSpace(disp)); err != nil {
		return nil, fmt.Errorf("Xvfb gave no display number (%q): %s", disp, w.xvfb.tail())
	}

	// The driver, on a free port, with the browser's console on its output.
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd = exec.Command(driverBin, "--port="+strconv.Itoa(port), "--host=local")
	cmd.Env = append(os.Environ(), "DISPLAY=:"+disp)
	w.driver, err = startProcess(cmd, func(line string) {
		if strings.Contains(line, "CONSOLE") && strings.Contains(line, "ERROR") {
			o.Logf("%s", line)
		}
	})
	if err != nil {
		return nil, err
	}
	root := "http://127.0.0.1:" + strconv.Itoa(port)
	w.root = root
	for {
		var status struct{ Ready bool }
		if err := w.do(ctx, http.MethodGet, root+"/status", nil, &status); err == nil && status.Ready {
			break
		}
		if w.driver.exited() {
			return nil, errors.New("WebKitWebDriver exited")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}

	args := []string{"--automation", "--enable-write-console-messages-to-stdout=true"}
	if o.Storage != StorageDefault {
		// WebKit partitions a third-party frame's storage rather than deny it, and has no setting that denies it
		// to third-party frames alone: every page is denied it (see StorageNoThirdParty).
		args = append(args, "--enable-html5-local-storage=false", "--enable-html5-database=false", "--cookies-policy=never")
	}
	w.caps = map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"webkitgtk:browserOptions": map[string]any{"binary": minibrowser, "args": args},
	}}}
	if err := w.newSession(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// newSession has the driver start a browser with w's capabilities, its timeouts and window set.
func (w *webkit) newSession(ctx context.Context) error {
	var sess struct {
		SessionID    string
		Capabilities struct{ BrowserName, BrowserVersion string }
	}
	if err := w.do(ctx, http.MethodPost, w.root+"/session", w.caps, &sess); err != nil {
		return err
	}
	w.base = w.root + "/session/" + sess.SessionID
	w.version = "WebKitGTK " + sess.Capabilities.BrowserVersion
	// A page's script may take a while (a promise awaited); a page load may too, on a loaded machine.
	if err := w.do(ctx, http.MethodPost, w.base+"/timeouts", map[string]any{"script": 600_000, "pageLoad": 300_000}, nil); err != nil {
		return err
	}
	return w.do(ctx, http.MethodPost, w.base+"/window/rect", map[string]any{"x": 0, "y": 0, "width": w.o.Width, "height": w.o.Height}, nil)
}

// recover replaces a lost session once, after err (from a call on it): WebKitGTK's browser now and then dies
// under load while a page loads (twice in CI, in tests that passed alone; the driver stays up and forgets the
// session). The test's log says so with the driver's last lines, and a new browser opens the last page again;
// recover reports whether it did. The call's error stands all the same: a caller polling the page (WaitFor)
// polls the new one, any other call fails as it would have. A second loss is not replaced.
func (w *webkit) recover(ctx context.Context, err error) (bool, error) {
	if !errors.Is(err, errSessionLost) {
		return false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.recovered {
		return false, err
	}
	w.recovered = true
	w.o.Logf("WebKitGTK LOST ITS BROWSER (%v); starting a new one and opening %s again. The driver's last lines:\n%s", err, w.lastURL, w.driver.tail())
	// A browser's start and a page's load get the time a first start has, not what is left of the call's.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	if err2 := w.newSession(ctx); err2 != nil {
		return false, fmt.Errorf("%w; a new browser did not start: %v", err, err2)
	}
	if w.lastURL != "" {
		if err2 := w.do(ctx, http.MethodPost, w.base+"/url", map[string]any{"url": w.lastURL}, nil); err2 != nil {
			return false, fmt.Errorf("%w; the new browser did not open %s: %v", err, w.lastURL, err2)
		}
	}
	return true, err
}

// session is the current session's URL (a lost one is replaced by recover).
func (w *webkit) session() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.base
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// do sends one WebDriver request and decodes the answer's value into out (which may be nil).
func (w *webkit) do(ctx context.Context, method, url string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var answer struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &answer); err != nil {
		return fmt.Errorf("%s %s: HTTP %d, %.200s", method, url, resp.StatusCode, b)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error, Message string }
		json.Unmarshal(answer.Value, &e)
		if e.Error == "invalid session id" {
			return fmt.Errorf("%s: %w: %s: %s", lastPart(url), errSessionLost, e.Error, e.Message)
		}
		return fmt.Errorf("%s: %s: %s", lastPart(url), e.Error, e.Message)
	}
	if out != nil {
		return json.Unmarshal(answer.Value, out)
	}
	return nil
}

func lastPart(url string) string {
	_, p, _ := strings.Cut(url, "/session")
	return "WebDriver /session" + p
}

func (w *webkit) Engine() string { return w.version }

func (w *webkit) Navigate(ctx context.Context, url string) error {
	w.mu.Lock()
	w.lastURL = url
	w.mu.Unlock()
	if err := w.do(ctx, http.MethodPost, w.session()+"/url", map[string]any{"url": url}, nil); err != nil {
		if replaced, err := w.recover(ctx, err); !replaced {
			return err
		}
	}
	return nil // opened, if need be by the new browser
}

func (w *webkit) Reload(ctx context.Context) error {
	_, err := w.recover(ctx, w.do(ctx, http.MethodPost, w.session()+"/refresh", map[string]any{}, nil))
	return err
}

func (w *webkit) Eval(ctx context.Context, expr string, out any) error {
	var text string
	if err := w.do(ctx, http.MethodPost, w.session()+"/execute/sync", map[string]any{"script": "return " + jsonOf(expr, false) + ";", "args": []any{}}, &text); err != nil {
		_, err = w.recover(ctx, err)
		return err
	}
	return decode(text, out)
}

// Await runs the promise through execute/async's callback, which every WebDriver server supports (execute/sync
// awaiting a returned promise came later to the standard).
func (w *webkit) Await(ctx context.Context, expr string, out any) error {
	script := `const done = arguments[arguments.length - 1];
		` + jsonOf(expr, true) + `.then((v) => done({ok: v}), (e) => done({thrown: e instanceof Error ? e.name + ": " + e.message : String(e)}));`
	var r struct {
		OK     *string
		Thrown string
	}
	if err := w.do(ctx, http.MethodPost, w.session()+"/execute/async", map[string]any{"script": script, "args": []any{}}, &r); err != nil {
		_, err = w.recover(ctx, err)
		return err
	}
	if r.OK == nil {
		return fmt.Errorf("the page threw: %s", r.Thrown)
	}
	return decode(*r.OK, out)
}

func (w *webkit) Stroke(ctx context.Context, pts []Point) error {
	if len(pts) == 0 {
		return nil
	}
	if err := w.do(ctx, http.MethodPost, w.session()+"/actions", map[string]any{"actions": []any{pointerActions(pts, true)}}, nil); err != nil {
		_, err = w.recover(ctx, err)
		return err
	}
	return w.do(ctx, http.MethodDelete, w.session()+"/actions", nil, nil)
}

func (w *webkit) Close() error {
	w.once.Do(func() {
		if base := w.session(); base != "" {
			ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
			w.do(ctx, http.MethodDelete, base, nil, nil)
			cancel()
		}
		if w.driver != nil {
			w.driver.cmd.Process.Signal(os.Interrupt)
			w.driver.stop(closeGrace)
		}
		if w.xvfb != nil {
			w.xvfb.cmd.Process.Signal(os.Interrupt)
			w.xvfb.stop(closeGrace)
		}
	})
	return nil
}
