//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// shoot saves a screenshot of the element matching sel into the artifacts folder (and into $E2E_DOCS, if set,
// where docs/ screenshots are made from).
func shoot(t *testing.T, ctx context.Context, sel, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", sel, err)
	}
	for _, dir := range []string{artifacts(t), os.Getenv("E2E_DOCS")} {
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
}

// nativeSweep runs every radius of a ladder as its own native search (in parallel) and returns the reaches.
func nativeSweep(t *testing.T, link string, l clue.Ladder) []clue.Reach {
	prob, s := nativeProblem(t, link)
	steps := make([]clue.SweepStep, len(l.Radii))
	var wg sync.WaitGroup
	for i := range l.Radii {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := l.AtRadius(s.Params, i)
			exps, err := clue.Search(context.Background(), prob, p, nil, nil)
			if err != nil {
				t.Error(err)
			}
			steps[i] = clue.SweepStep{Delta: p.Delta, Explanations: exps}
		}()
	}
	wg.Wait()
	return clue.Reaches(steps)
}

type pageReach struct {
	Label   int     `json:"label"`
	Delta   float64 `json:"delta"`
	Restart int     `json:"restart"`
}

func reachesOf(rs []clue.Reach) []pageReach {
	out := []pageReach{}
	for _, r := range rs {
		out = append(out, pageReach{r.Label, r.Delta, r.Explanation.Restart})
	}
	return out
}

// TestBrowserSummaryPlotTrajectorySweep: the 4-that-could-be-a-9 drawn with the mouse and explained; the
// summary's cards are the native engine's modes with their cheapest members; the plot has a point per
// explanation and hovering links point and cell; a selected explanation's trajectory ends at its image; the δ
// sweep's reach radii are those of separate native searches; its link restores selection and sweep.
func TestBrowserSummaryPlotTrajectorySweep(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2"))
	waitFor(t, ctx, "the workers", `window.deltaclue && window.deltaclue.ready == 2`, time.Minute)
	drawFour(t, ctx)
	waitFor(t, ctx, "the model's view", `document.getElementById("pred-label")`, 30*time.Second)
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	waitFor(t, ctx, "the full set", `!window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.cards.length > 2
		&& window.deltaclue.painted`, 3*time.Minute) // (the grid and the figures are painted over a few frames)
	rep := pageReport(t, ctx)
	link := eval[string](t, ctx, `location.href`)
	exps, sum := nativeReport(t, link)

	// 1. The summary: one card per mode, each the native engine's, its representative the mode's cheapest member.
	var cards []clue.ModeCard
	if err := json.Unmarshal([]byte(eval[string](t, ctx, `window.deltaclue.cards`)), &cards); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "mode cards", cards, clue.ModeCards(exps, sum))
	modes := 0
	for _, m := range sum.Modes {
		modes += m
	}
	if len(cards) != modes {
		t.Errorf("%d cards for %d modes", len(cards), modes)
	}
	for _, c := range cards {
		cheapest := -1
		for _, x := range exps {
			if x.Accepted && x.Label == c.Label && x.Mode == c.Mode && (cheapest < 0 || x.Cost < exps[cheapest].Cost) {
				cheapest = x.Restart
			}
		}
		if c.Representative != cheapest {
			t.Errorf("the card for %d (mode %d) shows restart %d, the mode's cheapest is %d", c.Label, c.Mode, c.Representative, cheapest)
		}
	}
	shown := eval[[]int](t, ctx, `[...document.querySelectorAll("#cards .mode-card")].map(b => +b.dataset.restart)`)
	var want []int
	for _, c := range cards {
		want = append(want, c.Representative)
	}
	if !reflect.DeepEqual(shown, want) {
		t.Errorf("the page shows cards for restarts %v, want %v", shown, want)
	}
	sentence := eval[string](t, ctx, `document.getElementById("sentence").textContent`)
	if native := clue.Describe(rep.Prediction, exps, sum, rep.Params); sentence != native {
		t.Errorf("the sentence is %q, natively %q", sentence, native)
	}
	t.Logf("summary: %s (%d cards)", sentence, len(cards))
	if !strings.Contains(sentence, "a 9") || !strings.Contains(sentence, "a 4") {
		t.Errorf("a 4 that could be a 9: %q", sentence)
	}
	// The grid collapses duplicates: one cell per explanation that duplicates nothing, ×k on the others.
	if sum.Duplicates == 0 {
		t.Errorf("expected duplicates in a set of 100 around this digit")
	}

	// 2. The trade-off plot: a point per explanation, the accepted ones not marked rejected.
	accepted, nonFailed := 0, 0
	for _, x := range exps {
		if x.Failed == "" {
			nonFailed++
		}
		if x.Accepted {
			accepted++
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#tradeoff .pt:not(.rejected)").length`); n != accepted {
		t.Errorf("the plot has %d accepted points, the set %d accepted explanations", n, accepted)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#tradeoff .pt").length`); n != nonFailed {
		t.Errorf("the plot has %d points for %d explanations", n, nonFailed)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#tradeoff .front").length`); n != sum.DistinctLabels && n < 2 {
		t.Errorf("%d Pareto fronts drawn", n)
	}
	// Hover a point: its explanation is selected (shown large, its grid cell framed).
	target := cards[len(cards)-1].Representative
	pt := eval[rect](t, ctx, fmt.Sprintf(`(() => { const c = document.querySelector('#tradeoff .pt[data-restart="%d"] circle');
		c.scrollIntoView({block: "center"}); const b = c.getBoundingClientRect();
		return {X: b.x + b.width/2, Y: b.y + b.height/2}; })()`, target))
	// Markers overlap where explanations crowd: the one under the pointer is the one on top.
	target = eval[int](t, ctx, fmt.Sprintf(`+document.elementFromPoint(%f, %f).closest("[data-restart]").dataset.restart`, pt.X, pt.Y))
	do(t, ctx, chromedp.MouseEvent(chromedp.MouseMoved, pt.X, pt.Y))
	waitFor(t, ctx, "hovering a point to select it", fmt.Sprintf(`window.deltaclue.selected == %d && !document.getElementById("detail").hidden`, target), 5*time.Second)
	// Hover a grid cell: its point is highlighted.
	cell := eval[rect](t, ctx, `(() => { const g = document.getElementById("grid"); g.scrollIntoView({block: "center"});
		const b = g.getBoundingClientRect(); return {X: b.x + 30, Y: b.y + 40}; })()`)
	do(t, ctx, chromedp.MouseEvent(chromedp.MouseMoved, cell.X, cell.Y))
	waitFor(t, ctx, "hovering a cell to highlight its point", `window.deltaclue.selected != `+fmt.Sprint(target)+
		` && document.querySelector("#tradeoff .pt.selected") && +document.querySelector("#tradeoff .pt.selected").dataset.restart == window.deltaclue.selected`, 5*time.Second)
	// Keyboard: focus on a point selects it too.
	focusMarker(t, ctx, fmt.Sprintf(`#tradeoff .pt[data-restart="%d"]`, target))
	waitFor(t, ctx, "focusing a point to select it", fmt.Sprintf(`window.deltaclue.selected == %d`, target), 5*time.Second)

	// 3. The trajectory of the selected explanation ends at its image, bit for bit.
	tr := waitFor(t, ctx, "the trajectory", fmt.Sprintf(`window.deltaclue.trajectory && window.deltaclue.trajectory.restart == %d &&
		document.querySelectorAll("#strip canvas").length == 8 && window.deltaclue.trajectory`, target), 30*time.Second)
	var traj struct{ LastImage string }
	json.Unmarshal([]byte(tr), &traj)
	var last []float32
	json.Unmarshal([]byte(traj.LastImage), &last)
	if !reflect.DeepEqual(last, exps[target].Image) {
		t.Errorf("the trajectory of restart %d does not end at its image", target)
	}
	// The map is redrawn with the path a few parts per frame: wait for it to be painted.
	chromedp.Run(ctx, chromedp.Poll[bool](`window.deltaclue.painted && document.querySelectorAll("#latent-map .path").length == 1`, chromedp.WithPollingTimeout(5*time.Second)))
	if n := eval[int](t, ctx, `document.querySelectorAll("#latent-map .path").length`); n != 1 {
		t.Errorf("the latent map draws %d paths for the selected restart", n)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#latent-map .end").length`); n != nonFailed {
		t.Errorf("the latent map has %d end points for %d explanations", n, nonFailed)
	}
	shoot(t, ctx, "#overview", "summary.png")
	shoot(t, ctx, "#figures", "tradeoff.png")

	// 4. A bad ladder is refused in place.
	for _, c := range []struct{ radii, n, want string }{
		{"0, 1, 2", "50", "(0, 20]"}, {"1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13", "50", "at most 12"},
		{"1, two", "50", "not a number"}, {"1, 2", "0", "from 1 to 1000"}, {"2, 1", "50", "increase"},
	} {
		setValue(t, ctx, "sweep-radii", c.radii)
		setValue(t, ctx, "sweep-n", c.n)
		waitFor(t, ctx, "the ladder's error "+c.want, fmt.Sprintf(`document.getElementById("sweep-error") && document.getElementById("sweep-error").textContent.includes(%q)`, c.want), 5*time.Second)
		if !eval[bool](t, ctx, `document.getElementById("sweep-run").disabled`) {
			t.Errorf("ladder %q n %q: Sweep is enabled", c.radii, c.n)
		}
	}

	// 5. The default sweep, timed, against separate native searches.
	l := clue.DefaultLadder()
	setValue(t, ctx, "sweep-radii", clue.FormatRadii(l.Radii))
	setValue(t, ctx, "sweep-n", fmt.Sprint(l.N))
	waitFor(t, ctx, "the ladder accepted", `!document.getElementById("sweep-error") && !document.getElementById("sweep-run").disabled`, 5*time.Second)
	do(t, ctx, chromedp.Click(chromedp.ID("sweep-run")))
	clicked := time.Now()
	sw := waitFor(t, ctx, "the sweep", `window.deltaclue.sweep && window.deltaclue.sweep.state == "done" && window.deltaclue.sweep`, time.Minute)
	t.Logf("the default sweep (%d radii × %d) on 2 workers: %s after the click (page: %s)", len(l.Radii), l.N, time.Since(clicked).Round(time.Millisecond), sw)
	var got struct {
		Reaches string `json:"reaches"`
	}
	json.Unmarshal([]byte(sw), &got)
	var pageReaches []pageReach
	json.Unmarshal([]byte(got.Reaches), &pageReaches)
	sweepLink := eval[string](t, ctx, `location.href`)
	native := reachesOf(nativeSweep(t, sweepLink, l))
	if !reflect.DeepEqual(pageReaches, native) || len(native) < 2 {
		t.Errorf("reaches: page %v, native %v", pageReaches, native)
	}
	reachText := eval[string](t, ctx, `document.getElementById("reach-sentence").textContent`)
	t.Logf("reach: %s", reachText)
	if n := eval[int](t, ctx, `document.querySelectorAll("#reaches canvas").length`); n != len(native) {
		t.Errorf("%d reach images for %d labels", n, len(native))
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#sweep-chart .sweep-bar").length`); n != len(l.Radii) {
		t.Errorf("%d bars for %d radii", n, len(l.Radii))
	}
	shoot(t, ctx, "#sweep", "sweep.png")

	// 6. The link carries the selection and the ladder: a fresh browser restores both, with the same reaches.
	s, err := sharelink.Decode(sweepLink)
	if err != nil || s.Selected != target || !reflect.DeepEqual(s.Sweep, l) {
		t.Fatalf("the link holds selection %d and ladder %v (%v)", s.Selected, s.Sweep, err)
	}
	fresh := browser(t, chrome)
	do(t, fresh, chromedp.Navigate(sweepLink))
	sw2 := waitFor(t, fresh, "the shared sweep", `window.deltaclue && window.deltaclue.sweep && window.deltaclue.sweep.state == "done" && window.deltaclue.sweep`, 3*time.Minute)
	var got2 struct {
		Reaches string `json:"reaches"`
	}
	json.Unmarshal([]byte(sw2), &got2)
	if got2.Reaches != got.Reaches {
		t.Errorf("the shared link's reaches %s, the sender's %s", got2.Reaches, got.Reaches)
	}
	if sel := eval[int](t, fresh, `window.deltaclue.selected`); sel != target {
		t.Errorf("the shared link selects %d, the sender had %d", sel, target)
	}

	// 7. Cancel mid-sweep: the radii finished stay shown.
	do(t, ctx, chromedp.Click(chromedp.ID("sweep-run")))
	waitFor(t, ctx, "a first radius", `window.deltaclue.sweep.finished >= 1 && window.deltaclue.sweep.state == "running" && window.deltaclue.sweep`, time.Minute)
	if !eval[bool](t, ctx, `(() => { const b = document.getElementById("sweep-cancel"); if (b.disabled) return false; b.click(); return true; })()`) {
		t.Fatalf("Cancel is disabled while the sweep runs: %s", eval[string](t, ctx, `document.getElementById("sweep").innerText.slice(0, 600)`))
	}
	c := waitFor(t, ctx, "the sweep cancelled", `window.deltaclue.sweep.state == "cancelled" && window.deltaclue.sweep`, 5*time.Second)
	var cancelled struct{ Finished, Radii int }
	json.Unmarshal([]byte(c), &cancelled)
	bars := eval[int](t, ctx, `document.querySelectorAll("#sweep-chart .sweep-bar:not(.pending)").length`)
	if cancelled.Finished < 1 || eval[int](t, ctx, `document.querySelectorAll("#reaches canvas").length`) == 0 {
		t.Errorf("after cancel: %s, %d finished bars", c, bars)
	}
	t.Logf("cancelled with %d of %d radii finished", cancelled.Finished, cancelled.Radii)

	// 8. On a phone (390 px), nothing but the grid's own scroller is wider than the screen.
	do(t, ctx, chromedp.EmulateViewport(390, 844))
	waitFor(t, ctx, "the narrow layout", `document.documentElement.clientWidth <= 390`, 5*time.Second)
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
		wide := eval[string](t, ctx, `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > 391 && !e.closest(".grid-wrap")).slice(0, 5).map(e => e.tagName + "#" + e.id + "." + e.className).join(" ")`)
		t.Errorf("at 390 px the page is %d px wide: %s", w, wide)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(artifacts(t), "page-390.png"), png, 0o644)
}

// setValue types into an input by id and fires its change event.
func setValue(t *testing.T, ctx context.Context, id, value string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const el = document.getElementById(%q); el.value = %q;
		el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, id, value))
}
