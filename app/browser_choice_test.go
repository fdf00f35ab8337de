//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	drive "github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/internal/modelsource"
)

// fashionLink is a share link for the Fashion models: the test item they are least sure of among the first 40,
// a small search (n = 16, 40 steps); and the native engine's set for it.
func fashionLink(t *testing.T) (*modelsource.Models, string, []clue.Explanation) {
	t.Helper()
	fashion, err := modelsource.Open("fashion")
	if err != nil {
		t.Fatal(err)
	}
	m, err := clue.LoadBundle(fashion.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	d := fashion.Description()
	x := make([]float32, d.Input.Size())
	best, bestH := 0, float32(-1)
	for i := 0; i < 40; i++ {
		fashion.Test.Float(i, x)
		if h := m.BNN.Classify(x)[0].Total; h > bestH {
			best, bestH = i, h
		}
	}
	fashion.Test.Float(best, x)
	s := sharelink.State{Models: d.Name, Model: fashion.Bundle.Fingerprint(), Height: d.Input.Height, Width: d.Input.Width,
		Channels: d.Input.Channels, Image: sharelink.Quantize(x), Params: clue.Defaults(), Selected: sharelink.NoSelection}
	s.Params.N, s.Params.MaxSteps = 16, 40
	link := sharelink.Encode(s)
	prob, err := clue.NewProblem(m, s.Float())
	if err != nil {
		t.Fatal(err)
	}
	native, err := clue.Search(context.Background(), prob, s.Params, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	clue.Summarize(prob.X0, prob.Z0, m.BNN.Classes, s.Params, native)
	return fashion, link, native
}

// TestBrowserFashionScreenshots: the README's pictures of the Fashion page, at 1280×800 and 390×844, after a
// Fashion link's set (the page's default search) has come: the garment, the model's view and the answer on the
// first screen, as the digits' are (E2E_DOCS=docs/screenshots writes them there).
func TestBrowserFashionScreenshots(t *testing.T) {
	chrome := findChrome(t)
	fashion, _, _ := fashionLink(t)
	m, err := clue.LoadBundle(fashion.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, fashion.Description().Input.Size())
	items := clue.MostUncertain(m.BNN, func() []float32 {
		all := make([]float32, 0, fashion.Test.Len()*len(x))
		for i := 0; i < fashion.Test.Len(); i++ {
			all = append(all, fashion.Test.Float(i, x)...)
		}
		return all
	}(), 1)
	fashion.Test.Float(items[0], x)
	d := fashion.Description()
	link := sharelink.Encode(sharelink.State{Models: d.Name, Model: fashion.Bundle.Fingerprint(), Height: d.Input.Height, Width: d.Input.Width,
		Channels: d.Input.Channels, Image: sharelink.Quantize(x), Params: clue.Defaults(), Selected: sharelink.NoSelection})
	srv := serve(buildSite(t))
	defer srv.Close()
	for _, vp := range firstViewports {
		t.Run(fmt.Sprintf("%dx%d", vp.W, vp.H), func(t *testing.T) {
			ctx := browser(t, chrome)
			do(t, ctx, chromedp.EmulateViewport(vp.W, vp.H))
			do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?models=fashion&workers=2#"+link))
			answerShown(t, ctx, "the Fashion link's set", false)
			v := measureFirst(t, ctx)
			v.inView(t, "the Fashion link's set", vp.W, vp.H, "#sentence", "#cards > :first-child", "#run")
			viewportShot(t, ctx, fmt.Sprintf("fashion-%d.png", vp.W))
		})
	}
}

// TestBrowserModelChoice, in Chromium, Firefox and WebKitGTK, at /repo/ and at the root, on the site as `make
// serve` builds it (the digits, Fashion-MNIST's clothes and the credit applicants): the first screen offers the
// three, the digits' marked as the page's; following Fashion loads the page for the clothes, which fetches Fashion's worker and
// bundle and not the digits', speaks of garments, offers the uncertain garments first and reads a picked one in
// the classes' names; a Fashion link opened at the site's plain address moves to the Fashion page and gives the
// native engine's set, bit for bit; an address naming models the site does not serve says so in one sentence
// and runs the digits; and with the server gone, the Fashion page visited once opens its link again.
func TestBrowserModelChoice(t *testing.T) {
	fashion, link, native := fashionLink(t)
	d := fashion.Description()

	sites := []struct{ name, repo, prefix string }{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	dirs := map[string]string{"repo": buildSite(t), "": buildSiteFor(t, "")}
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			br := startEngineWith(t, engine, drive.Options{Width: 1280, Height: 1000})
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveAt(dirs[site.repo], site.prefix)
					defer srv.Close()
					page := srv.URL + site.prefix + "/"
					name := br.Engine() + " at " + site.prefix + "/"

					// The digits' page offers both models.
					engineDo(t, br, "opening the page", func(ctx context.Context) error { return br.Navigate(ctx, page) })
					engineWait(t, br, "the workers", `window.deltaclue && window.deltaclue.ready > 0`, 2*time.Minute)
					type choice struct {
						Items   []string
						Current string
						Heading string
					}
					look := func() choice {
						return engineEval[choice](t, br, `({items: [...document.querySelectorAll("#models-choice a")].map((a) => a.textContent),
							current: (document.querySelector("#models-choice [aria-current=page]") || {}).textContent || "",
							heading: document.querySelector("#digit h2").textContent})`)
					}
					if got := look(); !slices.Equal(got.Items, []string{"Digits", "Fashion", "Credit"}) || got.Current != "Digits" || got.Heading != "1 · Your digit" {
						t.Errorf("%s: the digits' page shows %+v: want the choice Digits (current), Fashion and Credit", name, got)
					}

					// Following Fashion loads the page for the clothes.
					engineEval[bool](t, br, `(document.querySelector("#models-choice a:not([aria-current])").click(), true)`)
					engineWait(t, br, "the Fashion page", `location.search == "?models=fashion" && window.deltaclue && window.deltaclue.ready > 0`, 2*time.Minute)
					if got := look(); got.Current != "Fashion" || got.Heading != "1 · Your garment" {
						t.Errorf("%s: the Fashion page shows %+v", name, got)
					}
					type files struct{ Fashion, Digits []string }
					got := engineEval[files](t, br, `(() => { const names = performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname);
						return {fashion: names.filter((n) => n.includes("/web/fashion/")), digits: names.filter((n) => /\/web\/(models\.bin|worker\.wasm)$/.test(n))}; })()`)
					if !slices.ContainsFunc(got.Fashion, func(n string) bool { return strings.HasSuffix(n, "fashion/models.bin") }) ||
						!slices.ContainsFunc(got.Fashion, func(n string) bool { return strings.HasSuffix(n, "fashion/worker.wasm") }) || len(got.Digits) > 0 {
						t.Errorf("%s: the Fashion page fetched %+v: want Fashion's worker and bundle, not the digits'", name, got)
					}
					// The uncertain garments come first; a picked one is read in the classes' names.
					thumbs := engineWait(t, br, "the gallery", `document.querySelector("#tab-gallery[aria-selected=true]") && document.querySelectorAll(".thumb img").length == 24 && [...document.querySelectorAll("#digit .tab")].map((b) => b.textContent).join("|")`, time.Minute)
					if !strings.Contains(string(thumbs), "Uncertain garments|Upload|Draw") {
						t.Errorf("%s: the Fashion page's tabs are %s", name, thumbs)
					}
					// The global view: Fashion's groups, named by their classes.
					engineClick(t, br, "global-load")
					groups := engineWait(t, br, "Fashion's groups", `document.querySelectorAll("#global .group").length > 0 && document.querySelector("#global .group-name").textContent`, time.Minute)
					if !strings.Contains(string(groups), " → ") || !slices.ContainsFunc(d.Classes, func(c string) bool { return strings.Contains(string(groups), c) }) {
						t.Errorf("%s: Fashion's first group is %s: want a → b in the classes' names", name, groups)
					}
					engineEval[bool](t, br, `(document.querySelector(".thumb").click(), true)`)
					label := engineWait(t, br, "the picked garment's reading", `document.getElementById("pred-label") && document.getElementById("pred-label").textContent`, time.Minute)
					var l string
					json.Unmarshal(label, &l)
					if !slices.Contains(d.Classes, l) {
						t.Errorf("%s: a picked garment is read as %q, not one of %v", name, l, d.Classes)
					}

					// A Fashion link at the site's plain address moves to the Fashion page, and gives the native set.
					engineDo(t, br, "opening a Fashion link at the plain address", func(ctx context.Context) error { return br.Navigate(ctx, page+"#"+link) })
					run := engineFinished(t, br, "the Fashion link's set")
					if !strings.Contains(run.Link, "?models=fashion#") {
						t.Errorf("%s: the Fashion link ended at %s", name, run.Link)
					}
					sameSet(t, name+": the Fashion link's set against the native engine's", run.Report.Explanations, native)

					// Models the site does not serve.
					engineDo(t, br, "asking for other models", func(ctx context.Context) error { return br.Navigate(ctx, page+"?models=cars") })
					note := engineWait(t, br, "the sentence", `document.getElementById("models-note") && window.deltaclue && window.deltaclue.ready > 0 && document.getElementById("models-note").textContent`, 2*time.Minute)
					var n string
					json.Unmarshal(note, &n)
					if !strings.Contains(n, `cannot run "cars" models`) || !strings.Contains(n, `"digits", "fashion" and "credit"`) || look().Current != "Digits" {
						t.Errorf("%s: ?models=cars says %q", name, n)
					}

					// The server gone: the Fashion page visited once opens its link again.
					engineDo(t, br, "the Fashion link again", func(ctx context.Context) error { return br.Navigate(ctx, run.Link) })
					engineFinished(t, br, "the Fashion link's set, online")
					engineWait(t, br, "the page's and Fashion's files in the service worker's cache", `(async () => {
						if (!navigator.serviceWorker || !navigator.serviceWorker.controller) return false;
						const key = (await caches.keys()).find((k) => k.startsWith("app-"));
						if (!key) return false;
						const urls = (await (await caches.open(key)).keys()).map((r) => new URL(r.url).pathname);
						return ["web/app.wasm", "web/loader.js", "fashion/matmul.wasm", "fashion/models.bin", "fashion/worker.wasm"].every((n) => urls.some((u) => u.endsWith(n)));
					})()`, time.Minute)
					srv.Close()
					engineDo(t, br, "reloading with the server gone", func(ctx context.Context) error { return br.Reload(ctx) })
					offline := engineFinished(t, br, "the Fashion link's set offline")
					sameSet(t, name+": the Fashion link's set offline", offline.Report.Explanations, native)
					t.Logf("%s: choice %v; Fashion's files %v; a picked garment read as %q; the link's set (%d) native, offline too; ?models=cars: %s",
						name, look().Items, got.Fashion, l, len(native), n)
				})
			}
		})
	}
}
