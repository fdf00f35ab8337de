//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	drive "github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// hostPage is a page on another origin that embeds the explainer at site twice, as the snippet does (720 px high): "top" in view, and "below"
// 3000 px down. It logs every message a frame sends (window.heard) and can post to either (window.send).
const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body style="margin:0">
<iframe id="top" src="%[1]s?embed=1&amp;frame=top#%[2]s" style="width:760px;height:720px;border:0"></iframe>
<div style="height:3000px"></div>
<iframe id="below" src="%[1]s?embed=1&amp;frame=below" style="width:760px;height:720px;border:0"></iframe>
<script>
  window.heard = [];
  const frames = { top: document.getElementById("top"), below: document.getElementById("below") };
  window.addEventListener("message", (e) => {
    const from = Object.keys(frames).find((k) => frames[k].contentWindow === e.source) || "?";
    window.heard.push({ from, origin: e.origin, data: e.data });
  });
  window.send = (name, msg) => { frames[name].contentWindow.postMessage(msg, "*"); return true; };
  window.said = (name, type) => window.heard.filter((h) => h.from === name && h.data && h.data.type === type).map((h) => h.data);
</script></body></html>`

// embedLink is the test split and a link to test digit 1735 with 20 restarts, for the embeds to open.
func embedLink(t *testing.T) (*mnist.Set, string) {
	t.Helper()
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	fingerprint, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	p := clue.Defaults()
	p.N = 20
	return set, sharelink.Encode(sharelink.State{Image: sharelink.Quantize(set.Float(1735, nil)), Params: p, Model: fingerprint, Selected: sharelink.NoSelection})
}

// TestBrowserEmbed: a host page on another origin embeds two explainers. The one in view opens its link by
// itself and says ready and done; the one 3000 px down loads nothing of its program (app.wasm) until the host
// sends it a message. Junk messages of every kind get an error (those meant for the frame) or nothing (the rest),
// and the frame still explains a digit sent as 784 intensities; the done message carries the sentence, the
// label, the counts per label and a link that opens the set in the full explainer.
func TestBrowserEmbed(t *testing.T) {
	chrome := findChrome(t)
	set, link := embedLink(t)

	// The explainer's server counts who asked for app.wasm (by the asking frame's address).
	var mu sync.Mutex
	appFetches := map[string]int{}
	site := serve(buildSite(t))
	defer site.Close()
	counted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/app.wasm") {
			mu.Lock()
			appFetches[r.Referer()]++
			mu.Unlock()
		}
		site.Config.Handler.ServeHTTP(w, r)
	}))
	defer counted.Close()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, hostPage, counted.URL+"/repo/", link)
	}))
	defer host.Close()
	if strings.Split(host.URL, ":")[2] == strings.Split(counted.URL, ":")[2] {
		t.Fatal("the host and the explainer share an origin")
	}

	ctx := browser(t, chrome)
	do(t, ctx, chromedp.EmulateViewport(800, 700))
	do(t, ctx, chromedp.Navigate(host.URL+"/"))
	waitFor(t, ctx, "the top frame's ready", `window.said("top", "deltaclue:ready").length == 1`, time.Minute)
	done := waitFor(t, ctx, "the top frame's set", `window.said("top", "deltaclue:done")[0]`, time.Minute)
	var d struct {
		Type, Sentence, Link string
		Label                int
		Labels               []int
	}
	if err := json.Unmarshal([]byte(done), &d); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range d.Labels {
		sum += n
	}
	if d.Label != 7 || len(d.Labels) != 10 || sum == 0 || sum > 20 || !strings.HasPrefix(d.Sentence, "The model reads a 7") ||
		!strings.Contains(d.Link, "#v2.") || strings.Contains(d.Link, "embed=1") || !strings.HasPrefix(d.Link, counted.URL+"/repo/?frame=top#") {
		t.Errorf("the done message: %s", done)
	}
	t.Logf("top frame: %s", done)

	// The frame below has loaded its page but none of its program, and said nothing.
	time.Sleep(1500 * time.Millisecond)
	mu.Lock()
	below := 0
	for ref, n := range appFetches {
		if strings.Contains(ref, "frame=below") {
			below += n
		}
	}
	fetches := fmt.Sprint(appFetches)
	mu.Unlock()
	if n := eval[int](t, ctx, `window.heard.filter((h) => h.from == "below").length`); n != 0 || below != 0 {
		t.Errorf("the frame out of view sent %d messages and fetched app.wasm %d times (%s): want nothing until seen or asked", n, below, fetches)
	}

	// Junk, then a digit: sent to the frame below, which the first message wakes.
	junk := []string{`"hello"`, `42`, `null`, `[1,2,3]`, `{"type": 7}`, `{"type": "other:thing"}`, `{"type": "deltaclue:done", "sentence": "echo"}`,
		`{"type": "deltaclue:open", "id": "no-link"}`, `{"type": "deltaclue:open", "link": "#v2.garbage", "id": "bad-link"}`,
		`{"type": "deltaclue:digit", "pixels": [1, 2, 3], "id": "short"}`, `{"type": "deltaclue:digit", "pixels": new Array(784).fill(200), "id": "bytes"}`,
		`{"type": "deltaclue:digit", "pixels": new Array(784).fill(0), "id": "empty"}`, `{"type": "deltaclue:explode", "id": "unknown"}`,
		`{"type": "deltaclue:open", "link": "x".repeat(70000), "id": "huge"}`, `{"type": "deltaclue:digit", "pixels": new Array(784).fill(0.5), "id": {"no": 1}}`}
	for _, j := range junk {
		eval[bool](t, ctx, `window.send("below", `+j+`)`)
	}
	errs := waitFor(t, ctx, "the errors", `window.said("below", "deltaclue:error").length >= 8 && window.said("below", "deltaclue:error")`, time.Minute)
	var got []struct {
		ID     any
		Reason string
	}
	json.Unmarshal([]byte(errs), &got)
	ids := map[string]string{}
	for _, e := range got {
		ids[fmt.Sprint(e.ID)] = e.Reason
	}
	for _, id := range []string{"no-link", "bad-link", "short", "bytes", "empty", "unknown"} {
		if ids[id] == "" {
			t.Errorf("no error came back for %q (errors: %s)", id, errs)
		}
	}
	if !strings.Contains(errs, "at most 65536") || !strings.Contains(errs, "its id must be") { // their ids are not read
		t.Errorf("no error came back for the message too large, or the one with an object for an id: %s", errs)
	}
	t.Logf("errors: %s", errs)
	px, _ := json.Marshal(set.Float(1797, nil))
	eval[bool](t, ctx, `window.send("below", {type: "deltaclue:digit", pixels: `+string(px)+`, id: 1797})`)
	done2 := waitFor(t, ctx, "the digit's set", `window.said("below", "deltaclue:done").find((d) => d.id === 1797)`, 2*time.Minute)
	if !strings.Contains(done2, `"sentence":"The model reads`) || eval[int](t, ctx, `window.said("below", "deltaclue:ready").length`) != 1 {
		t.Errorf("the digit's done message: %s", done2)
	}
	t.Logf("below, after junk: %s", done2)

	// The compact layout itself, opened as the frame is (its own address, at a frame's size), with every Worker
	// the page makes noted by name.
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `{
		const W = window.Worker; window.__workers = [];
		window.Worker = function (url, opts) { window.__workers.push((opts && opts.name) || String(url)); return new W(url, opts); };
		window.Worker.prototype = W.prototype; }`}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.EmulateViewport(760, 720))
	do(t, ctx, chromedp.Navigate(counted.URL+"/repo/?embed=1#"+link))
	waitFor(t, ctx, "the set", `window.deltaclue && window.deltaclue.state == "done" && window.deltaclue.painted`, time.Minute)
	for _, id := range []string{"results", "sweep", "global", "copy-link"} {
		if eval[bool](t, ctx, `!!document.getElementById("`+id+`") && document.getElementById("`+id+`").offsetParent !== null`) {
			t.Errorf("#%s is shown in the compact layout", id)
		}
	}
	for _, id := range []string{"pad", "pred-label", "sentence", "open-full"} {
		if r := eval[float64](t, ctx, `(() => { const e = document.getElementById("`+id+`"); return e ? e.getBoundingClientRect().bottom : -1; })()`); r < 0 || r > 720 {
			t.Errorf("#%s ends at %v px: want it within the frame's 720 px (the snippet's height)", id, r)
		}
	}
	if w := eval[int](t, ctx, `window.deltaclue.workers`); w != 1 {
		t.Errorf("%d workers in an embed: want 1 unless ?workers= asks", w)
	}
	// Its Workers, counted as the page makes them: the one search worker, no summary worker.
	if workers := eval[[]string](t, ctx, `window.__workers`); len(workers) != 1 {
		t.Errorf("the embed made the Workers %q: want one search worker", workers)
	}
	viewportShot(t, ctx, "embed-760.png")
	do(t, ctx, chromedp.EmulateViewport(390, 720)) // a phone's width: one column, nothing wider than the frame
	time.Sleep(200 * time.Millisecond)
	if w := eval[float64](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("the compact layout is %v px wide in a 390 px frame", w)
	}
	viewportShot(t, ctx, "embed-390.png")

	// The full page's Embed fold gives the snippet for the page as it is.
	do(t, ctx, chromedp.EmulateViewport(1280, 900))
	do(t, ctx, chromedp.Navigate(counted.URL+"/repo/?workers=1#"+link))
	waitFor(t, ctx, "the set", `window.deltaclue && window.deltaclue.state == "done" && window.deltaclue.painted`, time.Minute)
	eval[bool](t, ctx, `(() => { const d = document.getElementById("embed"); d.open = true; d.scrollIntoView({block: "center"}); return true; })()`)
	var snippet string
	json.Unmarshal([]byte(waitFor(t, ctx, "the snippet", `document.getElementById("embed-snippet").value`, 5*time.Second)), &snippet)
	if want := `src="` + counted.URL + `/repo/?embed=1#` + link + `"`; !strings.Contains(snippet, want) {
		t.Errorf("the snippet %s does not embed the page's state (%s)", snippet, want)
	}
	viewportShot(t, ctx, "embed-fold.png")

	// The example host page the site ships: its second explainer, driven by its buttons, answers in its log.
	do(t, ctx, chromedp.Navigate(counted.URL+"/repo/embed-example.html"))
	eval[bool](t, ctx, `(() => { document.getElementById("second").scrollIntoView(); return true; })()`)
	waitFor(t, ctx, "the example's second frame", `document.getElementById("log").textContent.includes("deltaclue:ready")`, time.Minute)
	eval[bool](t, ctx, `(() => { document.getElementById("send-digit").click(); return true; })()`)
	waitFor(t, ctx, "the example's log", `document.getElementById("log").textContent.includes("done (digit 1797): The model reads")`, time.Minute)
	eval[bool](t, ctx, `(() => { document.getElementById("send-link").click(); return true; })()`)
	waitFor(t, ctx, "the example's link", `document.getElementById("log").textContent.includes("done (digit 661): The model reads")`, time.Minute)
	viewportShot(t, ctx, "embed-example.png")
}

// TestBrowserEnginesEmbed, in Chromium, Firefox and WebKitGTK, with the explainer at /repo/ and at the root: a
// host page on another origin embeds it; the frame in view opens its link and says done; the frame out of view,
// sent junk and then a digit, answers the malformed messages with errors and explains the digit.
func TestBrowserEnginesEmbed(t *testing.T) {
	set, link := embedLink(t)
	px, _ := json.Marshal(set.Float(1797, nil))
	sites := []struct{ name, repo, prefix string }{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	dirs := map[string]string{"repo": buildSite(t), "": buildSiteFor(t, "")}
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			b := startEngineSized(t, engine, 800, 700)
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveAt(dirs[site.repo], site.prefix)
					defer srv.Close()
					host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						w.Header().Set("Content-Type", "text/html; charset=utf-8")
						fmt.Fprintf(w, hostPage, srv.URL+site.prefix+"/", link)
					}))
					defer host.Close()
					name := b.Engine() + " at " + site.prefix + "/"
					engineDo(t, b, "opening the host page", func(ctx context.Context) error { return b.Navigate(ctx, host.URL+"/") })
					done := engineWait(t, b, "the frame's set", `window.said("top", "deltaclue:done")[0]`, 2*time.Minute)
					if !strings.Contains(string(done), `"label":7`) || !strings.Contains(string(done), "The model reads a 7") {
						t.Errorf("%s: the done message %s", name, done)
					}
					if n := engineEval[int](t, b, `window.heard.filter((h) => h.from == "below").length`); n != 0 {
						t.Errorf("%s: the frame out of view said %d things before it was asked", name, n)
					}
					engineEval[bool](t, b, `window.send("below", {type: "deltaclue:digit", pixels: [1, 2], id: "short"}) && window.send("below", "junk") && window.send("below", {type: "deltaclue:nope", id: 2})`)
					errs := engineWait(t, b, "the errors", `window.said("below", "deltaclue:error").length == 2 && window.said("below", "deltaclue:error")`, time.Minute)
					engineEval[bool](t, b, `window.send("below", {type: "deltaclue:digit", pixels: new Float32Array(`+string(px)+`), id: 1797})`)
					done2 := engineWait(t, b, "the digit's set", `window.said("below", "deltaclue:done").find((d) => d.id === 1797)`, 2*time.Minute)
					if !strings.Contains(string(done2), `"label":8`) || !strings.Contains(string(errs), `"short"`) {
						t.Errorf("%s: errors %s; the digit's done message %s", name, errs, done2)
					}
					t.Logf("%s: the frame in view said done; the one out of view answered 2 errors and explained test digit 1797 (read as 8)", name)
				})
			}
		})
	}
}
