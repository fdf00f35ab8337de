//go:build !js

package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// start starts an engine for a test, skipping loudly when it is not installed (failing under CI=true).
func start(t *testing.T, engine string) Browser {
	t.Helper()
	return startWith(t, engine, Options{Logf: t.Logf})
}

// startWith is start with the options given.
func startWith(t *testing.T, engine string, o Options) Browser {
	t.Helper()
	if err := Installed(engine); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI=true: every engine must run in CI (.ci/run installs them)", err)
		}
		t.Skipf("SKIPPING %s: %v", engine, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := Start(ctx, engine, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// servePage serves testPage at every path until the test ends.
func servePage(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, testPage)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// testPage records the pointer events it gets on a canvas, with whether the browser marked them trusted (real
// input, not dispatched by script); ?n=K shows K in its title, so that a reload can be told from a new load.
const testPage = `<!doctype html><title>test</title><body style="margin:0">
<canvas id="c" width="300" height="200" style="position:absolute; left:40px; top:30px"></canvas>
<script>
window.loads = (Number(sessionStorage.getItem("loads")) || 0) + 1;
sessionStorage.setItem("loads", window.loads);
window.events = [];
const c = document.getElementById("c");
c.addEventListener("click", (e) => { window.clicks = (window.clicks || 0) + 1; });
for (const type of ["pointerdown", "pointermove", "pointerup"]) {
	c.addEventListener(type, (e) => window.events.push({type, x: e.offsetX, y: e.offsetY, trusted: e.isTrusted, buttons: e.buttons, kind: e.pointerType}));
}
</script>`

func TestEngines(t *testing.T) {
	srv := servePage(t)
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			b := start(t, engine)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			t.Logf("%s", b.Engine())
			if b.Engine() == "" || !strings.ContainsAny(b.Engine(), "0123456789") {
				t.Errorf("engine %q names no version", b.Engine())
			}
			if err := b.Navigate(ctx, srv.URL+"/page"); err != nil {
				t.Fatal(err)
			}

			// Values of every JSON kind, undefined as null, a promise awaited, an exception as an error.
			var v struct {
				N    float64
				S    string
				L    []int
				Null *int
				Und  *int
			}
			if err := b.Eval(ctx, `({n: 1.5, s: "é\n", l: [1, 2], null: null, und: undefined})`, &v); err != nil {
				t.Fatal(err)
			}
			if v.N != 1.5 || v.S != "é\n" || len(v.L) != 2 || v.Null != nil || v.Und != nil {
				t.Errorf("Eval gave %+v", v)
			}
			var n int
			if err := b.Eval(ctx, `undefined`, &n); err != nil || n != 0 {
				t.Errorf("undefined: %d, %v", n, err)
			}
			var s string
			if err := b.Await(ctx, `new Promise((ok) => setTimeout(() => ok("later"), 50))`, &s); err != nil || s != "later" {
				t.Errorf("Await gave %q, %v", s, err)
			}
			if err := b.Eval(ctx, `(() => { throw new Error("boom") })()`, nil); err == nil || !strings.Contains(err.Error(), "boom") {
				t.Errorf("a thrown exception gave %v", err)
			}
			if err := b.Await(ctx, `Promise.reject(new Error("no way"))`, nil); err == nil || !strings.Contains(err.Error(), "no way") {
				t.Errorf("a rejected promise gave %v", err)
			}
			big := ""
			if err := b.Eval(ctx, `"x".repeat(3 << 20)`, &big); err != nil || len(big) != 3<<20 {
				t.Errorf("a 3 MB string: %d bytes, %v", len(big), err)
			}

			// A stroke: real pointer events at the given viewport points (the canvas is at 40, 30).
			if err := b.Stroke(ctx, []Point{{60, 50}, {100, 80}, {150.4, 120.4}}); err != nil {
				t.Fatal(err)
			}
			type event struct {
				Type    string
				X, Y    float64
				Trusted bool
				Buttons int
				Kind    string
			}
			var events []event
			raw, err := WaitFor(ctx, b, `window.events.some((e) => e.type == "pointerup") && window.events`, 10*time.Second, 20*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if err := decode(string(raw), &events); err != nil {
				t.Fatal(err)
			}
			for len(events) > 0 && events[0].Type == "pointermove" { // the pointer moving to the stroke's start
				events = events[1:]
			}
			if len(events) < 4 || events[0].Type != "pointerdown" || events[len(events)-1].Type != "pointerup" {
				t.Fatalf("want pointerdown, moves, pointerup; got %+v", events)
			}
			for _, e := range events {
				if !e.Trusted || e.Kind != "mouse" {
					t.Errorf("event %+v is not a trusted mouse event", e)
				}
			}
			first, last := events[0], events[len(events)-1]
			if abs(first.X-20) > 1 || abs(first.Y-20) > 1 || abs(last.X-110) > 1 || abs(last.Y-90) > 1 {
				t.Errorf("the stroke went from (%v, %v) to (%v, %v) on the canvas, want (20, 20) to (110, 90)", first.X, first.Y, last.X, last.Y)
			}
			moves := 0
			for _, e := range events {
				if e.Type == "pointermove" && e.Buttons == 1 {
					moves++
				}
			}
			if moves < 2 {
				t.Errorf("%d moves with the button down, want 2", moves)
			}

			// A stroke of one point is a click.
			if err := b.Stroke(ctx, []Point{{200, 100}}); err != nil {
				t.Fatal(err)
			}
			if _, err := WaitFor(ctx, b, `window.clicks == 2`, 10*time.Second, 20*time.Millisecond); err != nil {
				t.Errorf("a one-point stroke made no click: %v", err)
			}

			// A reload is a new load of the same page.
			if err := b.Reload(ctx); err != nil {
				t.Fatal(err)
			}
			if err := b.Eval(ctx, `window.loads`, &n); err != nil || n != 2 {
				t.Errorf("after a reload the page counts %d loads (%v), want 2", n, err)
			}

			// A context that ends stops a wait.
			short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancelShort()
			if _, err := WaitFor(short, b, `false`, time.Minute, 0); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("waiting past the context's end: %v", err)
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestWebKitReplacesALostBrowser kills WebKitGTK's browser under a page, as a crash would: the driver forgets the
// session, the next call fails, says so in the log, and a new browser opens the page again, so that a wait on
// the page goes on in it. A second loss is not replaced: the calls fail.
func TestWebKitReplacesALostBrowser(t *testing.T) {
	srv := servePage(t)
	var logged []string
	b := startWith(t, WebKit, Options{Logf: func(format string, args ...any) {
		logged = append(logged, fmt.Sprintf(format, args...))
	}})
	w := b.(*webkit)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page := srv.URL + "/page?n=7"
	if err := b.Navigate(ctx, page); err != nil {
		t.Fatal(err)
	}
	if _, err := WaitFor(ctx, b, `window.loads == 1`, 30*time.Second, 0); err != nil {
		t.Fatal(err)
	}

	killBrowser(t, w)
	if _, err := WaitFor(ctx, b, `window.loads == 1 && location.href == `+jsonString(page), time.Minute, 50*time.Millisecond); err != nil {
		t.Fatalf("after the browser was killed the wait did not go on in a new one: %v (log: %q)", err, logged)
	}
	t.Logf("the log: %q", logged)
	if len(logged) != 1 || !strings.Contains(logged[0], "LOST ITS BROWSER") || !strings.Contains(logged[0], page) {
		t.Errorf("the log says %q, want one line that the browser was lost and the page opened again", logged)
	}

	killBrowser(t, w)
	var n int
	if err := b.Eval(ctx, `1`, &n); !errors.Is(err, errSessionLost) {
		t.Errorf("after a second loss an evaluation gave %v, want the lost session", err)
	}
	if _, err := WaitFor(ctx, b, `true`, 3*time.Second, 0); err == nil {
		t.Error("after a second loss a wait succeeded")
	}
}

// killBrowser kills the MiniBrowser processes the WebKit driver started, and waits until the driver has
// forgotten its session.
func killBrowser(t *testing.T, w *webkit) {
	t.Helper()
	driver := w.driver.cmd.Process.Pid
	entries, _ := os.ReadDir("/proc")
	killed := 0
	for _, e := range entries {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
		i := strings.LastIndexByte(string(stat), ')')
		var state byte
		var ppid, pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || i < 0 {
			continue
		}
		if _, err := fmt.Sscanf(string(stat[i+1:]), " %c %d", &state, &ppid); err != nil || ppid != driver {
			continue
		}
		if p, err := os.FindProcess(pid); err == nil && p.Kill() == nil {
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("found no browser process under the WebKit driver")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		var v int
		err := w.do(ctx, "POST", w.session()+"/execute/sync", map[string]any{"script": "return 1;", "args": []any{}}, &v)
		if errors.Is(err, errSessionLost) {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the driver still answers for its session after the browser was killed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
