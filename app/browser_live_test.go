//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// TestBrowserLivePreview: with live mode on, lifting the pen runs a preview of 24 restarts, equal bit for bit to
// the native search of the drawing; a stroke drawn while a preview runs cancels and replaces it; with live mode
// off, strokes run nothing; Explain still runs the full set.
func TestBrowserLivePreview(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2"))
	waitFor(t, ctx, "the workers", `window.deltaclue && window.deltaclue.ready == 2`, time.Minute)

	stroke(t, ctx, [][2]float64{{95, 50}, {85, 90}, {78, 130}, {90, 150}, {150, 150}, {190, 148}})
	stroke(t, ctx, [][2]float64{{180, 45}, {182, 110}, {184, 170}, {186, 240}})
	st := waitFor(t, ctx, "a first preview", `window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.results == 24 && window.deltaclue`, 30*time.Second)
	var first struct{ PreviewMs int }
	json.Unmarshal([]byte(st), &first)
	t.Logf("pen-up → preview complete: %d ms", first.PreviewMs)

	// A stroke while a preview runs replaces it (retried: a fast preview may finish before the stroke lands).
	extra := [][][2]float64{{{95, 52}, {136, 48}}, {{140, 48}, {160, 46}}, {{100, 200}, {104, 204}}, {{60, 60}, {64, 64}}}
	for i := 0; i < len(extra) && eval[int](t, ctx, `window.deltaclue.superseded`) == 0; i++ {
		before := eval[int](t, ctx, `window.deltaclue.runID`)
		stroke(t, ctx, extra[i])
		waitFor(t, ctx, "a new preview", fmt.Sprintf(`window.deltaclue.preview && window.deltaclue.runID > %d`, before), 10*time.Second)
		stroke(t, ctx, [][2]float64{{200 + float64(i), 250}, {204 + float64(i), 254}})
	}
	if n := eval[int](t, ctx, `window.deltaclue.superseded`); n == 0 {
		t.Fatal("no preview was ever replaced by a later stroke")
	}
	waitFor(t, ctx, "the replacing preview", `window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.results == 24`, 30*time.Second)
	rep := pageReport(t, ctx)
	link, err := sharelink.Decode(eval[string](t, ctx, `location.href`))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(link.Float()) != fmt.Sprint(rep.X0) || rep.Params.N != PreviewRestarts {
		t.Fatalf("the preview is of another input than the drawing (or n = %d)", rep.Params.N)
	}
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	prob, err := clue.NewProblem(m, rep.X0)
	if err != nil {
		t.Fatal(err)
	}
	native, err := clue.Search(context.Background(), prob, rep.Params, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	clue.Summarize(prob.X0, prob.Z0, m.BNN.Classes, rep.Params, native) // marks modes and duplicates, as the page's
	sameJSON(t, "the preview's explanations", rep.Explanations, native)
	t.Logf("previews replaced by a later stroke: %d; the last: %s", eval[int](t, ctx, `window.deltaclue.superseded`),
		eval[string](t, ctx, `document.getElementById("status").textContent`))

	// Explain runs the full set.
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	waitFor(t, ctx, "the full set", `!window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.results == 100`, time.Minute)

	// Live mode off: a stroke runs nothing.
	do(t, ctx, chromedp.Click(chromedp.ID("live")))
	before := eval[int](t, ctx, `window.deltaclue.runID`)
	stroke(t, ctx, [][2]float64{{230, 230}, {236, 236}})
	time.Sleep(600 * time.Millisecond)
	if after := eval[int](t, ctx, `window.deltaclue.runID`); after != before || eval[string](t, ctx, `window.deltaclue.state`) != "" {
		t.Errorf("with live mode off a stroke started run %d (was %d), state %q", after, before, eval[string](t, ctx, `window.deltaclue.state`))
	}
}
