//go:build !js

package app

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// TestBrowserAmortisedAnswers: after a stroke, GLAM-CLUE's amortised answers for the plausible labels are on
// screen, marked amortised, before the live preview has any result; they are the engine's (glam.Explain on the
// drawing, natively: the same k, label and d); and the preview's cards replace them.
func TestBrowserAmortisedAnswers(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2"))
	waitFor(t, ctx, "the workers", `window.deltaclue && window.deltaclue.ready == 2`, time.Minute)
	// Each frame, note the first in which an amortised card is in the page and the first in which the page shows
	// a preview's result (its status counts them): the order a visitor sees.
	eval[bool](t, ctx, `(() => {
		window.__seen = {};
		const look = () => {
			const now = performance.now(), d = window.deltaclue || {};
			const cards = document.querySelectorAll("#amortised .amortised-card");
			if (cards.length) {
				window.__seen.amortised = window.__seen.amortised || now;
				window.__seen.last = Array.from(cards, (c) => c.getAttribute("aria-label"));
			}
			if (!window.__seen.result && d.preview && d.results > 0) window.__seen.result = now;
			requestAnimationFrame(look);
		};
		requestAnimationFrame(look);
		return true;
	})()`)
	stroke(t, ctx, [][2]float64{{95, 50}, {85, 90}, {78, 130}, {90, 150}, {150, 150}, {190, 148}})
	stroke(t, ctx, [][2]float64{{180, 45}, {182, 110}, {184, 170}, {186, 240}})
	waitFor(t, ctx, "the preview", `window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.results == 24`, 30*time.Second)
	var seen struct {
		Amortised, Result float64
		Last              []string
	}
	json.Unmarshal([]byte(eval[string](t, ctx, `JSON.stringify(window.__seen)`)), &seen)
	var am struct{ Ms, Count, Heard, Shown float64 }
	json.Unmarshal([]byte(eval[string](t, ctx, `JSON.stringify(window.deltaclue.amortised)`)), &am)
	t.Logf("amortised answers: %v made by the worker in %.2f ms, drawn %.1f ms after the page heard them; on screen at %.0f ms, the preview's first result at %.0f ms",
		am.Count, am.Ms, am.Shown-am.Heard, seen.Amortised, seen.Result)
	if seen.Amortised == 0 || seen.Result == 0 || seen.Amortised >= seen.Result {
		t.Errorf("the amortised answers were on screen at %v ms, the preview's first result at %v: want them first", seen.Amortised, seen.Result)
	}

	// The last stroke's answers, natively.
	link, err := sharelink.Decode(eval[string](t, ctx, `location.href`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := glam.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	x0 := link.Float()
	prob, err := clue.NewProblem(m, x0)
	if err != nil {
		t.Fatal(err)
	}
	want := glam.Explain(m, ts, x0, prob.Z0, prob.Pred0.Label(), glam.Plausible(prob.Pred0.Probs, glam.PlausibleMin), clue.Defaults().HThreshold)
	if len(want) == 0 || int(am.Count) != len(want) {
		t.Fatalf("the page had %v amortised answers, the engine %d", am.Count, len(want))
	}
	var texts []string
	for _, a := range want {
		form := fmt.Sprintf("amortised, k = %g", a.K)
		if !a.Sure {
			form = amortisedMiss(searchworker.Amortised{To: a.To, Label: a.Label})
		}
		texts = append(texts, fmt.Sprintf("%d, %s, H %.2f · d %.1f", a.To, form, a.HTotal, a.Distance))
	}
	if fmt.Sprint(seen.Last) != fmt.Sprint(texts) {
		t.Errorf("the page's amortised cards said %q, the engine's answers %q", seen.Last, texts)
	}
	// Warm: three more strokes, each logged (the worker's time and the page's, from hearing the inspection to
	// drawing the cards).
	for i, pts := range [][][2]float64{{{60, 200}, {64, 206}}, {{210, 60}, {214, 66}}, {{120, 230}, {124, 236}}} {
		before := eval[float64](t, ctx, `window.deltaclue.amortised.shown`)
		stroke(t, ctx, pts)
		waitFor(t, ctx, "new amortised answers", fmt.Sprintf(`window.deltaclue.amortised.shown > %v`, before), 10*time.Second)
		json.Unmarshal([]byte(eval[string](t, ctx, `JSON.stringify(window.deltaclue.amortised)`)), &am)
		t.Logf("stroke %d: %v amortised answers in %.2f ms in the worker, drawn %.1f ms after the page heard them", i+2, am.Count, am.Ms, am.Shown-am.Heard)
	}
	waitFor(t, ctx, "the last preview", `window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.results == 24`, 30*time.Second)
	// The preview's cards replace them: at the redraw after the run's end (a timer, late on a loaded machine),
	// not with the state's change.
	waitFor(t, ctx, "the preview's cards instead of the amortised answers",
		`document.querySelectorAll("#amortised").length == 0 && document.querySelectorAll("#cards .mode-card").length > 0`, 10*time.Second)
	// With the live preview off a stroke runs no search, and the amortised cards stay: the answer there is
	// until Explain is pressed.
	do(t, ctx, chromedp.Click(chromedp.ID("live")))
	before := eval[float64](t, ctx, `window.deltaclue.amortised.shown`)
	stroke(t, ctx, [][2]float64{{150, 60}, {154, 66}})
	waitFor(t, ctx, "amortised answers without a preview", fmt.Sprintf(`window.deltaclue.amortised.shown > %v && document.querySelector("#amortised .amortised-card") != null`, before), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	if n := eval[int](t, ctx, `document.querySelectorAll("#amortised .amortised-card").length`); n == 0 || eval[string](t, ctx, `window.deltaclue.state`) == "running" {
		t.Errorf("with live preview off: %d amortised cards, state %q", n, eval[string](t, ctx, `window.deltaclue.state`))
	}
	// The last preview's set belonged to the drawing before this stroke: the grid (one blank row) and the figures,
	// which the page paints itself, show none of it.
	waitFor(t, ctx, "the last preview's set gone", `window.deltaclue.results == 0 && window.deltaclue.painted && window.deltaclue.grid.first == -1 &&
		!document.querySelector("#tradeoff svg circle, #latent-map svg circle") && (() => {
			const rows = document.querySelectorAll("#grid canvas");
			if (rows.length > 1) return false;
			for (const c of rows) {
				const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
				for (let i = 4; i < d.length; i++) if (d[i] != d[i % 4]) return false;
			}
			return true;
		})()`, 5*time.Second)
	viewportShot(t, ctx, "amortised.png")
}
