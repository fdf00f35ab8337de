//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// TestBrowserGridFiguresKeyboardCaptions drives the results panel as a keyboard user and a careful reader
// would, on one worker: counts in words agree with their numbers; the charts are one Tab stop each, with the
// arrow keys inside; the grid's first ArrowRight selects its first cell; a collapsed duplicate chosen in the
// trade-off plot frames its representative's cell, and the detail names its mode; the cards say what they
// are; the trajectory's and the reach strip's captions stay apart; and no run makes Chromium warn about
// read-backs of a canvas (willReadFrequently).
func TestBrowserGridFiguresKeyboardCaptions(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	var mu sync.Mutex
	var warnings []string
	chromedp.Listen(ctx, func(ev any) {
		var text string
		switch e := ev.(type) {
		case *log.EventEntryAdded:
			text = e.Entry.Text
		case *runtime.EventConsoleAPICalled:
			for _, a := range e.Args {
				text += string(a.Value) + " "
			}
		}
		if strings.Contains(text, "willReadFrequently") {
			mu.Lock()
			warnings = append(warnings, text)
			mu.Unlock()
		}
	})
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=1"))
	waitFor(t, ctx, "the worker", `window.deltaclue && window.deltaclue.ready == 1`, time.Minute)
	// window.deltaclue is published before the page is re-rendered: give the render a moment.
	chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("status").textContent.startsWith("1 of")`, chromedp.WithPollingTimeout(5*time.Second)))
	if s := eval[string](t, ctx, `document.getElementById("status").textContent`); s != "1 of 1 worker ready." {
		t.Errorf("status before a run: %q", s)
	}
	drawFour(t, ctx)
	waitFor(t, ctx, "the model's view", `document.getElementById("pred-label")`, 30*time.Second)
	do(t, ctx, chromedp.Click(chromedp.ID("run")))
	waitFor(t, ctx, "the full set", `!window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.cards.length > 1
		&& window.deltaclue.painted`, 3*time.Minute) // (the grid and the figures are painted over a few frames)
	rep := pageReport(t, ctx)

	// 1. Plurals: "on 1 worker", and nowhere in the page a "1 workers" or "1 restarts".
	if s := eval[string](t, ctx, `document.getElementById("status").textContent`); !strings.Contains(s, " on 1 worker.") {
		t.Errorf("status after the run: %q", s)
	}
	if s := eval[string](t, ctx, `document.getElementById("summary").textContent`); !strings.Contains(s, " on 1 worker)") {
		t.Errorf("the set's time per explanation does not say %q: %.300s", "on 1 worker)", s)
	}
	onePlural := regexp.MustCompile(`(^|[^0-9.,])1 (workers|restarts|explanations|duplicates|radii|steps|modes|labels|values|ends)\b`)
	if m := onePlural.FindString(eval[string](t, ctx, `document.body.innerText`)); m != "" {
		t.Errorf("the page says %q", m)
	}

	// 2. The grid: with nothing selected, ArrowRight selects the first cell (ArrowLeft then stays there).
	if sel := eval[int](t, ctx, `window.deltaclue.selected`); sel != -1 {
		t.Fatalf("restart %d selected before anyone chose one", sel)
	}
	// The pointer rests away from the grid: focusing the grid scrolls the page, and Chromium then moves the
	// pointer over whatever came under it (a pointermove over a cell selects that cell).
	parkPointer(t, ctx)
	eval[bool](t, ctx, `(document.getElementById("grid").focus(), document.activeElement.id == "grid")`)
	do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	first := waitFor(t, ctx, "ArrowRight to select a cell", `window.deltaclue.selected >= 0 && window.deltaclue.grid.cell == 0 && window.deltaclue.grid.first == window.deltaclue.selected && window.deltaclue.selected`, 5*time.Second)
	do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	waitFor(t, ctx, "a second ArrowRight", `window.deltaclue.grid.cell == 1`, 5*time.Second)
	do(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	waitFor(t, ctx, "ArrowLeft back to the first cell", `window.deltaclue.grid.cell == 0 && window.deltaclue.selected == `+first, 5*time.Second)
	shoot(t, ctx, "#grid-wrap", "defects-grid-1280.png")

	// The pointer rests where no chart is, so that scrolling does not point it at a marker (which selects).
	parkPointer(t, ctx)

	// 3. A collapsed duplicate chosen in the trade-off plot frames its representative's cell.
	var dups []clue.Explanation
	for _, x := range rep.Explanations {
		if x.DuplicateOf >= 0 && x.Failed == "" {
			dups = append(dups, x)
		}
	}
	if len(dups) < 2 {
		t.Fatalf("%d duplicates in a set of 100 around this digit", len(dups))
	}
	// In the latent map, then in the trade-off plot (which the rest of the test keeps selected).
	last := dups[len(dups)-1]
	focusMarker(t, ctx, fmt.Sprintf(`#latent-map .end[data-restart="%d"]`, last.Restart))
	waitFor(t, ctx, "the duplicate's representative framed from the map", fmt.Sprintf(`window.deltaclue.selected == %d && window.deltaclue.grid.restart == %d && window.deltaclue.grid.cell >= 0`,
		last.Restart, last.DuplicateOf), 5*time.Second)
	dup := dups[0]
	focusMarker(t, ctx, fmt.Sprintf(`#tradeoff [data-restart="%d"]`, dup.Restart))
	waitFor(t, ctx, "the duplicate's representative framed", fmt.Sprintf(`window.deltaclue.selected == %d && window.deltaclue.grid.restart == %d && window.deltaclue.grid.cell >= 0`,
		dup.Restart, dup.DuplicateOf), 5*time.Second)
	detail := waitFor(t, ctx, "the duplicate's detail", `!document.getElementById("detail").hidden && document.querySelector("#detail table") && document.querySelector("#detail table").textContent`, 5*time.Second)
	if !strings.Contains(detail, fmt.Sprintf("a duplicate of restart %d, in its mode ", dup.DuplicateOf)) || strings.Contains(detail, "-1") {
		t.Errorf("the detail of duplicate %d says %s", dup.Restart, detail)
	}
	// The frame is drawn on that cell: its left edge is the frame's blue.
	var g struct{ Cell, Columns, CellW, CellH int }
	json.Unmarshal([]byte(eval[string](t, ctx, `JSON.stringify(window.deltaclue.grid)`)), &g)

	// 4. The charts are one Tab stop each; Tab walks the whole page in a few dozen stops.
	// Start where a reader starts: a click on the page's top, away from any control; once the figures show the
	// last selection's trajectory (a redraw replaces a chart's markers, and with them the focus).
	waitFor(t, ctx, "the figures painted", `window.deltaclue.painted`, 10*time.Second)
	eval[bool](t, ctx, `(document.activeElement.blur(), window.scrollTo(0, 0), true)`)
	do(t, ctx, chromedp.MouseEvent(chromedp.MousePressed, 2, 2, chromedp.ButtonLeft), chromedp.MouseEvent(chromedp.MouseReleased, 2, 2, chromedp.ButtonLeft))
	parkPointer(t, ctx)
	eval[bool](t, ctx, `(window.tabSeen = new Set(), true)`)
	var stops []string
	for i := 0; i < 400; i++ {
		do(t, ctx, chromedp.KeyEvent(kb.Tab))
		here := eval[string](t, ctx, `(() => { const a = document.activeElement; if (!a || a === document.body) return "body";
			if (window.tabSeen.has(a)) return "again"; window.tabSeen.add(a);
			const f = a.closest("#tradeoff, #latent-map, #sweep-chart"); return (f ? f.id + ":" : "") + a.tagName + "#" + a.id + (a.dataset && a.dataset.restart ? "@" + a.dataset.restart : ""); })()`)
		if here == "body" || here == "again" {
			break
		}
		stops = append(stops, here)
	}
	inCharts := map[string]int{}
	for _, s := range stops {
		if chart, _, ok := strings.Cut(s, ":"); ok {
			inCharts[chart]++
		}
	}
	t.Logf("Tab walks %d stops; in the charts: %v", len(stops), inCharts)
	if inCharts["tradeoff"] != 1 || inCharts["latent-map"] != 1 || len(stops) > 80 {
		t.Errorf("Tab walks %d stops, %v of them in the charts; want one per chart: %v", len(stops), inCharts, stops)
	}

	// 5. The arrow keys move inside a chart, the Tab stop with them, and select what they reach.
	focusMarker(t, ctx, `#tradeoff [tabindex="0"]`)
	for _, k := range []struct{ key, attr string }{{kb.ArrowRight, "nx"}, {kb.ArrowUp, "ny"}, {kb.ArrowLeft, "nx"}} {
		before := eval[int](t, ctx, `+document.activeElement.dataset.`+k.attr)
		do(t, ctx, chromedp.KeyEvent(k.key))
		step := 1
		if k.key == kb.ArrowLeft {
			step = -1
		}
		if before+step < 0 {
			step = 0
		}
		waitFor(t, ctx, "the arrow key "+k.attr, fmt.Sprintf(`document.activeElement.closest("#tradeoff") && +document.activeElement.dataset.%s == %d &&
			document.activeElement.getAttribute("tabindex") == "0" && document.querySelectorAll('#tradeoff [tabindex="0"]').length == 1 &&
			window.deltaclue.selected == +document.activeElement.dataset.restart`, k.attr, before+step), 5*time.Second)
	}

	// 6. The cards: ordered by p(y), shown; each read as a sentence; the sentence's d are the cards'.
	var cards []clue.ModeCard
	json.Unmarshal([]byte(eval[string](t, ctx, `window.deltaclue.cards`)), &cards)
	labels := eval[[]string](t, ctx, `[...document.querySelectorAll("#cards .mode-card")].map(b => b.getAttribute("aria-label"))`)
	ps := eval[[]string](t, ctx, `[...document.querySelectorAll("#cards .card-p")].map(b => b.textContent)`)
	sentence := eval[string](t, ctx, `document.getElementById("sentence").textContent`)
	seen := map[int]bool{}
	for i, c := range cards {
		if i >= len(labels) || i >= len(ps) {
			t.Fatalf("%d cards shown for %d", len(labels), len(cards))
		}
		if labels[i] != c.Sentence(rep.Summary.Restarts) || !regexp.MustCompile(`^An? \d.* restarts? \(p\(y\) \d\.\d\d\); .*\.$`).MatchString(labels[i]) {
			t.Errorf("card %d reads %q", i, labels[i])
		}
		if want := fmt.Sprintf("p(y) %.2f", c.P); ps[i] != want {
			t.Errorf("card %d shows %q, want %q", i, ps[i], want)
		}
		if i > 0 && c.P > cards[i-1].P {
			t.Errorf("card %d (p %.3f) after a card of p %.3f", i, c.P, cards[i-1].P)
		}
		if !seen[c.Label] && !strings.Contains(sentence, fmt.Sprintf("%d (", c.Label)) ||
			!seen[c.Label] && !strings.Contains(sentence, fmt.Sprintf("at d %.1f)", c.Distance)) {
			t.Errorf("the sentence %q does not give the %d's first card's d %.1f", sentence, c.Label, c.Distance)
		}
		seen[c.Label] = true
	}
	if hint := eval[string](t, ctx, `document.querySelector("#overview .hint").textContent`); !strings.Contains(hint, "p(y)") || strings.Contains(hint, "most probable") {
		t.Errorf("the cards' hint: %q", hint)
	}
	shoot(t, ctx, "#overview", "defects-cards-1280.png")

	// 7. The captions of the trajectory strip and of the reach strip stay apart.
	waitFor(t, ctx, "the trajectory", `(t => t && t.restart == window.deltaclue.selected && t.frames > 2 &&
		document.querySelectorAll("#strip canvas").length == t.frames)(window.deltaclue.trajectory)`, time.Minute)
	captionsApart(t, ctx, "#strip")
	shoot(t, ctx, "#trajectory", "defects-trajectory-1280.png")
	setValue(t, ctx, "sweep-radii", "0.5, 2, 4")
	setValue(t, ctx, "sweep-n", "20")
	waitFor(t, ctx, "the ladder accepted", `!document.getElementById("sweep-error") && !document.getElementById("sweep-run").disabled`, 5*time.Second)
	do(t, ctx, chromedp.Click(chromedp.ID("sweep-run")))
	waitFor(t, ctx, "the sweep", `window.deltaclue.sweep && window.deltaclue.sweep.state == "done" && document.querySelectorAll("#reaches canvas").length > 1`, 2*time.Minute)
	// The sweep's state is published before its panel is re-rendered: give the render a moment.
	chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("sweep-status").textContent.startsWith("Done")`, chromedp.WithPollingTimeout(5*time.Second)))
	if s := eval[string](t, ctx, `document.getElementById("sweep-status").textContent`); !strings.HasPrefix(s, "Done: 3 radii × 20 restarts in ") {
		t.Errorf("the sweep's status: %q", s)
	}
	if title := eval[string](t, ctx, `[...document.querySelectorAll("#sweep-chart .panel-title")].map(e => e.textContent).join(" | ")`); !strings.Contains(title, "(a) p(y) ∝ 1 / (lowest cost of label y)²") {
		t.Errorf("the sweep's panel titles: %q", title)
	}
	captionsApart(t, ctx, "#reaches")
	shoot(t, ctx, "#sweep", "defects-sweep-1280.png")

	// 8. The same on a phone.
	do(t, ctx, chromedp.EmulateViewport(390, 844))
	waitFor(t, ctx, "the narrow layout", `document.documentElement.clientWidth <= 390`, 5*time.Second)
	time.Sleep(300 * time.Millisecond) // the grid is redrawn for its new number of columns
	captionsApart(t, ctx, "#strip")
	captionsApart(t, ctx, "#reaches")
	for _, s := range [][2]string{{"#grid-wrap", "grid"}, {"#overview", "cards"}, {"#trajectory", "trajectory"}, {"#sweep", "sweep"}} {
		shoot(t, ctx, s[0], "defects-"+s[1]+"-390.png")
	}

	// 9. No read-back warning during the run, the sweep and the drawing.
	mu.Lock()
	if len(warnings) > 0 {
		t.Errorf("Chromium warned %d times: %s", len(warnings), warnings[0])
	}
	mu.Unlock()

	// 10. Last (a read-back of our own): the frame is drawn on the duplicate's representative's cell.
	do(t, ctx, chromedp.EmulateViewport(1280, 1800))
	focusMarker(t, ctx, fmt.Sprintf(`#tradeoff [data-restart="%d"]`, dup.Restart))
	grid := waitFor(t, ctx, "the duplicate selected again", fmt.Sprintf(`window.deltaclue.selected == %d && window.deltaclue.grid.restart == %d && window.deltaclue.grid.columns == 10 && JSON.stringify(window.deltaclue.grid)`,
		dup.Restart, dup.DuplicateOf), 5*time.Second)
	var gs string
	json.Unmarshal([]byte(grid), &gs)
	json.Unmarshal([]byte(gs), &g)
	time.Sleep(200 * time.Millisecond)
	x, y := (g.Cell%g.Columns)*g.CellW+3, (g.Cell/g.Columns)*g.CellH+g.CellH/2
	// (The grid is a canvas per row.)
	waitFor(t, ctx, "the grid painted", `window.deltaclue.grid.painted`, 5*time.Second)
	px := eval[[]int](t, ctx, fmt.Sprintf(`[...document.querySelectorAll("#grid canvas")[%d].getContext("2d").getImageData(%d, %d, 1, 1).data]`, y/g.CellH, x, y%g.CellH))
	if len(px) != 4 || px[0] > 80 || px[2] < 200 {
		t.Errorf("grid cell %d (restart %d): pixel (%d, %d) is %v, not the frame's blue", g.Cell, dup.DuplicateOf, x, y, px)
	}
}

// captionsApart checks that the captions of a strip of figures do not run together: neighbours on one row
// are at least 12 px apart, and each caption lies under its own image.
func captionsApart(t *testing.T, ctx context.Context, strip string) {
	t.Helper()
	type box struct{ Left, Right, Top, ImgLeft, ImgRight float64 }
	var boxes []box
	js := fmt.Sprintf(`JSON.stringify([...document.querySelectorAll(%q)].map(f => { const c = f.querySelector("figcaption").getBoundingClientRect();
		const i = f.querySelector("canvas").getBoundingClientRect(); return {Left: c.left, Right: c.right, Top: c.top, ImgLeft: i.left, ImgRight: i.right}; }))`, strip+" figure")
	if err := json.Unmarshal([]byte(eval[string](t, ctx, js)), &boxes); err != nil || len(boxes) < 2 {
		t.Fatalf("%s: %d captions (%v)", strip, len(boxes), err)
	}
	for i, b := range boxes {
		mid, img := (b.Left+b.Right)/2, (b.ImgLeft+b.ImgRight)/2
		if d := mid - img; d > 2 || d < -2 {
			t.Errorf("%s caption %d is centred %.1f px off its image", strip, i, d)
		}
		if i > 0 && boxes[i-1].Top == b.Top {
			if gap := b.Left - boxes[i-1].Right; gap < 12 {
				t.Errorf("%s captions %d and %d are %.1f px apart", strip, i-1, i, gap)
			}
		}
	}
}

// parkPointer moves the mouse to the page's right margin, where no control or chart is.
func parkPointer(t *testing.T, ctx context.Context) {
	t.Helper()
	w := eval[float64](t, ctx, `document.documentElement.clientWidth`)
	do(t, ctx, chromedp.MouseEvent(chromedp.MouseMoved, w-3, 3))
}

// TestBrowserExplainAgainOnALink: the default search's link opened, and Explain pressed again the moment its
// set is done and the button enabled (as make bench-set's "clicked again" does, before the page has painted
// it): the second set finishes too. It once stayed "running" with every result in: a request for the figures of
// the page's early set, left waiting, went to the summary worker mid-run and made it drop the restarts it held.
func TestBrowserExplainAgainOnALink(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+linkFor(t, 1735, clue.Defaults())))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!(window.deltaclue && window.deltaclue.state == "done" && window.deltaclue.runID >= 1 && !document.getElementById("run").disabled)`,
		chromedp.WithPollingTimeout(2*time.Minute), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("the link's set: %v", err)
	}
	first := eval[float64](t, ctx, `(() => { const id = window.deltaclue.runID; document.getElementById("run").click(); return id })()`)
	waitFor(t, ctx, "the second set", fmt.Sprintf(`window.deltaclue.runID > %v && window.deltaclue.state == "done" && window.deltaclue.painted`, first), time.Minute)
	if n := eval[float64](t, ctx, `window.deltaclue.results`); n != float64(clue.Defaults().N) {
		t.Errorf("the second set has %v results, want %d", n, clue.Defaults().N)
	}
}
