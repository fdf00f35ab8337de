//go:build !js

package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// TestBrowserCLUERuleAndCARLA: a link asking for CLUE's convergence rule runs it in the workers (the same bits
// as the native engine), shows it in the form and keeps it in the page's own link; the set panel shows CARLA's
// exact measures beside δ-CLUE's, equal to the native ones, and the downloadable report carries them.
func TestBrowserCLUERuleAndCARLA(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	test, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	fp, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	s := sharelink.State{Image: sharelink.Quantize(test.Float(1735, nil)), Params: clue.Defaults(), Model: fp, Selected: sharelink.NoSelection}
	s.Params.N, s.Params.Convergence = 24, clue.CLUERule
	link := srv.URL + "/repo/?workers=2#" + sharelink.Encode(s)

	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(link))
	waitFor(t, ctx, "the shared set", `window.deltaclue && window.deltaclue.state == "done"`, 3*time.Minute)
	if rule := eval[string](t, ctx, `document.getElementById("p-convergence").value`); rule != "clue" {
		t.Errorf("the form shows convergence rule %q, want clue", rule)
	}
	rep := pageReport(t, ctx)
	prob, _ := nativeProblem(t, link)
	native, err := clue.Search(context.Background(), prob, s.Params, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	clue.Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, s.Params, native) // marks modes and duplicates, as the page's
	if rep.Params.Convergence != clue.CLUERule {
		t.Fatalf("the page ran rule %v", rep.Params.Convergence)
	}
	sameJSON(t, "explanations under CLUE's rule", rep.Explanations, native)
	spread := s.Params
	spread.Convergence = clue.Spread
	other, _ := clue.Search(context.Background(), prob, spread, nil, nil)
	clue.Summarize(prob.X0, prob.Z0, prob.Models().BNN.Classes, spread, other)
	differ := 0
	for i := range other {
		if other[i].Steps != rep.Explanations[i].Steps {
			differ++
		}
	}
	if differ == 0 {
		t.Error("the page's restarts stopped where the default rule stops them: was CLUE's rule used?")
	}
	again, err := sharelink.Decode(eval[string](t, ctx, `location.hash`))
	if err != nil || again.Params.Convergence != clue.CLUERule {
		t.Errorf("the page's own link: rule %v, %v", again.Params.Convergence, err)
	}

	// CARLA's measures: in the report and in the panel, the native values.
	want := clue.CARLAOf(prob.X0, prob.Pred0.Label(), native)
	if rep.CARLA == nil {
		t.Fatal("the page's report has no CARLA measures")
	}
	want.YNNData = rep.CARLA.YNNData
	sameJSON(t, "CARLA's measures", *rep.CARLA, want)
	if rep.CARLA.YNN != -1 || !strings.Contains(rep.CARLA.YNNData, "deltaclue explain") {
		t.Errorf("the page's CARLA yNN: %v, %q", rep.CARLA.YNN, rep.CARLA.YNNData)
	}
	table := eval[string](t, ctx, `document.getElementById("recourse-table").innerText`)
	for _, s := range []string{fmt.Sprintf("%.2f: label changed (%d)", want.Validity, want.Valid), fmt.Sprintf("%.1f (> 1e-5)", want.L0.Mean),
		fmt.Sprintf("%.2f (Σ squares)", want.L2.Mean), "deltaclue explain"} {
		if !strings.Contains(table, s) {
			t.Errorf("the set panel's recourse table lacks %q:\n%s", s, table)
		}
	}

	// Readable on a phone: at 390 px the table fits its panel (no horizontal overflow).
	shoot(t, ctx, "#recourse", "recourse-1280.png")
	do(t, ctx, chromedp.EmulateViewport(390, 900))
	if over := eval[float64](t, ctx, `(() => { const t = document.getElementById("recourse-table");
		return t.getBoundingClientRect().right - document.documentElement.clientWidth; })()`); over > 0 {
		t.Errorf("at 390 px the recourse table runs %.0f px past the screen", over)
	}
	shoot(t, ctx, "#recourse", "recourse-390.png")
	do(t, ctx, chromedp.EmulateViewport(1280, 1800))

	// A link without the rule's flag (as every earlier link) keeps the default rule.
	s.Params.Convergence = clue.Spread
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2&old=1#"+sharelink.Encode(s)))
	waitFor(t, ctx, "the default-rule set", `window.deltaclue && window.deltaclue.state == "done"`, 3*time.Minute)
	if rule := eval[string](t, ctx, `document.getElementById("p-convergence").value`); rule != "spread" {
		t.Errorf("an earlier link shows convergence rule %q, want spread", rule)
	}
	sameJSON(t, "explanations under the default rule", pageReport(t, ctx).Explanations, other)
}
