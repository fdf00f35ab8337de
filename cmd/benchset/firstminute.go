//go:build !js

package main

// The first minute (issue 15): what a visitor meets before the page is warm, in Chromium with 2 workers, each
// run in a fresh browser context (a new profile: cold HTTP cache, no service worker, no storage):
//
//   - the default share link of the test digit opened cold → the finished set on screen, with its phases on the
//     page's clock (window.deltaclue.timing: mounted, loaded, checked, ready, and whatever other keys it
//     publishes; the first result; the set done; the frame after it, "on screen"), all in ms since
//     navigation; then the same search clicked again (Explain) in that page, and then a second visit: the
//     same link opened again in the same profile (warm HTTP cache and service worker);
//   - a Fashion link (the page's default search of the garment its classifier is least sure of, ?models=fashion)
//     opened cold → its set on screen, and clicked again: issue 30's second domain, beside the digits' link;
//   - the no-early-stop set's link (n = 100 × 100 steps) opened cold, and clicked again;
//   - the same set on a row, a credit link (?models=credit, the applicant the model is least sure of), opened
//     cold and clicked again: issue 41's page target; and on a regression's, a concrete link (issue 42's);
//   - a cold load without a link: a test digit picked from the gallery, Explain pressed, and pressed again;
//   - a phone: the CPU throttled 4× (Emulation.setCPUThrottlingRate) at 390×844, the default link opened cold;
//   - the live preview: strokes drawn with the mouse on a page without a link, pen-up → the preview on screen.
//
// The times since navigation come from a hook installed before the page's scripts run (benchHook): it sees
// every publication of window.deltaclue and notes, per run, when its first result and its finished set were
// published and when the next frame began, on the page's clock (performance.now). Fields the page does not
// publish (an older build's) are left blank.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The first minute's configurations (FirstSample.Config).
const (
	fLink     = "default link"       // cold open, clicked again, second visit
	fFashion  = "Fashion link"       // cold open, clicked again
	fNoStop   = "no-early-stop link" // cold open, clicked again
	fCredit   = "credit link"        // cold open, clicked again: 100 × 100 steps on a row (issue 41)
	fConcrete = "concrete link"      // the same on a regression's row (issue 42)
	fExplain  = "cold load, Explain" // a test digit from the gallery, Explain, again
	fPhone    = "phone, default link"
	fPreview  = "live preview"
)

// firstConfigs is the order a round runs them in.
var firstConfigs = []string{fLink, fFashion, fNoStop, fCredit, fConcrete, fExplain, fPhone, fPreview}

// FirstSample is one fresh browser context's run of a first-minute configuration.
type FirstSample struct {
	Config string `json:"config"`
	Build  string `json:"build,omitempty"`
	Engine string `json:"engine,omitempty"` // the engine rows' browser; "" for the Chromium rows
	Run    int    `json:"run"`
	// Cold is the first search of the page: the link's own run, or the first Explain.
	Cold *Visit `json:"cold,omitempty"`
	// AgainMs is the same search clicked again in the same page (the page's elapsedMs).
	AgainMs float64 `json:"againMs,omitempty"`
	// WarmMs are a row link's searches clicked warmSearches more times after that, in order.
	WarmMs []float64 `json:"warmMs,omitempty"`
	// Second is the same link opened again in the same profile.
	Second *Visit `json:"second,omitempty"`
	// The live preview, per stroke in drawing order: pen-up → the preview on screen (the hook's clock) and
	// the page's own previewMs (pen-up → its set done); NaN-free, a superseded preview left out.
	PenUpToShownMs []float64 `json:"penUpToShownMs,omitempty"`
	PreviewMs      []float64 `json:"previewMs,omitempty"`
	// GLAM-CLUE's amortised answers, per stroke: pen-up → in the page (the page's amortised.shown), pen-up → the
	// frame after (the hook's clock: the frame that shows them), and the worker's time making them.
	AmortisedInPageMs []float64 `json:"amortisedInPageMs,omitempty"`
	AmortisedFrameMs  []float64 `json:"amortisedFrameMs,omitempty"`
	AmortisedWorkerMs []float64 `json:"amortisedWorkerMs,omitempty"`
	Error             string    `json:"error,omitempty"`
}

// Visit is one page load's search, read from the page: its phases in ms since navigation, and the search's
// own clock.
type Visit struct {
	// Phases: every key of window.deltaclue.timing, and "search started", "first result", "set done" and
	// "on screen" from the hook.
	Phases        map[string]float64 `json:"phases"`
	ElapsedMs     float64            `json:"elapsedMs"`     // the search's start → the finished set
	FirstResultMs float64            `json:"firstResultMs"` // the search's start → its first result
	RunID         float64            `json:"runID"`
	// Polled says the hook was not in place when the set finished, so "set done" is when it was seen.
	Polled bool `json:"polled,omitempty"`
}

// The phases the hook adds to the page's timing, in the order they happen.
const (
	phStarted = "search started"
	phFirst   = "first result"
	phDone    = "set done"
	phShown   = "on screen"
)

// knownPhases are the page's timing keys in the order they happen; other keys go after them, sorted, and the
// hook's last.
var knownPhases = []string{"mounted", "loaded", "checked", "ready"}

// phaseOrder is the order the table lists phases in: the page's known keys, its other keys sorted, then the
// hook's, each once.
func phaseOrder(keys []string) []string {
	hook := []string{phStarted, phFirst, phDone, phShown}
	var known, other, hooked []string
	seen := map[string]bool{}
	for _, k := range keys {
		seen[k] = true
	}
	for _, k := range knownPhases {
		if seen[k] {
			known = append(known, k)
		}
	}
	for _, k := range hook {
		if seen[k] {
			hooked = append(hooked, k)
		}
	}
	for k := range seen {
		if !slices.Contains(knownPhases, k) && !slices.Contains(hook, k) {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	return slices.Concat(known, other, hooked)
}

// benchHook is installed in every document before its scripts run (or right after navigation where that is
// not possible, "late"): it wraps window.deltaclue in a setter that notes, per run, when the page first
// published a result and a finished set, and when the next frame began; notes every pen-up; and notes each new
// set of amortised answers the page shows (its amortised.shown), with the frame after it.
const benchHook = `(() => {
	if (window.__benchset) return true;
	const b = window.__benchset = {runs: {}, penUp: 0, late: window.deltaclue !== undefined, amortised: [], amShown: 0};
	let v = window.deltaclue;
	const see = (d) => {
		if (!d || typeof d != "object") return;
		const t = performance.now();
		const r = b.runs[d.runID] || (b.runs[d.runID] = {preview: !!d.preview, penUp: b.penUp});
		if (d.results > 0 && !r.first) r.first = t;
		if (d.state == "done" && !r.done) { r.done = t; requestAnimationFrame(() => { r.shown = performance.now(); }); }
		const a = d.amortised;
		if (a && a.shown > 0 && a.shown != b.amShown) {
			b.amShown = a.shown;
			const e = {penUp: b.penUp, inPage: a.shown, ms: a.ms};
			requestAnimationFrame(() => { e.frame = performance.now(); b.amortised.push(e); });
		}
	};
	Object.defineProperty(window, "deltaclue", {configurable: true, enumerable: true, get() { return v; }, set(x) { v = x; see(x); }});
	addEventListener("pointerup", () => { b.penUp = performance.now(); }, true);
	see(v);
	return true;
})()`

// visitDone is the page's state once a search (not a preview) with an ID other than after has ended, as JSON
// (false before); with the hook's notes for that run, once the frame after it has begun (or 1 s has passed).
func visitDone(after float64) string {
	return fmt.Sprintf(`(() => {
		const d = window.deltaclue, b = window.__benchset || {runs: {}, missing: true};
		if (!d || d.preview || d.runID == %v || !(d.state == "done" || d.state == "failed" || d.state == "cancelled" || d.linkError || d.poolError)) return false;
		const r = b.runs[d.runID] || {}, now = performance.now();
		if (d.state == "done" && r.done && !r.shown && now - r.done < 1000) return false;
		let evaluations = -1;
		try { evaluations = JSON.parse(d.report).explanations.reduce((a, e) => a + e.steps + 1, 0); } catch (e) {}
		return JSON.stringify({state: d.state, runID: d.runID, results: d.results, total: d.total, workers: d.workers,
			elapsedMs: d.elapsedMs, firstResultMs: d.firstResultMs, timing: d.timing || {}, first: r.first, done: r.done,
			shown: r.shown, now, hook: !b.missing, evaluations, errors: [d.linkError, d.poolError, d.runError].filter(Boolean).join("; ")});
	})()`, after)
}

// visitState is what visitDone returns.
type visitState struct {
	State         string         `json:"state"`
	RunID         float64        `json:"runID"`
	Results       int            `json:"results"`
	Total         int            `json:"total"`
	Workers       int            `json:"workers"`
	ElapsedMs     float64        `json:"elapsedMs"`
	FirstResultMs float64        `json:"firstResultMs"`
	Timing        map[string]any `json:"timing"`
	First         float64        `json:"first"`
	Done          float64        `json:"done"`
	Shown         float64        `json:"shown"`
	Now           float64        `json:"now"`
	Hook          bool           `json:"hook"`
	Evaluations   int            `json:"evaluations"`
	Errors        string         `json:"errors"`
}

// visit turns the page's state into a Visit, checking that the search finished whole: a problem is an error.
func (st visitState) visit(workers, total, evaluations int) (*Visit, error) {
	if st.State != "done" {
		return nil, fmt.Errorf("the page ended in state %q (%s)", st.State, st.Errors)
	}
	var problems []string
	if st.Workers != workers {
		problems = append(problems, fmt.Sprintf("the page ran %d workers, not %d", st.Workers, workers))
	}
	if st.Results != st.Total || (total > 0 && st.Total != total) {
		problems = append(problems, fmt.Sprintf("%d results of %d", st.Results, st.Total))
	}
	if evaluations > 0 && st.Evaluations != evaluations {
		problems = append(problems, fmt.Sprintf("the page's set made %d objective evaluations, the native one %d", st.Evaluations, evaluations))
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	v := &Visit{Phases: timingPhases(st.Timing), ElapsedMs: st.ElapsedMs, FirstResultMs: st.FirstResultMs, RunID: st.RunID}
	done := st.Done
	if done == 0 { // the hook missed it: when it was seen, an upper bound
		done, v.Polled = st.Now, true
	}
	v.Phases[phDone] = done
	v.Phases[phStarted] = done - st.ElapsedMs
	if st.First > 0 {
		v.Phases[phFirst] = st.First
	} else if st.FirstResultMs > 0 {
		v.Phases[phFirst] = done - st.ElapsedMs + st.FirstResultMs
	}
	if st.Shown > 0 {
		v.Phases[phShown] = st.Shown
	}
	return v, nil
}

// timingPhases reads window.deltaclue.timing defensively: every key with a positive number, the rest left out.
func timingPhases(t map[string]any) map[string]float64 {
	out := map[string]float64{}
	for k, v := range t {
		if f, ok := v.(float64); ok && f > 0 && !math.IsInf(f, 0) {
			out[k] = f
		}
	}
	return out
}

// onScreen is a visit's navigation → the finished set on screen: the frame after it, else its publication.
func (v *Visit) onScreen() float64 {
	if v == nil {
		return math.NaN()
	}
	if t, ok := v.Phases[phShown]; ok {
		return t
	}
	return v.Phases[phDone]
}

// firstRun is one first-minute run's setting: the build and its links, and where it reports.
type firstRun struct {
	b            *build
	linkDefault  string // the default search's share link (fragment)
	linkNoStop   string // the no-early-stop set's
	linkFashion  string // the Fashion link's fragment, "" when the build has no Fashion models (or not this tree's)
	linkCredit   string // the credit set's (rowLink), "" likewise
	linkConcrete string // the concrete set's (rowLink), "" likewise
	digit        int
	nav          *int
	timeout      time.Duration
}

// url is a page of the build with 2 workers, opened with a link fragment (or none); run makes it new.
func (f firstRun) url(link string) string { return f.urlOf("", link) }

// urlOf is url for the models named (?models=, as the page's share links carry it; "" for the site's default).
func (f firstRun) urlOf(models, link string) string {
	*f.nav++
	u := fmt.Sprintf("%s/repo/?workers=2&run=%d", f.b.url, *f.nav)
	if models != "" {
		u = fmt.Sprintf("%s/repo/?models=%s&workers=2&run=%d", f.b.url, models, *f.nav)
	}
	if link != "" {
		u += "#" + link
	}
	return u
}

// freshContext opens a tab in a new browser context (a new profile) of the browser in bctx, with the hook
// installed for every document it loads.
func freshContext(bctx context.Context) (context.Context, context.CancelFunc, error) {
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	err := chromedp.Do(ctx, chromedp.Navigate("about:blank"))
	if err == nil {
		_, err = chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: benchHook})
	}
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return ctx, cancel, nil
}

// readVisit waits for the search after run `after` to end and reads it.
func readVisit(ctx context.Context, after float64, timeout time.Duration, workers, total, evaluations int) (*Visit, error) {
	text, err := chromedp.Run(ctx, chromedp.Poll[string](visitDone(after),
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		if errors.Is(err, chromedp.ErrPollingTimeout) {
			err = fmt.Errorf("no finished set after %v (page state %s)", timeout, pageDump(ctx))
		}
		return nil, err
	}
	var st visitState
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		return nil, fmt.Errorf("reading window.deltaclue: %w", err)
	}
	return st.visit(workers, total, evaluations)
}

// again presses Explain in the page and returns the rerun's elapsedMs.
func again(ctx context.Context, after float64, timeout time.Duration, total, evaluations int) (float64, error) {
	v, err := againVisit(ctx, after, timeout, total, evaluations)
	if err != nil {
		return 0, err
	}
	return v.ElapsedMs, nil
}

// warmSearches is how many more times a row link's search is clicked after again (FirstSample.WarmMs): the
// browser compiles a worker's hot code better over the first few searches, and "warm" is after that.
const warmSearches = 8

// againVisit is again's finished run.
func againVisit(ctx context.Context, after float64, timeout time.Duration, total, evaluations int) (*Visit, error) {
	// The moment the button is enabled again (the page publishes a finished set before it renders).
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById("run").disabled`,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(5*time.Millisecond))); err != nil {
		return nil, fmt.Errorf("waiting for Explain: %w", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.getElementById("run").click(), true)`)); err != nil {
		return nil, fmt.Errorf("pressing Explain: %w", err)
	}
	v, err := readVisit(ctx, after, timeout, 2, total, evaluations)
	if err != nil {
		return nil, fmt.Errorf("clicked again: %w", err)
	}
	return v, nil
}

// runFirst runs one first-minute configuration in a fresh browser context of the browser in bctx.
func runFirst(bctx context.Context, f firstRun, s *FirstSample) {
	ctx, cancel, err := freshContext(bctx)
	if err != nil {
		s.Error = "a fresh browser context: " + err.Error()
		return
	}
	defer cancel()
	if err := firstIn(ctx, f, s); err != nil {
		s.Error = err.Error()
	}
}

func firstIn(ctx context.Context, f firstRun, s *FirstSample) error {
	nav := func(url string) error {
		if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
			return fmt.Errorf("opening %s: %w", url, err)
		}
		return nil
	}
	var err error
	switch s.Config {
	case fLink:
		url := f.url(f.linkDefault)
		if err := nav(url); err != nil {
			return err
		}
		if s.Cold, err = readVisit(ctx, -1, f.timeout, 2, 0, 0); err != nil {
			return err
		}
		if s.AgainMs, err = again(ctx, s.Cold.RunID, f.timeout, 0, 0); err != nil {
			return err
		}
		// The second visit, once the service worker is active (a visitor comes back later than this).
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`navigator.serviceWorker.ready.then(() => new Promise(r => setTimeout(() => r(true), 500)))`,
			chromedp.EvalAwaitPromise)); err != nil {
			return fmt.Errorf("waiting for the service worker: %w", err)
		}
		if err := nav("about:blank"); err != nil {
			return err
		}
		if err := nav(url); err != nil {
			return err
		}
		if s.Second, err = readVisit(ctx, -1, f.timeout, 2, 0, 0); err != nil {
			return fmt.Errorf("the second visit: %w", err)
		}
	case fFashion:
		if err := nav(f.urlOf("fashion", f.linkFashion)); err != nil {
			return err
		}
		if s.Cold, err = readVisit(ctx, -1, f.timeout, 2, 0, 0); err != nil {
			return err
		}
		if s.AgainMs, err = again(ctx, s.Cold.RunID, f.timeout, 0, 0); err != nil {
			return err
		}
	case fCredit, fConcrete:
		models, link := "credit", f.linkCredit
		if s.Config == fConcrete {
			models, link = "concrete", f.linkConcrete
		}
		if err := nav(f.urlOf(models, link)); err != nil {
			return err
		}
		if s.Cold, err = readVisit(ctx, -1, f.timeout, 2, setN, 0); err != nil {
			return err
		}
		v, err := againVisit(ctx, s.Cold.RunID, f.timeout, setN, 0)
		if err != nil {
			return err
		}
		s.AgainMs = v.ElapsedMs
		for range warmSearches {
			if v, err = againVisit(ctx, v.RunID, f.timeout, setN, 0); err != nil {
				return fmt.Errorf("searching again (warm): %w", err)
			}
			s.WarmMs = append(s.WarmMs, v.ElapsedMs)
		}
	case fNoStop:
		if err := nav(f.url(f.linkNoStop)); err != nil {
			return err
		}
		if s.Cold, err = readVisit(ctx, -1, f.timeout, 2, setN, f.b.Evaluations); err != nil {
			return err
		}
		if s.AgainMs, err = again(ctx, s.Cold.RunID, f.timeout, setN, f.b.Evaluations); err != nil {
			return err
		}
	case fPhone:
		_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 390, Height: 844, DeviceScaleFactor: 3, Mobile: true})
		if err == nil {
			_, err = chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 4})
		}
		if err != nil {
			return fmt.Errorf("emulating a phone: %w", err)
		}
		if err := nav(f.url(f.linkDefault)); err != nil {
			return err
		}
		if s.Cold, err = readVisit(ctx, -1, 4*f.timeout, 2, 0, 0); err != nil {
			return err
		}
	case fExplain:
		if err := nav(f.url("")); err != nil {
			return err
		}
		if err := pickFromGallery(ctx, f.digit, f.timeout); err != nil {
			return err
		}
		before, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(window.deltaclue.runID || 0)`))
		if err != nil {
			return err
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.getElementById("run").click(), true)`)); err != nil {
			return fmt.Errorf("pressing Explain: %w", err)
		}
		if s.Cold, err = readVisit(ctx, before, f.timeout, 2, 0, 0); err != nil {
			return err
		}
		if s.AgainMs, err = again(ctx, s.Cold.RunID, f.timeout, 0, 0); err != nil {
			return err
		}
	case fPreview:
		if err := nav(f.url("")); err != nil {
			return err
		}
		return previews(ctx, s, f.timeout)
	default:
		return fmt.Errorf("unknown configuration %q", s.Config)
	}
	return nil
}

// pickFromGallery waits for the page's workers, opens the gallery and picks a digit, and waits until the page
// has taken it as its input (its link changed) and Explain is enabled.
func pickFromGallery(ctx context.Context, digit int, timeout time.Duration) error {
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!(window.deltaclue && window.deltaclue.ready == 2 && document.getElementById("tab-gallery"))`,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		return fmt.Errorf("the workers did not get ready: %w (page state %s)", err, pageDump(ctx))
	}
	// The gallery's thumbnails are drawn once its tab opens (its data fetched then).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.getElementById("tab-gallery").click(), true)`)); err != nil {
		return fmt.Errorf("opening the gallery: %w", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('button img[alt^="test "]')`,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		return fmt.Errorf("the gallery did not show its items: %w (page state %s)", err, pageDump(ctx))
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[string](pickDigit(digit)))
	switch {
	case err != nil:
		return fmt.Errorf("picking the test digit: %w", err)
	case found == "":
		return fmt.Errorf("digit %d is not in this build's gallery", digit)
	}
	ready := fmt.Sprintf(`(() => { const r = document.getElementById("run"); return !!r && !r.disabled && location.hash.length > 4 && location.hash != %q; })()`, found)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](ready, chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		return fmt.Errorf("the page did not take the test digit: %w", err)
	}
	return nil
}

// previewStrokes draw a 4 (two strokes, as app/browser_live_test.go does) and then small marks, each lifted
// pen starting a preview, in pad coordinates (the pad is 280 px).
var previewStrokes = [][][2]float64{
	{{95, 50}, {85, 90}, {78, 130}, {90, 150}, {150, 150}, {190, 148}},
	{{180, 45}, {182, 110}, {184, 170}, {186, 240}},
	{{95, 52}, {136, 48}},
	{{140, 48}, {160, 46}},
	{{100, 200}, {104, 204}},
	{{60, 60}, {64, 64}},
}

// previews draws each stroke with the mouse on a page without a link, waits for its preview, and notes
// pen-up → preview on screen.
func previews(ctx context.Context, s *FirstSample, timeout time.Duration) error {
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!(window.deltaclue && window.deltaclue.ready == 2 && document.getElementById("pad"))`,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		return fmt.Errorf("the workers did not get ready: %w (page state %s)", err, pageDump(ctx))
	}
	for i, st := range previewStrokes {
		type rect struct{ X, Y, S float64 } // the pad's corner in the viewport, and CSS px per pad px
		r, err := chromedp.Run(ctx, chromedp.Evaluate[rect](`(() => { const p = document.getElementById("pad"); p.scrollIntoView({block: "center"});
			const b = p.getBoundingClientRect(); return {X: b.x, Y: b.y, S: b.width / 280}; })()`))
		if err != nil {
			return err
		}
		before, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(window.deltaclue.runID || 0)`))
		if err != nil {
			return err
		}
		var acts []chromedp.Action[chromedp.Void]
		at := func(p [2]float64) (float64, float64) { return r.X + p[0]*r.S, r.Y + p[1]*r.S }
		x, y := at(st[0])
		acts = append(acts, chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft))
		for _, p := range st[1:] {
			x, y = at(p)
			acts = append(acts, chromedp.MouseEvent(chromedp.MouseMoved, x, y, chromedp.ButtonLeft))
		}
		acts = append(acts, chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonLeft))
		if err := chromedp.Do(ctx, acts...); err != nil {
			return fmt.Errorf("stroke %d: %w", i+1, err)
		}
		got, err := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(`(() => {
			const d = window.deltaclue, b = window.__benchset;
			if (!d || !d.preview || d.runID <= %v || d.state != "done") return false;
			const r = b.runs[d.runID];
			if (!r || !r.shown) return false;
			return JSON.stringify({shown: r.shown - r.penUp, page: d.previewMs, results: d.results});
		})()`, before), chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(20*time.Millisecond)))
		if err != nil {
			return fmt.Errorf("stroke %d: no preview: %w (page state %s)", i+1, err, pageDump(ctx))
		}
		var p struct {
			Shown, Page float64
			Results     int
		}
		if err := json.Unmarshal([]byte(got), &p); err != nil {
			return err
		}
		s.PenUpToShownMs = append(s.PenUpToShownMs, p.Shown)
		s.PreviewMs = append(s.PreviewMs, p.Page)
		// The stroke's amortised answers came before its preview (a build without them has none).
		type answers struct{ InPage, Frame, Ms float64 }
		a, err := chromedp.Run(ctx, chromedp.Evaluate[answers](`(() => { const b = window.__benchset, e = b.amortised.filter((e) => e.penUp == b.penUp)[0];
			return e ? {inPage: e.inPage - e.penUp, frame: e.frame - e.penUp, ms: e.ms} : {}; })()`))
		if err != nil {
			return err
		}
		if a.Frame > 0 {
			s.AmortisedInPageMs = append(s.AmortisedInPageMs, a.InPage)
			s.AmortisedFrameMs = append(s.AmortisedFrameMs, a.Frame)
			s.AmortisedWorkerMs = append(s.AmortisedWorkerMs, a.Ms)
		}
	}
	return nil
}

// firstRound runs every first-minute configuration once per build, interleaved (configuration by
// configuration, the builds in the given order), each in a fresh browser context.
func firstRound(ctx, bctx context.Context, rep *Report, order []*build, runs map[*build]firstRun, round int) error {
	for _, cfg := range firstConfigs {
		for _, b := range order {
			if err := ctx.Err(); err != nil {
				return err
			}
			f, ok := runs[b]
			if !ok || b.url == "" || cfg == fFashion && f.linkFashion == "" || cfg == fCredit && f.linkCredit == "" || cfg == fConcrete && f.linkConcrete == "" {
				continue
			}
			s := FirstSample{Config: cfg, Build: b.Name, Run: round}
			runFirst(bctx, f, &s)
			rep.First = append(rep.First, s)
			logf("  %s", s.line())
		}
	}
	return nil
}

// line is a sample's progress line.
func (s FirstSample) line() string {
	who := s.Build
	if s.Engine != "" {
		who = s.Engine
	}
	head := fmt.Sprintf("%-22s %-22s", s.Config, who)
	if s.Error != "" {
		return head + " FAILED: " + s.Error
	}
	var parts []string
	if s.Cold != nil {
		parts = append(parts, fmt.Sprintf("on screen %.0f ms after navigation (ready %s), search %.0f ms", s.Cold.onScreen(), blankOr(s.Cold.Phases["ready"]), s.Cold.ElapsedMs))
	}
	if s.AgainMs > 0 {
		parts = append(parts, fmt.Sprintf("again %.0f ms", s.AgainMs))
	}
	if s.Second != nil {
		parts = append(parts, fmt.Sprintf("second visit on screen %.0f ms", s.Second.onScreen()))
	}
	if len(s.PenUpToShownMs) > 0 {
		parts = append(parts, fmt.Sprintf("pen-up → preview on screen %s ms (page's previewMs %s)", joinMs(s.PenUpToShownMs), joinMs(s.PreviewMs)))
	}
	if len(s.AmortisedFrameMs) > 0 {
		parts = append(parts, fmt.Sprintf("pen-up → amortised answers in the page %s ms, their frame %s ms (worker %s ms)",
			joinMs(s.AmortisedInPageMs), joinMs(s.AmortisedFrameMs), joinMs(s.AmortisedWorkerMs)))
	}
	return head + " " + strings.Join(parts, ", ")
}

func blankOr(v float64) string {
	if v == 0 || math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.0f", v)
}

func joinMs(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(s, " ")
}
