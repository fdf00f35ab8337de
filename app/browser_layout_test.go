//go:build !js

package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/deltaclue/deltaclue/engine/clue"
	drive "github.com/deltaclue/deltaclue/internal/browser"
)

// firstViewports are the screens the page's first viewport is laid out for: a laptop and a phone (CSS pixels,
// the whole height: a test that scrolls or crops would hide what a visitor does not see).
var firstViewports = []struct{ W, H int64 }{{1280, 800}, {390, 844}}

// box is an element's bounding rectangle in the viewport, and whether a point at its centre hits it (not an
// overlay such as go-app's loading screen).
type box struct {
	Top, Left, Bottom, Right float64
	Hit                      bool
}

// firstView is what the top of the page shows: where the pad, the sentence, the first mode card, the status
// and the Explain button are, and whether the page was scrolled or is wider than the screen.
type firstView struct {
	ScrollY, InnerW, InnerH float64
	ScrollW                 float64
	Boxes                   map[string]*box
	Sentence                string
}

// measureJS measures the page's first view; each key of the map is a CSS selector.
const measureJS = `(() => {
	const out = {ScrollY: window.scrollY, InnerW: window.innerWidth, InnerH: window.innerHeight,
		ScrollW: document.documentElement.scrollWidth, Boxes: {},
		Sentence: (document.getElementById("sentence") || {}).textContent || ""};
	for (const sel of ["#pad", "#sentence", "#cards > :first-child", "#status", "#run"]) {
		const el = document.querySelector(sel);
		if (!el || !el.checkVisibility()) { out.Boxes[sel] = null; continue; }
		const b = el.getBoundingClientRect();
		const at = document.elementFromPoint(b.left + b.width / 2, b.top + Math.min(b.height / 2, 8));
		out.Boxes[sel] = {Top: b.top, Left: b.left, Bottom: b.bottom, Right: b.right, Hit: !!at && (at == el || el.contains(at))};
	}
	return out; })()`

func measureFirst(t *testing.T, ctx context.Context) firstView {
	t.Helper()
	return eval[firstView](t, ctx, measureJS)
}

// inView checks that the page is not scrolled, not wider than the screen, and that each element (a selector
// of measureJS) is on screen whole and not covered.
func (v firstView) inView(t *testing.T, when string, w, h int64, sels ...string) {
	t.Helper()
	if v.InnerW != float64(w) || v.InnerH != float64(h) {
		t.Fatalf("%s: the viewport is %.0f×%.0f, want %d×%d", when, v.InnerW, v.InnerH, w, h)
	}
	if v.ScrollY != 0 {
		t.Errorf("%s: the page scrolled to %.0f px", when, v.ScrollY)
	}
	if v.ScrollW > float64(w) {
		t.Errorf("%s: the page is %.0f px wide on a %d px screen", when, v.ScrollW, w)
	}
	for _, sel := range sels {
		b := v.Boxes[sel]
		switch {
		case b == nil:
			t.Errorf("%s: %s is not on the page", when, sel)
		case b.Bottom <= b.Top:
			t.Errorf("%s: %s is empty (%.0f px high)", when, sel, b.Bottom-b.Top)
		case b.Top < 0 || b.Left < 0 || b.Bottom > float64(h) || b.Right > float64(w):
			t.Errorf("%s: %s spans x %.0f–%.0f, y %.0f–%.0f: not within the %d×%d viewport", when, sel, b.Left, b.Right, b.Top, b.Bottom, w, h)
		case !b.Hit:
			t.Errorf("%s: %s is covered by another element", when, sel)
		}
	}
}

// log reports where the elements are.
func (v firstView) log(t *testing.T, when string) {
	t.Helper()
	var parts []string
	for _, sel := range []string{"#pad", "#sentence", "#cards > :first-child", "#run", "#status"} {
		if b := v.Boxes[sel]; b != nil {
			parts = append(parts, fmt.Sprintf("%s x %.0f–%.0f y %.0f–%.0f", sel, b.Left, b.Right, b.Top, b.Bottom))
		}
	}
	t.Logf("%s: %s", when, strings.Join(parts, "; "))
}

// clickInView clicks an element at its centre with the mouse, as a visitor who does not scroll would: it
// must be on screen.
func clickInView(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	waitFor(t, ctx, "#"+id+" enabled", fmt.Sprintf(`document.getElementById(%q) && !document.getElementById(%q).disabled`, id, id), 30*time.Second)
	b := eval[box](t, ctx, fmt.Sprintf(`(() => { const b = document.getElementById(%q).getBoundingClientRect();
		return {Top: b.top, Left: b.left, Bottom: b.bottom, Right: b.right}; })()`, id))
	if h := eval[float64](t, ctx, `window.innerHeight`); b.Top < 0 || b.Bottom > h {
		t.Fatalf("#%s is off screen (y %.0f–%.0f of %.0f)", id, b.Top, b.Bottom, h)
	}
	do(t, ctx, chromedp.MouseClickXY((b.Left+b.Right)/2, (b.Top+b.Bottom)/2))
}

// strokeInView draws one stroke on the pad where it is, without scrolling it into view (stroke does).
func strokeInView(t *testing.T, ctx context.Context, pts [][2]float64) {
	t.Helper()
	r := eval[rect](t, ctx, `(() => { const b = document.getElementById("pad").getBoundingClientRect(); return {X: b.x, Y: b.y}; })()`)
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MousePressed, r.X+pts[0][0], r.Y+pts[0][1], chromedp.ButtonLeft)}
	for _, p := range pts[1:] {
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, r.X+p[0], r.Y+p[1], chromedp.ButtonLeft))
	}
	last := pts[len(pts)-1]
	steps = append(steps, chromedp.MouseEvent(chromedp.MouseReleased, r.X+last[0], r.Y+last[1], chromedp.ButtonLeft))
	do(t, ctx, steps...)
}

// answerShown waits until the page shows a finished set (a preview's, or the full set's) in the DOM, not only in
// window.deltaclue: a sentence and at least one mode card.
func answerShown(t *testing.T, ctx context.Context, what string, preview bool) {
	t.Helper()
	waitFor(t, ctx, what, fmt.Sprintf(`window.deltaclue && window.deltaclue.preview == %t && window.deltaclue.state == "done" &&
		document.getElementById("sentence").textContent == window.deltaclue.sentence && window.deltaclue.sentence != "" &&
		document.querySelectorAll("#cards > *").length == JSON.parse(window.deltaclue.cards).length &&
		document.getElementById("status").textContent.startsWith(%q)`, preview, map[bool]string{true: "Preview:", false: "Done:"}[preview]), 2*time.Minute)
}

// TestBrowserAnswerInFirstViewport: at 1280×800 and at 390×844, the pad, the summary sentence and the first mode
// card are on screen without scrolling after a shared link opens, while drawing (the live preview's sentence,
// card and status), and after Explain; the Explain button, the pad's Clear and the pad itself are used where
// they are, without scrolling.
func TestBrowserAnswerInFirstViewport(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	link := linkFor(t, 1735, clue.Defaults())
	answer := []string{"#pad", "#sentence", "#cards > :first-child", "#run"}
	for _, vp := range firstViewports {
		t.Run(fmt.Sprintf("%dx%d", vp.W, vp.H), func(t *testing.T) {
			ctx := browser(t, chrome)
			do(t, ctx, chromedp.EmulateViewport(vp.W, vp.H))
			do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=2#"+link))
			answerShown(t, ctx, "the link's set", false)
			v := measureFirst(t, ctx)
			v.log(t, "the link's set")
			v.inView(t, "the link's set", vp.W, vp.H, answer...)
			viewportShot(t, ctx, fmt.Sprintf("link-%d.png", vp.W))

			// Draw a new digit: after each stroke the live preview's status is in view, and once the preview is
			// done, its sentence and first card.
			clickInView(t, ctx, "clear")
			waitFor(t, ctx, "the cleared pad", `window.deltaclue.state == "" && document.getElementById("sentence").textContent == ""`, 10*time.Second)
			for i, s := range fourStrokes {
				// The stroke's own preview, not the last stroke's (still "Preview:" and done until the new one
				// starts): a run newer than the one before the stroke.
				before := eval[int](t, ctx, `window.deltaclue.runID || 0`)
				strokeInView(t, ctx, s)
				when := fmt.Sprintf("drawing, after stroke %d", i+1)
				waitFor(t, ctx, "a preview", fmt.Sprintf(`window.deltaclue.preview && window.deltaclue.runID > %d && document.getElementById("status").textContent.startsWith("Preview:")`, before), 30*time.Second)
				measureFirst(t, ctx).inView(t, when+" (the preview under way)", vp.W, vp.H, "#pad", "#status")
				answerShown(t, ctx, "the preview of stroke "+fmt.Sprint(i+1), true)
				v := measureFirst(t, ctx)
				if i == 0 {
					v.log(t, when)
				}
				v.inView(t, when, vp.W, vp.H, "#pad", "#sentence", "#cards > :first-child", "#status")
			}
			viewportShot(t, ctx, fmt.Sprintf("drawing-%d.png", vp.W))

			clickInView(t, ctx, "run")
			answerShown(t, ctx, "the drawing's full set", false)
			v = measureFirst(t, ctx)
			v.log(t, "after Explain")
			v.inView(t, "after Explain", vp.W, vp.H, answer...)
			viewportShot(t, ctx, fmt.Sprintf("first-viewport-%d.png", vp.W)) // the README's pictures
		})
	}
}

// viewportShot saves what the viewport shows, in the artifacts folder (and $E2E_DOCS, for the README's pictures).
func viewportShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	time.Sleep(150 * time.Millisecond) // the cards' canvases are drawn just after the render
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{artifacts(t), os.Getenv("E2E_DOCS")} {
		if dir == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshot: %s", filepath.Join(artifacts(t), name))
}

// TestBrowserFirstPaint: the HTML that go-app pre-renders, shown while app.wasm loads, is already the page: the
// pad, the Explain button and the answer's place are where the mounted page has them (nothing jumps when it
// mounts), on screen, not hidden behind a loading screen; at /repo/ and at the root. app.wasm is held back by the
// server until the first paint is measured.
func TestBrowserFirstPaint(t *testing.T) {
	chrome := findChrome(t)
	sites := []struct{ name, prefix, dir string }{{"subpath", "/repo", buildSite(t)}, {"root", "", buildSiteFor(t, "")}}
	for _, site := range sites {
		for _, vp := range firstViewports {
			t.Run(fmt.Sprintf("%s/%dx%d", site.name, vp.W, vp.H), func(t *testing.T) {
				gate := make(chan struct{})
				var once sync.Once
				open := func() { once.Do(func() { close(gate) }) }
				defer open()
				var files http.Handler = http.FileServer(http.Dir(site.dir))
				if site.prefix != "" {
					files = http.StripPrefix(site.prefix, files)
				}
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.HasSuffix(r.URL.Path, "/app.wasm") {
						select {
						case <-gate:
						case <-r.Context().Done():
							return
						}
					}
					files.ServeHTTP(w, r)
				}))
				defer srv.Close()
				ctx := browser(t, chrome)
				do(t, ctx, chromedp.EmulateViewport(vp.W, vp.H))
				do(t, ctx, chromedp.Navigate(srv.URL+site.prefix+"/"))
				waitFor(t, ctx, "the first paint", `document.getElementById("pad") && document.getElementById("app-wasm-loader") && document.readyState == "complete"`, 30*time.Second)
				first := measureFirst(t, ctx)
				first.log(t, "first paint")
				first.inView(t, "first paint (app.wasm not loaded)", vp.W, vp.H, "#pad", "#run")
				if b := first.Boxes["#sentence"]; b == nil {
					t.Error("first paint: the answer has no place yet (no #sentence)")
				}
				if site.prefix != "" {
					viewportShot(t, ctx, fmt.Sprintf("first-paint-%d.png", vp.W))
				}

				open()
				waitFor(t, ctx, "the mounted page", `window.deltaclue && !document.getElementById("app-wasm-loader")`, time.Minute)
				time.Sleep(300 * time.Millisecond) // the first renders after OnMount
				mounted := measureFirst(t, ctx)
				mounted.log(t, "mounted")
				if site.prefix != "" {
					viewportShot(t, ctx, fmt.Sprintf("mounted-%d.png", vp.W))
				}
				mounted.inView(t, "mounted", vp.W, vp.H, "#pad", "#run")
				for _, sel := range []string{"#pad", "#run", "#sentence"} {
					a, b := first.Boxes[sel], mounted.Boxes[sel]
					if a == nil || b == nil {
						continue
					}
					if d := max(abs(a.Top-b.Top), abs(a.Left-b.Left)); d > 1 {
						t.Errorf("%s moved when the page mounted: from (%.0f, %.0f) to (%.0f, %.0f)", sel, a.Left, a.Top, b.Left, b.Top)
					}
				}
			})
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestBrowserSearchSettingsFold: δ and n are at hand beside Explain; every other parameter is folded under Search
// settings, which the keyboard opens (Tab to it, Enter); a folded parameter that is refused opens the fold, so
// that its error is seen.
func TestBrowserSearchSettingsFold(t *testing.T) {
	chrome := findChrome(t)
	srv := serve(buildSite(t))
	defer srv.Close()
	ctx := browser(t, chrome)
	do(t, ctx, chromedp.EmulateViewport(390, 844))
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?workers=1"))
	waitFor(t, ctx, "the worker", `window.deltaclue && window.deltaclue.ready == 1`, time.Minute)
	// (A closed fold's content keeps its boxes in Chromium, under content-visibility: hidden: checkVisibility
	// tells.)
	shown := func(id string) bool {
		return eval[bool](t, ctx, fmt.Sprintf(`(() => { const e = document.getElementById(%q); const b = e.getBoundingClientRect();
			return e.checkVisibility() && b.top >= 0 && b.bottom <= innerHeight; })()`, id))
	}
	for _, id := range []string{"p-delta", "p-n", "run"} {
		if !shown(id) {
			t.Errorf("#%s is not at hand in the first screen", id)
		}
	}
	for _, id := range []string{"p-seed", "p-max_steps", "p-scheme", "p-workers"} {
		if shown(id) {
			t.Errorf("#%s is shown with the settings folded", id)
		}
	}

	// The keyboard: Tab from n reaches the fold's summary; Enter opens it.
	eval[bool](t, ctx, `(document.getElementById("p-n").focus(), true)`)
	do(t, ctx, chromedp.KeyEvent(kb.Tab))
	if f := eval[string](t, ctx, `document.activeElement.closest("#settings") ? document.activeElement.tagName : document.activeElement.id`); f != "SUMMARY" {
		t.Fatalf("Tab after n went to %q, not to the Search settings", f)
	}
	do(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, "the fold open", `document.getElementById("settings").open`, 5*time.Second)
	for _, id := range []string{"p-seed", "p-max_steps", "p-scheme"} {
		if !eval[bool](t, ctx, fmt.Sprintf(`document.getElementById(%q).checkVisibility()`, id)) {
			t.Errorf("#%s is not shown with the settings open", id)
		}
	}
	viewportShot(t, ctx, "settings-open-390.png")
	do(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, "the fold closed", `!document.getElementById("settings").open`, 5*time.Second)

	// A refused folded parameter opens the fold, its error beside it.
	setField(t, ctx, "max_steps", "many")
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!(document.getElementById("settings").open && document.getElementById("p-max_steps-error"))`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Logf("after the refused setting: %s", eval[string](t, ctx, `JSON.stringify({open: document.getElementById("settings").open,
			error: !!document.getElementById("p-max_steps-error"), value: document.getElementById("p-max_steps").value,
			invalid: document.getElementById("p-max_steps").getAttribute("aria-invalid"), run: document.getElementById("run").disabled})`))
	}
	waitFor(t, ctx, "the fold opened by the error", `document.getElementById("settings").open &&
		document.getElementById("p-max_steps-error") && document.getElementById("p-max_steps-error").checkVisibility()`, 5*time.Second)
	if !eval[bool](t, ctx, `document.getElementById("run").disabled`) {
		t.Error("Explain is enabled with a refused parameter")
	}
}

// TestBrowserEnginesFirstViewport: in Firefox and WebKitGTK (their fonts are wider than Chromium's, and
// Firefox's scroll bar takes room from the page), at both sizes, a link's pad, sentence and first card are on
// screen without scrolling. (Chromium: TestBrowserAnswerInFirstViewport, which sets its viewport exactly.)
// WebKit's window cannot be made as narrow as a phone, nor its viewport exactly as high as asked: the bounds are
// the viewport it has, which must be within the phone's layout.
func TestBrowserEnginesFirstViewport(t *testing.T) {
	srv := serve(buildSite(t))
	defer srv.Close()
	link := linkFor(t, 1735, clue.Defaults())
	for _, engine := range []string{drive.Firefox, drive.WebKit} {
		t.Run(engine, func(t *testing.T) {
			for _, vp := range firstViewports {
				t.Run(fmt.Sprintf("%dx%d", vp.W, vp.H), func(t *testing.T) {
					b := startEngineSized(t, engine, int(vp.W), int(vp.H))
					engineDo(t, b, "opening the link", func(ctx context.Context) error {
						return b.Navigate(ctx, srv.URL+"/repo/?workers=2#"+link)
					})
					engineWait(t, b, "the link's set on the page", `window.deltaclue && window.deltaclue.state == "done" && window.deltaclue.sentence != "" &&
						document.getElementById("sentence").textContent == window.deltaclue.sentence && document.querySelector("#cards > *")`, 4*time.Minute)
					v := engineEval[firstView](t, b, measureJS)
					v.log(t, fmt.Sprintf("%s, viewport %.0f×%.0f", b.Engine(), v.InnerW, v.InnerH))
					phone := vp.W < 700
					if v.InnerW < float64(vp.W) || v.InnerH > float64(vp.H) || v.InnerH < float64(vp.H)-100 || phone != (v.InnerW < 700) {
						t.Fatalf("%s: the viewport is %.0f×%.0f, too far from %d×%d", b.Engine(), v.InnerW, v.InnerH, vp.W, vp.H)
					}
					v.inView(t, b.Engine()+": the link's set", int64(v.InnerW), int64(v.InnerH), "#pad", "#sentence", "#cards > :first-child", "#run")
				})
			}
		})
	}
}
