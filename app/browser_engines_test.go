//go:build !js

package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	drive "github.com/deltaclue/deltaclue/internal/browser" // "browser" is this package's Chromium helper
	"github.com/deltaclue/deltaclue/mnist"
)

// The end-to-end test in every engine: Chromium, Firefox and WebKitGTK (Safari's engine), driven through
// internal/browser with real input events, on the site built for /repo/ and for the root.

// startEngine starts a browser of an engine with a fresh profile, closed when the test ends. A missing engine
// skips the test loudly, and fails it under CI=true. $E2E_ENGINES (e.g. "firefox,webkit") limits the engines,
// to iterate fast.
func startEngine(t *testing.T, engine string) drive.Browser {
	t.Helper()
	return startEngineSized(t, engine, 1280, 1800)
}

// startEngineSized is startEngine with a viewport of w × h CSS pixels.
func startEngineSized(t *testing.T, engine string, w, h int) drive.Browser {
	t.Helper()
	return startEngineWith(t, engine, drive.Options{Width: w, Height: h})
}

// startEngineWith is startEngine with the options given (the page's errors go to the test's log).
func startEngineWith(t *testing.T, engine string, o drive.Options) drive.Browser {
	t.Helper()
	if only := os.Getenv("E2E_ENGINES"); only != "" && !slices.Contains(strings.Split(only, ","), engine) {
		t.Skipf("skipping %s: E2E_ENGINES=%s", engine, only)
	}
	if err := drive.Installed(engine); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI=true: the end-to-end test must run in every engine in CI (.ci/run installs them)", err)
		}
		t.Skipf("SKIPPING the end-to-end test in %s: %v", engine, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The page's errors, each cut short and at most 20 of them: a broken resource repeats itself.
	var mu sync.Mutex
	logged := 0
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if logged++; logged <= 20 {
			msg := fmt.Sprintf(format, args...)
			if len(msg) > 300 {
				msg = msg[:300] + "…"
			}
			t.Logf("%s: %s", engine, msg)
		} else if logged == 21 {
			t.Logf("%s: (more page errors are not shown)", engine)
		}
	}
	o.Logf = logf
	b, err := drive.Start(ctx, engine, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// engineWait waits for a JavaScript expression to be truthy and returns its value as JSON.
func engineWait(t *testing.T, b drive.Browser, what, expr string, timeout time.Duration) json.RawMessage {
	t.Helper()
	v, err := drive.WaitFor(context.Background(), b, expr, timeout, 25*time.Millisecond)
	if err != nil {
		var state string
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b.Eval(ctx, `JSON.stringify(Object.assign({}, window.deltaclue || {}, {report: undefined, trajectory: undefined, cards: undefined, link: undefined})) + " at " + location.href`, &state)
		t.Fatalf("%s: waiting for %s: %v (page state %s)", b.Engine(), what, err, state)
	}
	return v
}

// engineEval evaluates a JavaScript expression and decodes its value into a T.
func engineEval[T any](t *testing.T, b drive.Browser, expr string) T {
	t.Helper()
	var v T
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.Eval(ctx, expr, &v); err != nil {
		t.Fatalf("%s: %s: %v", b.Engine(), expr, err)
	}
	return v
}

func engineDo(t *testing.T, b drive.Browser, what string, f func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := f(ctx); err != nil {
		t.Fatalf("%s: %s: %v", b.Engine(), what, err)
	}
}

// fourStrokes draw a 4 whose top is nearly closed, a 4 that could be a 9 (drawFour's strokes), in pad pixels.
var fourStrokes = [][][2]float64{
	{{95, 50}, {85, 90}, {78, 130}, {90, 150}, {150, 150}, {190, 148}},
	{{180, 45}, {182, 110}, {184, 170}, {186, 240}},
	{{95, 52}, {136, 48}},
}

// engineDraw draws the strokes on the pad with the mouse.
func engineDraw(t *testing.T, b drive.Browser, strokes [][][2]float64) {
	t.Helper()
	for _, s := range strokes {
		r := engineEval[rect](t, b, `(() => { const p = document.getElementById("pad"); p.scrollIntoView({block: "center"});
			const b = p.getBoundingClientRect(); return {X: b.x, Y: b.y}; })()`)
		pts := make([]drive.Point, len(s))
		for i, p := range s {
			pts[i] = drive.Point{X: r.X + p[0], Y: r.Y + p[1]}
		}
		engineDo(t, b, "drawing a stroke", func(ctx context.Context) error { return b.Stroke(ctx, pts) })
	}
}

// engineClick clicks an element with the mouse, at its centre, once it is enabled, in view and still. A page still
// laying out what it just got (a finished set's figures, drawn in later frames, above the element) can move it
// between the aim and the press: so the page notes a click that reaches the element, and one that did not (it
// landed on whatever moved under the pointer) is aimed again, up to three times.
// engineExplain clicks Explain and, when the page asks first (a search it estimates above 10 s on this device: a
// slow engine on a busy machine, or a ResNet), runs the search as it is, as a visitor would.
func engineExplain(t *testing.T, b drive.Browser, name string) {
	t.Helper()
	before := engineEval[int](t, b, `window.deltaclue.runID`)
	engineClick(t, b, "run")
	engineWait(t, b, "the search, or the page's question", fmt.Sprintf(`!!document.getElementById("costly-run") || window.deltaclue.runID > %d`, before), time.Minute)
	if asked := engineEval[string](t, b, `(() => { const r = document.getElementById("costly-run"); if (!r) return "";
		const q = document.getElementById("costly-text").textContent; r.click(); return q; })()`); asked != "" {
		t.Logf("%s: the page asked first: %s", name, asked)
	}
}

func engineClick(t *testing.T, b drive.Browser, id string) {
	t.Helper()
	engineWait(t, b, "#"+id+" enabled", fmt.Sprintf(`document.getElementById(%q) && !document.getElementById(%q).disabled`, id, id), 30*time.Second)
	for try := 1; ; try++ {
		// In view, and still for 8 polls (200 ms); armed to note the click that reaches it.
		r := engineWait(t, b, "#"+id+" in view and still", fmt.Sprintf(`(() => {
			const e = document.getElementById(%[1]q); if (!e) return false;
			let b = e.getBoundingClientRect();
			if (b.top < 0 || b.bottom > innerHeight) { e.scrollIntoView({block: "center"}); b = e.getBoundingClientRect(); }
			const at = b.x + "," + b.y + "," + scrollY, s = window.__still = window.__still || {};
			s[%[1]q] = s[%[1]q] && s[%[1]q].at == at ? {at, n: s[%[1]q].n + 1} : {at, n: 0};
			if (s[%[1]q].n < 8) return false;
			window.__clicked = window.__clicked || {};
			window.__clicked[%[1]q] = false;
			// On the document, by id: go-app may have put a new element in its place by the time it is clicked.
			document.addEventListener("click", (ev) => { if (ev.target.closest && ev.target.closest("#" + CSS.escape(%[1]q))) window.__clicked[%[1]q] = true; }, {capture: true});
			return {X: b.x + b.width / 2, Y: b.y + b.height / 2};
		})()`, id), 30*time.Second)
		var centre rect
		if err := json.Unmarshal(r, &centre); err != nil {
			t.Fatalf("%s: #%s: %v", b.Engine(), id, err)
		}
		engineDo(t, b, "clicking #"+id, func(ctx context.Context) error { return b.Stroke(ctx, []drive.Point{{X: centre.X, Y: centre.Y}}) })
		if engineEval[bool](t, b, fmt.Sprintf(`window.__clicked[%q]`, id)) {
			return
		}
		hit := engineEval[string](t, b, fmt.Sprintf(`(() => { const e = document.elementFromPoint(%v, %v); return e ? (e.id || e.tagName) : "nothing"; })()`, centre.X, centre.Y))
		if try == 3 {
			t.Fatalf("%s: three clicks aimed at #%s reached %s instead", b.Engine(), id, hit)
		}
		t.Logf("%s: the click aimed at #%s reached %s (the page moved): aiming again", b.Engine(), id, hit)
	}
}

// enginePageRun is a finished set as the page shows it, with the page's clock.
type enginePageRun struct {
	Report    clue.Report
	Link      string
	ElapsedMs float64 // Explain (or the link's opening) → the finished set
	ReadyMs   float64 // navigation → every worker ready
	Restarted int     // workers the page took for dead and replaced
}

// engineFinished waits for the page's set to finish and reads it.
func engineFinished(t *testing.T, b drive.Browser, what string) enginePageRun {
	t.Helper()
	engineWait(t, b, what, `window.deltaclue && !window.deltaclue.preview && window.deltaclue.state == "done" && window.deltaclue.report`, 4*time.Minute)
	type state struct {
		Report, Link     string
		ElapsedMs, Ready float64
		Restarted        int
	}
	st := engineEval[state](t, b, `({report: window.deltaclue.report, link: location.href, elapsedMs: window.deltaclue.elapsedMs,
		ready: window.deltaclue.timing.ready, restarted: window.deltaclue.restarted})`)
	var run enginePageRun
	if err := json.Unmarshal([]byte(st.Report), &run.Report); err != nil {
		t.Fatalf("%s: the page's report: %v", b.Engine(), err)
	}
	run.Link, run.ElapsedMs, run.ReadyMs, run.Restarted = st.Link, st.ElapsedMs, st.Ready, st.Restarted
	if run.Restarted > 0 {
		t.Logf("%s: %s: the page replaced workers it took for dead %d times", b.Engine(), what, run.Restarted)
	}
	return run
}

// nativeSets memoises the native engine's set per share link: every engine's drawing, at either address, may
// give the same image.
var nativeSets = struct {
	sync.Mutex
	m map[string]nativeSet
}{m: map[string]nativeSet{}}

type nativeSet struct {
	exps []clue.Explanation
	sum  clue.Summary
}

// sameAsNative checks a page's set and its summary against the native engine's, bit for bit.
func sameAsNative(t *testing.T, engine string, run enginePageRun) {
	t.Helper()
	_, frag, _ := strings.Cut(run.Link, "#")
	nativeSets.Lock()
	n, ok := nativeSets.m[frag]
	nativeSets.Unlock()
	if !ok {
		n.exps, n.sum = nativeReport(t, run.Link)
		nativeSets.Lock()
		nativeSets.m[frag] = n
		nativeSets.Unlock()
	}
	sameSet(t, engine+": the page's set against the native engine's", run.Report.Explanations, n.exps)
	sameJSON(t, engine+": set summaries", run.Report.Summary, n.sum)
}

// sameSet checks that two sets are equal bit for bit, and says where they first differ if not.
func sameSet(t *testing.T, what string, got, want []clue.Explanation) bool {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d explanations, want %d", what, len(got), len(want))
		return false
	}
	differ := 0
	first := ""
	for i := range got {
		a, _ := json.Marshal(got[i])
		b, _ := json.Marshal(want[i])
		if string(a) == string(b) {
			continue
		}
		if differ++; differ > 1 {
			continue
		}
		var ma, mb map[string]any
		json.Unmarshal(a, &ma)
		json.Unmarshal(b, &mb)
		var fields []string
		for k := range mb {
			x, _ := json.Marshal(ma[k])
			y, _ := json.Marshal(mb[k])
			if string(x) != string(y) {
				fields = append(fields, fmt.Sprintf("%s %.80s vs %.80s", k, x, y))
			}
		}
		slices.Sort(fields)
		first = fmt.Sprintf("restart %d differs in %s", i, strings.Join(fields, "; "))
	}
	if differ > 0 {
		t.Errorf("%s: %d of %d explanations differ; the first: %s", what, differ, len(got), first)
		return false
	}
	return true
}

// engineCached waits until the service worker controls the page and its cache holds every file of the build
// that the page needs, the large ones included (as waitCached).
func engineCached(t *testing.T, b drive.Browser) {
	t.Helper()
	engineWait(t, b, "the service worker's cache (the page must work offline)", `(async () => {
		if (!navigator.serviceWorker || !navigator.serviceWorker.controller) return false;
		const keys = await caches.keys();
		const key = keys.find(k => k.startsWith("app-"));
		if (!key) return false;
		const urls = (await (await caches.open(key)).keys()).map(r => new URL(r.url).pathname);
		const need = ["web/app.wasm", "web/worker.wasm", "web/matmul.wasm", "web/models.bin", "web/worker.js", "web/loader.js"];
		return need.every(n => urls.some(u => u.endsWith(n))) && urls.length;
	})()`, time.Minute)
}

// TestBrowserEngines, in Chromium, Firefox and WebKitGTK, at /repo/ and at the root: open the page, draw a
// digit with the mouse, press Explain, and get the native engine's set bit for bit; open the page's link in a
// fresh browser, and get the same set; take the server away, reload, and get the same set again from the
// service worker's cache. One browser per engine does the drawing and the offline reload at both addresses,
// a second one (fresh: it has never seen either site) opens the links.
func TestBrowserEngines(t *testing.T) {
	sites := []struct{ name, repo, prefix string }{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	dirs := map[string]string{"repo": buildSite(t), "": buildSiteFor(t, "")}
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			page := startEngine(t, engine)
			fresh := startEngine(t, engine) // opens the links: it has never seen either site
			t.Logf("%s", page.Engine())
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveAt(dirs[site.repo], site.prefix)
					defer srv.Close()
					name := page.Engine() + " at " + site.prefix + "/"

					// Open, draw, explain: the native engine's set.
					engineDo(t, page, "opening the page", func(ctx context.Context) error {
						return page.Navigate(ctx, srv.URL+site.prefix+"/?workers=2")
					})
					engineWait(t, page, "2 workers", `window.deltaclue && window.deltaclue.ready == 2`, 2*time.Minute)
					ready := engineEval[float64](t, page, `window.deltaclue.timing.ready`)
					engineDraw(t, page, fourStrokes)
					engineWait(t, page, "the model's view", `document.getElementById("pred-label")`, 30*time.Second)
					lit := engineEval[int](t, page, `(() => { const d = document.getElementById("pad").getContext("2d").getImageData(0, 0, 280, 280).data;
						let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] > 128) n++; return n; })()`)
					if lit < 2000 {
						t.Fatalf("%s: the drawing left only %d lit pixels on the pad", name, lit)
					}
					// GLAM-CLUE's amortised answers were drawn after the strokes (the preview's cards have replaced them since).
					am := engineWait(t, page, "the amortised answers", `window.deltaclue.amortised.shown > 0 && window.deltaclue.amortised`, 30*time.Second)
					t.Logf("%s: amortised answers after the last stroke: %s", name, am)
					engineExplain(t, page, name)
					drawn := engineFinished(t, page, "the drawn digit's set")
					if len(drawn.Report.Explanations) != 100 || !strings.Contains(drawn.Link, "#v2.") {
						t.Fatalf("%s: the page's set has %d explanations; its link is %q", name, len(drawn.Report.Explanations), drawn.Link)
					}
					sameAsNative(t, name, drawn)
					t.Logf("%s: workers ready %.0f ms after navigation; drawn digit read as %d, set of 100 in %.0f ms, equal to the native set",
						name, ready, drawn.Report.Label, drawn.ElapsedMs)
					engineCached(t, page)
					if note := engineEval[string](t, page, `document.getElementById("offline-note") ? document.getElementById("offline-note").textContent : ""`); note != (offlineUse{Known: true}).Sentence() {
						t.Errorf("%s: the page kept for offline use says %q of it", name, note)
					}
					// The global view: its groups, and a group's members (fetched now, so kept for offline use).
					engineClick(t, page, "global-load")
					engineWait(t, page, "the global view's groups", `document.querySelectorAll("#global .group").length == 56`, 30*time.Second)
					engineClick(t, page, "group-7-2")
					engineWait(t, page, "group 7 → 2's members", `document.getElementById("global-members-title") && document.getElementById("global-members-title").textContent.startsWith("Group 7 → 2:") && document.querySelectorAll("#global-members .member").length == 6`, 10*time.Second)

					// The link in a fresh browser.
					engineDo(t, fresh, "opening the link in a fresh browser", func(ctx context.Context) error { return fresh.Navigate(ctx, drawn.Link) })
					shared := engineFinished(t, fresh, "the link's set")
					same := sameSet(t, name+": the link's set in a fresh browser", shared.Report.Explanations, drawn.Report.Explanations)
					sameJSON(t, name+": the link's summary in a fresh browser", shared.Report.Summary, drawn.Report.Summary)
					t.Logf("%s: the link in a fresh browser: workers ready %.0f ms after navigation, its set in %.0f ms (the same: %v)",
						name, shared.ReadyMs, shared.ElapsedMs, same)
					// Its downloads, as the CLI makes them from the same link. (In the page that drew the digit, the
					// summary's title and the JSON's input say "a drawing", which a link cannot tell the CLI.)
					engineDownloads(t, fresh, name)

					// The server gone: a reload opens the link from the service worker's cache.
					srv.Close()
					engineDo(t, page, "reloading with the server gone", func(ctx context.Context) error { return page.Reload(ctx) })
					offline := engineFinished(t, page, "the link's set offline")
					same = sameSet(t, name+": the link's set offline", offline.Report.Explanations, drawn.Report.Explanations)
					sameJSON(t, name+": the link's summary offline", offline.Report.Summary, drawn.Report.Summary)
					t.Logf("%s: offline reload: workers ready %.0f ms after navigation, the set in %.0f ms (the same: %v)", name, offline.ReadyMs, offline.ElapsedMs, same)

					// Offline, the global view still opens (from the service worker's cache), and a member opens as the input.
					engineClick(t, page, "global-load")
					engineWait(t, page, "the global view's groups offline", `document.querySelectorAll("#global .group").length == 56`, 30*time.Second)
					engineClick(t, page, "group-7-2")
					engineWait(t, page, "group 7 → 2's members offline", `document.querySelectorAll("#global-members .member").length == 6`, 10*time.Second)
					engineClick(t, page, "member-1735")
					engineWait(t, page, "a member as the input", fmt.Sprintf(`location.hash != %q && document.activeElement.id == "answer"`, drawn.Link[strings.Index(drawn.Link, "#"):]), 30*time.Second)
					if link, err := sharelink.Decode(engineEval[string](t, page, `location.href`)); err != nil || !bytes.Equal(link.Image[:], heldOut(t).Image(1735)) {
						t.Errorf("%s: after choosing member 1735 offline the link does not hold test digit 1735 (%v)", name, err)
					}
				})
			}
		})
	}
}

// engineDownloads sweeps two radii of the page's set and presses every download button of the set and the sweep
// with the mouse: the bytes the page hands the browser to save (an <a download> it clicks; the test takes them
// from there rather than from the browser's download folder, which WebDriver does not reach) are what
// `deltaclue explain -link` and `deltaclue sweep -link` write for the page's link.
func engineDownloads(t *testing.T, b drive.Browser, name string) {
	t.Helper()
	engineEval[bool](t, b, `(() => {
		window.__downloads = {};
		const click = HTMLAnchorElement.prototype.click;
		HTMLAnchorElement.prototype.click = function () {
			if (!this.download) return click.call(this);
			window.__downloads.last = {name: this.download, href: this.href};
		};
		for (const [id, v] of [["sweep-radii", "1, 2"], ["sweep-n", "10"]]) {
			const el = document.getElementById(id); el.value = v; el.dispatchEvent(new Event("change", {bubbles: true}));
		}
		return true; })()`)
	engineClick(t, b, "sweep-run")
	engineWait(t, b, "the sweep", `!document.getElementById("download-sweep").disabled && window.deltaclue.state == "done"`, 2*time.Minute)
	link := engineEval[string](t, b, `location.href`)
	cli := cliOutputs(t, link, true)
	download := func(id string) []byte {
		t.Helper()
		engineClick(t, b, id)
		got := engineWait(t, b, "#"+id+"'s file", `window.__downloads.last && (async () => {
			const d = window.__downloads.last; window.__downloads.last = null;
			const bytes = new Uint8Array(await (await fetch(d.href)).arrayBuffer());
			let s = "";
			for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
			return {name: d.name, b64: btoa(s)};
		})()`, 30*time.Second)
		var f struct{ Name, B64 string }
		if err := json.Unmarshal(got, &f); err != nil {
			t.Fatalf("%s: #%s: %v", name, id, err)
		}
		data, err := base64.StdEncoding.DecodeString(f.B64)
		if err != nil {
			t.Fatalf("%s: #%s: %v", name, id, err)
		}
		t.Logf("%s: #%s gave %s (%d bytes)", name, id, f.Name, len(data))
		return data
	}
	sameAsCLI(t, name, cli, download, true)
}

// heldOut is the shipped test split.
func heldOut(t *testing.T) *mnist.Set {
	t.Helper()
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	return set
}
