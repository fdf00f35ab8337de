//go:build !js

package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// litPixels counts the pad's pixels with ink.
const litPixels = `(() => { const d = document.getElementById("pad").getContext("2d").getImageData(0, 0, 280, 280).data;
	let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] > 128) n++; return n; })()`

// TestBrowserCostlyLink: a link asking for n = 1000, δ = 20, 10000 steps shows its digit and parameters and
// asks first, with an estimate measured on this device; nothing runs before the choice. Run it, then Cancel:
// the defaults are offered back, and a new drawing explains at once. Use the defaults runs the link's digit
// with the default parameters.
func TestBrowserCostlyLink(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	huge := clue.Defaults()
	huge.N, huge.Delta, huge.MaxSteps = 1000, 20, 10000
	link := linkFor(t, 1735, huge)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+link))
	text := waitText(t, ctx, "costly-text", time.Minute)
	if !strings.HasPrefix(text, "This link asks for a search about 1000× larger than the default") {
		t.Errorf("the question: %q", text)
	}
	est := waitFor(t, ctx, "the estimate", `window.deltaclue.costly && window.deltaclue.costly.estimateSeconds`, 30*time.Second)
	// The estimate is published before the question is re-rendered with it: wait for the render.
	text = waitText(t, ctx, "costly-text", time.Second)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById("costly-text").textContent.includes("measuring")`, chromedp.WithPollingTimeout(5*time.Second))); err == nil {
		text = waitText(t, ctx, "costly-text", time.Second)
	}
	t.Logf("the page asks: %s (estimate %s s; per restart-step %v s)", text, est, eval[float64](t, ctx, `window.deltaclue.costly.perStepSeconds`))
	if !strings.Contains(text, "on this device.") || strings.Contains(text, "measuring") {
		t.Errorf("the question with its estimate: %q", text)
	}
	if hint := eval[string](t, ctx, `document.querySelector("#costly .hint").textContent`); !strings.Contains(hint, "n = 1000 restarts, δ = 20, at most 10000 steps each") {
		t.Errorf("the parameters shown: %q", hint)
	}
	time.Sleep(time.Second)
	if st := eval[map[string]any](t, ctx, `({state: window.deltaclue.state, results: window.deltaclue.results, runID: window.deltaclue.runID})`); st["state"] != "" || st["results"] != float64(0) {
		t.Errorf("something ran before the choice: %v", st)
	}
	if n := eval[int](t, ctx, litPixels); n < 1500 {
		t.Errorf("the link's digit is not on the pad: %d lit pixels", n)
	}
	screenshots(t, ctx, "deltaclue-costly")

	// Run it, then cancel: the page is usable with new input at once.
	do(t, ctx, chromedp.Click(chromedp.ID("costly-run")))
	waitFor(t, ctx, "the huge run", `window.deltaclue.state == "running" && !window.deltaclue.costly`, 10*time.Second)
	time.Sleep(time.Second)
	do(t, ctx, chromedp.Click(chromedp.ID("cancel")))
	waitFor(t, ctx, "the cancel", `window.deltaclue.state == "cancelled"`, 5*time.Second)
	after := waitText(t, ctx, "costly-after", 5*time.Second)
	if !strings.Contains(after, "about 1000× larger than the default") {
		t.Errorf("after the cancel: %q", after)
	}
	do(t, ctx, chromedp.Click(chromedp.ID("use-defaults")))
	// The form is re-rendered after the click's handler: wait for it, then say what it holds.
	form := `document.getElementById("p-n").value + " " + document.getElementById("p-max_steps").value + " " + document.getElementById("p-delta").value`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](form+` == "100 100 2"`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("after Use the defaults the form holds n, max steps, δ = %s", eval[string](t, ctx, form))
	}
	do(t, ctx, chromedp.Click(chromedp.ID("clear")))
	waitFor(t, ctx, "an empty pad", `window.deltaclue.state == "" && location.hash == ""`, 5*time.Second)
	drawFour(t, ctx)
	waitFor(t, ctx, "the workers back", `window.deltaclue.ready == 2 && document.getElementById("pred-label")`, time.Minute)
	clicked := time.Now()
	waitFor(t, ctx, "Explain enabled", `!document.getElementById("run").disabled`, 10*time.Second)
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	waitFor(t, ctx, "a new drawing's set", `!window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.results == 100`, time.Minute)
	t.Logf("after cancelling the huge run: a new drawing's 100 explanations in %s", time.Since(clicked).Round(time.Millisecond))

	// Use the defaults, straight from the question.
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2&again=1#"+link))
	waitText(t, ctx, "costly-text", time.Minute)
	do(t, ctx, chromedp.Click(chromedp.ID("costly-defaults")))
	waitFor(t, ctx, "the link's digit with the defaults", `window.deltaclue.state == "done" && window.deltaclue.results == 100`, time.Minute)
	rep := pageReport(t, ctx)
	if rep.Params != clue.Defaults() || rep.Input != "the shared link" {
		t.Errorf("Use the defaults ran %+v on %q", rep.Params, rep.Input)
	}
	_, s := nativeProblem(t, link)
	exps, _ := nativeReport(t, linkFor(t, 1735, clue.Defaults()))
	sameJSON(t, "the link's digit with the default parameters", rep.Explanations, exps)
	_ = s

	// A link ten times the default's work runs without asking.
	ten := clue.Defaults()
	ten.N = 1000
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2&ten=1#"+linkFor(t, 1735, ten)))
	waitFor(t, ctx, "a 10× link running at once", `window.deltaclue && window.deltaclue.state == "running"`, time.Minute)
	if eval[bool](t, ctx, `!!document.getElementById("costly")`) {
		t.Error("a link of exactly 10× the default's work asked first")
	}
}

// TestBrowserCostlyEstimate: how close the page's estimate comes to the time the search then takes (a link of
// 11× the default's work whose every restart runs all its steps).
func TestBrowserCostlyEstimate(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	p := clue.Defaults()
	p.MaxSteps, p.RelTol, p.AbsTol = 1100, 0, 0
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+linkFor(t, 1735, p)))
	est := eval[float64](t, ctx, `0`)
	waitFor(t, ctx, "the estimate", `window.deltaclue && window.deltaclue.costly && window.deltaclue.costly.estimateSeconds && window.deltaclue.costly.probesLeft == 0`, time.Minute)
	est = eval[float64](t, ctx, `window.deltaclue.costly.estimateSeconds`)
	t.Logf("the timing searches (%v steps) took %s s", core.ProbeSteps, eval[string](t, ctx, `window.deltaclue.costly.probeSeconds`))
	do(t, ctx, chromedp.Click(chromedp.ID("costly-run")))
	waitFor(t, ctx, "the run", `window.deltaclue.state == "done"`, 3*time.Minute)
	took := eval[float64](t, ctx, `window.deltaclue.elapsedMs`) / 1000
	t.Logf("n = 100, 1100 steps, no early stop, 2 workers: estimated %.1f s, took %.1f s (ratio %.2f)", est, took, took/est)
	if took > 3*est || took < est/3 {
		t.Errorf("the estimate %.1f s is off by more than 3× from the %.1f s the search took", est, took)
	}
}

// TestBrowserLinkOnPad: a shared link's digit is on the pad and can be drawn on; Copy link says it copied the
// address; Clear empties the pad and takes the link out of the address.
func TestBrowserLinkOnPad(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.Call(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: srv.URL}); err != nil {
			t.Fatal(err)
		}
	}
	p := clue.Defaults()
	p.N, p.MaxSteps = 10, 30
	link := linkFor(t, 1735, p)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=1#"+link))
	waitFor(t, ctx, "the link's set", `window.deltaclue && window.deltaclue.state == "done" && window.deltaclue.results == 10`, time.Minute)
	if n := eval[int](t, ctx, litPixels); n < 1500 {
		t.Errorf("the link's digit is not on the pad: %d lit pixels", n)
	}
	// The page is still laying out its answer when the set is done (the amortised cards give way to the mode
	// cards, the figures come in): a click aimed at the button before it stops moving lands on what moved
	// under the pointer (seen: 4 runs in 10).
	waitStill(t, ctx, "copy-link")
	do(t, ctx, chromedp.Click(chromedp.ID("copy-link")))
	if !textWithin(ctx, "copy-note", 5*time.Second) {
		// Under a loaded machine (CI runs the packages' tests side by side) the click was seen to land before
		// the button took it, with no note at all (1 run in ~20): click once more, the page must still copy.
		t.Logf("no note 5 s after the click on Copy link: clicking again")
		waitStill(t, ctx, "copy-link")
		do(t, ctx, chromedp.Click(chromedp.ID("copy-link")))
	}
	note := waitText(t, ctx, "copy-note", 15*time.Second)
	copied, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(note, "Link copied (") || copied != eval[string](t, ctx, `location.href`) {
		t.Errorf("Copy link says %q and copied %.60q", note, copied)
	}
	waitFor(t, ctx, "the note gone", `document.getElementById("copy-note").textContent == ""`, 10*time.Second)

	// A stroke on the shared digit makes a new input, with its own link.
	before := eval[int](t, ctx, litPixels)
	stroke(t, ctx, [][2]float64{{40, 240}, {240, 240}})
	waitFor(t, ctx, "the redrawn digit's link", fmt.Sprintf(`location.hash != %q && location.hash.startsWith("#v2.")`, "#"+link), 10*time.Second)
	if after := eval[int](t, ctx, litPixels); after <= before {
		t.Errorf("the stroke added no ink to the shared digit: %d → %d lit pixels", before, after)
	}
	// Undo gives the shared digit itself back, bit for bit.
	do(t, ctx, chromedp.Click(chromedp.ID("undo")))
	waitFor(t, ctx, "the shared digit back", fmt.Sprintf(`location.hash == %q`, "#"+link), 10*time.Second)
	do(t, ctx, chromedp.Click(chromedp.ID("clear")))
	waitFor(t, ctx, "the link gone from the address", `location.hash == "" && document.getElementById("copy-link").disabled`, 5*time.Second)
	if n := eval[int](t, ctx, litPixels); n != 0 {
		t.Errorf("after Clear the pad has %d lit pixels", n)
	}
}

// textWithin reports whether the element with the given id shows some text within the timeout.
func textWithin(ctx context.Context, id string, timeout time.Duration) bool {
	js := fmt.Sprintf(`!!(document.getElementById(%q) && document.getElementById(%q).textContent)`, id, id)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(timeout)))
	return err == nil
}

// TestBrowserSlowSearchAsks: a search the visitor starts that would take more than core.SlowSearch on this
// device, by what its workers' warm-ups and searches measured (a big model's defaults, or here the digits with
// 10,000 steps a restart), asks first, with the time it would take and as many restarts as fit beside Run it;
// that choice runs them, and nothing ran before it.
func TestBrowserSlowSearchAsks(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+linkFor(t, 1735, clue.Defaults())))
	waitFor(t, ctx, "the link's run", `window.deltaclue && window.deltaclue.state == "done"`, 2*time.Minute)
	runID := eval[float64](t, ctx, `window.deltaclue.runID`)
	setValue(t, ctx, "p-max_steps", "10000")
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	text := waitText(t, ctx, "costly-text", 30*time.Second)
	other := eval[string](t, ctx, `document.getElementById("costly-defaults").textContent`)
	t.Logf("the page asks: %s [Run it] [%s]", text, other)
	if !strings.HasPrefix(text, "This search would take about ") || !strings.HasSuffix(text, " on this device.") {
		t.Errorf("the question: %q", text)
	}
	var n int
	if _, err := fmt.Sscanf(other, "Run %d restart", &n); err != nil || n < 1 || n >= 100 {
		t.Fatalf("the second choice %q: want fewer restarts than the 100 asked", other)
	}
	screenshots(t, ctx, "deltaclue-slow")
	if st := eval[float64](t, ctx, `window.deltaclue.runID`); st != runID {
		t.Errorf("a search started before the choice (run %v after %v)", st, runID)
	}
	do(t, ctx, chromedp.Click(chromedp.ID("costly-defaults")))
	waitFor(t, ctx, "the smaller search", `window.deltaclue.runID != `+fmt.Sprint(runID)+` && !document.getElementById("costly")`, 30*time.Second)
	if got := eval[string](t, ctx, `document.getElementById("p-n").value`); got != fmt.Sprint(n) {
		t.Errorf("the form holds n = %s, want the %d restarts chosen", got, n)
	}
}
