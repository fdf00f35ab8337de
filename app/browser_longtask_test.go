//go:build !js

package app

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// longTasks installs a PerformanceObserver for the main thread's long tasks (over 50 ms, the browser's own
// definition) that counts only while window.__lt.on is set, so that a test decides what "during" means.
const longTasks = `(() => {
	window.__lt = {on: false, tasks: []};
	new PerformanceObserver(list => {
		if (!window.__lt.on) return;
		for (const e of list.getEntries()) window.__lt.tasks.push(Math.round(e.duration));
	}).observe({type: "longtask", buffered: false});
	return true;
})()`

// taskReport is what the observer saw.
type taskReport struct {
	Tasks []float64
}

func (r taskReport) longest() float64 {
	m := 0.0
	for _, d := range r.Tasks {
		m = max(m, d)
	}
	return m
}

// TestBrowserMainThread: a 1000-restart search (20 steps a restart, so that it stays a few seconds) never blocks
// the page's main thread for longer than the limit, from the opening of the link until the finished set is on
// the page;
// and the finished set equals the native engine's bit for bit. The page's load (compiling app.wasm, the
// workers' start) is not a search and is not counted: the observer starts once every worker is ready.
// The goal (issue 14) is 50 ms, which the page does not reach yet: its longest task went from 1.7–3.2 s to
// 0.66–0.72 s at load 6–9 (the grid's redraw and the figures' SVG are what is left), so the default limit,
// 1500 ms, guards what was won and the log says how far from 50 ms it is. LONGTASK_LIMIT (ms) sets the limit; LONGTASK_N changes the restarts; LONGTASK_NOSUMMARY=1 keeps the page from
// starting its summary worker (the page then summarises on its main thread, as before it had one), to measure
// what the worker saves in the same build.
func TestBrowserMainThread(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	limit := 1500.0
	if v, err := strconv.ParseFloat(os.Getenv("LONGTASK_LIMIT"), 64); err == nil && v > 0 {
		limit = v
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("LONGTASK_N")); err == nil && v > 0 {
		n = v
	}
	p := clue.Defaults()
	p.N, p.MaxSteps = n, 20
	link := linkFor(t, 1735, p)
	ctx := browser(t, chrome)
	if os.Getenv("LONGTASK_NOSUMMARY") != "" {
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `const W = window.Worker; window.Worker = function(u, o) {
				if (o && o.name == "summary") return {postMessage() {}, addEventListener() {}, terminate() {}};
				return new W(u, o); };`}); err != nil {
			t.Fatal(err)
		}
	}
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2"))
	waitFor(t, ctx, "the workers", `window.deltaclue && window.deltaclue.ready == 2`, time.Minute)
	eval[bool](t, ctx, longTasks)
	// The link is opened in the running page, as a pasted link is: its set is the search measured.
	eval[bool](t, ctx, `(window.__lt.on = true, location.hash = `+strconv.Quote(link)+`, true)`)
	start := time.Now()
	state := waitFor(t, ctx, "the set", `(window.deltaclue.state == "done" && window.deltaclue.results == `+strconv.Itoa(n)+`
		|| window.deltaclue.state == "failed") && window.deltaclue.state`, 3*time.Minute)
	if state != `"done"` {
		// A step of 500 restarts that takes a worker longer than the page's 3 s watchdog (WorkerSilence) on a
		// machine shared with other heavy work gets the worker replaced, three times and the run stops: then
		// there is no search to measure. CI has the machine to itself.
		load, _ := os.ReadFile("/proc/loadavg")
		msg := fmt.Sprintf("the search could not finish on this machine (load average %s): %s", strings.TrimSpace(string(load)),
			eval[string](t, ctx, `window.deltaclue.runError`))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPING the main-thread measurement: " + msg)
	}
	// The finished set's render and figures come in the next frames: let them land before the count stops.
	waitFor(t, ctx, "the final figures", `document.querySelector("#tradeoff svg") && document.querySelector("#latent-map svg")`, 10*time.Second)
	time.Sleep(500 * time.Millisecond)
	var r taskReport
	if err := json.Unmarshal([]byte(eval[string](t, ctx, `(window.__lt.on = false, JSON.stringify({Tasks: window.__lt.tasks}))`)), &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d restarts in %s (page: %d ms): %d main-thread tasks over 50 ms, the longest %.0f ms; all: %v",
		n, time.Since(start).Round(time.Millisecond), eval[int](t, ctx, `window.deltaclue.elapsedMs`), len(r.Tasks), r.longest(), r.Tasks)
	if steps := eval[string](t, ctx, `JSON.stringify(window.deltaclue.slowest || {})`); steps != "{}" {
		t.Logf("the page's slowest steps (ms): %s", steps)
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average: %s", load[:len(load)-1])
	}
	over := 0
	for _, d := range r.Tasks {
		if d > limit {
			over++
		}
	}
	exps, sum := nativeReport(t, link)
	rep := pageReport(t, ctx)
	sameJSON(t, "the 1000-restart set's explanations", rep.Explanations, exps)
	sameJSON(t, "the 1000-restart set's summary", rep.Summary, sum)
	if over == 0 {
		return
	}
	msg := fmt.Sprintf("%d main-thread tasks took longer than %.0f ms during the search, the longest %.0f ms", over, limit, r.longest())
	// On a machine shared with other heavy work (load average over twice the cores) a task's duration says more
	// about the machine than about the page: measured and said, not judged. CI, or a set LONGTASK_LIMIT, judges.
	if load1 := loadAverage(); os.Getenv("CI") != "true" && os.Getenv("LONGTASK_LIMIT") == "" && load1 > 2*float64(runtime.NumCPU()) {
		t.Skipf("SKIPPING the verdict: the machine is loaded (load average %.1f on %d cores): %s", load1, runtime.NumCPU(), msg)
	}
	t.Error(msg)
}

// loadAverage is the machine's load average over the last minute (0 where /proc/loadavg is missing).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
