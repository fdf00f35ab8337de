//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	drive "github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// greyModels is internal/testbundle's grey CNN bundle made with seed, opened, and loaded for the search.
func greyModels(t *testing.T, seed uint64) (*testbundle.Bundle, *weights.Bundle, *clue.Models) {
	return testModels(t, testbundle.Grey, seed)
}

// testModels makes one of testbundle's models and opens its bundle as the page and the search do.
func testModels(t *testing.T, make func(uint64) (*testbundle.Bundle, error), seed uint64) (*testbundle.Bundle, *weights.Bundle, *clue.Models) {
	t.Helper()
	grey, err := make(seed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := weights.OpenBundleFiles(grey.Bytes, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := clue.LoadBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	return grey, b, m
}

// buildModelsSite builds the site for other models (a bundle file) with cmd/site -models, under /<repo>/ or at
// the root.
func buildModelsSite(t *testing.T, bundle, repo string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	cmd := exec.Command("go", "run", "./cmd/site", "-out", out, "-repo", repo, "-models", bundle)
	cmd.Dir = ".."
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the site for %s: %v\n%s", bundle, err, b)
	}
	t.Logf("the site for %s at /%s built in %s", filepath.Base(bundle), repo, time.Since(start).Round(time.Second))
	return out
}

// TestBrowserOtherModels, in Chromium, Firefox and WebKitGTK, at /repo/ and at the root: a site built for models
// that are not the digits' (internal/testbundle's grey CNN: a 12×12 input, MC dropout on channels and units,
// max-pooling, a transposed convolution, four classes named ring, bar, cross and dot; its worker has the image
// layers) opens a v3 link made for them and explains it: the set is the native engine's, bit for bit. The page
// speaks of the models: the pad has the input's aspect, the labels are the classes' names, no gallery or global
// view (their data is the digits'), and a digits link is refused in one sentence naming both models.
func TestBrowserOtherModels(t *testing.T) {
	grey, b, models := greyModels(t, 1)
	file := filepath.Join(t.TempDir(), "grey") // a models folder with test items, for the gallery
	if err := modelsource.WriteDir(file, grey.Bytes, grey.Items(60, 5)); err != nil {
		t.Fatal(err)
	}
	in := grey.Description.Input
	x0 := make([]float32, in.Size()) // a soft ring
	for y := 0; y < in.Height; y++ {
		for x := 0; x < in.Width; x++ {
			r := math.Hypot(float64(y)-float64(in.Height-1)/2, float64(x)-float64(in.Width-1)/2) / float64(in.Height) * 4
			x0[y*in.Width+x] = float32(math.Exp(-(r - 1) * (r - 1) * 3))
		}
	}
	s := sharelink.State{Models: grey.Description.Name, Model: b.Fingerprint(), Height: in.Height, Width: in.Width, Channels: in.Channels,
		Image: sharelink.Quantize(x0), Params: clue.Defaults(), Selected: sharelink.NoSelection}
	s.Params.N, s.Params.MaxSteps = 16, 40
	link := sharelink.Encode(s)
	if !strings.HasPrefix(link, "v3.") {
		t.Fatalf("the link for other models is not v3: %.20s", link)
	}
	prob, err := clue.NewProblem(models, s.Float())
	if err != nil {
		t.Fatal(err)
	}
	native, err := clue.Search(context.Background(), prob, s.Params, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	clue.Summarize(prob.X0, prob.Z0, models.BNN.Classes, s.Params, native)
	digits, err := weights.ShippedFingerprint()
	if err != nil {
		t.Fatal(err)
	}
	ink := make([]uint8, sharelink.Pixels)
	for i := range ink {
		ink[i] = uint8(i % 256)
	}
	digitsLink := sharelink.Encode(sharelink.State{Image: ink, Params: clue.Defaults(), Model: digits, Selected: sharelink.NoSelection})
	var bars []string // the bars' names, cut to their width
	for _, c := range grey.Description.Classes {
		bars = append(bars, clipRunes(c, 4))
	}

	sites := []struct{ name, repo, prefix string }{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	dirs := map[string]string{}
	for _, site := range sites { // in the test's own folder: a subtest's is removed when the subtest ends
		dirs[site.repo] = buildModelsSite(t, file, site.repo)
	}
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			br := startEngineWith(t, engine, drive.Options{Width: 1280, Height: 1600})
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveAt(dirs[site.repo], site.prefix)
					defer srv.Close()
					page := srv.URL + site.prefix + "/"
					name := br.Engine() + " at " + site.prefix + "/"
					engineDo(t, br, "opening the link", func(ctx context.Context) error { return br.Navigate(ctx, page+"#"+link) })
					run := engineFinished(t, br, "the grey models' set")
					sameSet(t, name+": the page's set against the native engine's", run.Report.Explanations, native)

					// The charts come from the summary worker after the set: their legend names the labels.
					engineWait(t, br, "the charts' legend", `document.querySelectorAll("#tradeoff .key").length > 0`, time.Minute)
					type look struct {
						PadW, PadH, Preview int
						Heading, Label      string
						Bars, Tabs          []string
						Global              bool
						Key                 string
					}
					got := engineEval[look](t, br, `({padW: document.getElementById("pad").width, padH: document.getElementById("pad").height,
						preview: document.getElementById("preview").width,
						heading: document.querySelector("#digit h2").textContent, label: document.getElementById("pred-label").textContent,
						bars: [...document.querySelectorAll("#pred-bars .bar span")].map((s) => s.textContent),
						tabs: [...document.querySelectorAll("#digit .tab")].map((b) => b.textContent),
						global: !!document.getElementById("global"),
						key: [...document.querySelectorAll("#tradeoff .key")].map((k) => k.textContent.replace(/\s+/g, "")).join(" ")})`)
					if got.PadW != 280 || got.PadH != 280 || got.Preview != in.Width*cardScaleFor(in) || got.Heading != "1 · Your sketch" ||
						!slices.Contains(grey.Description.Classes, got.Label) || !slices.Equal(got.Bars, bars) ||
						!slices.Equal(got.Tabs, []string{"Draw", "Uncertain sketches", "Upload"}) || got.Global ||
						!strings.Contains(got.Key, "2cross") {
						t.Errorf("%s: the page for the grey models shows %+v: want a 280×280 pad, a %d-px preview, \"1 · Your sketch\", "+
							"the classes %v, the tabs Draw, Uncertain sketches and Upload, no global view, the charts' legend naming the labels (2 cross)", name, got, in.Width*cardScaleFor(in), bars)
					}

					// The gallery: the models' test items they are least sure of; one picked is read by the model.
					engineEval[bool](t, br, `(document.getElementById("tab-gallery").click(), true)`)
					thumbs := engineWait(t, br, "the gallery", `document.querySelectorAll(".thumb img").length == 24 && document.querySelector(".thumb img").alt`, time.Minute)
					before := engineEval[string](t, br, `location.hash`)
					engineEval[bool](t, br, `(document.querySelector(".thumb").click(), true)`)
					engineWait(t, br, "the picked item's link", fmt.Sprintf(`location.hash.startsWith("#v3.") && location.hash != %q && document.getElementById("pred-label") != null`, before), time.Minute)

					// A link made for the digits, opened where the grey models are served.
					engineDo(t, br, "opening a digits link", func(ctx context.Context) error { return br.Navigate(ctx, page+"?v=2#"+digitsLink) })
					msg := engineWait(t, br, "the refusal", `document.getElementById("link-error") && document.getElementById("link-error").textContent`, time.Minute)
					var m string
					json.Unmarshal(msg, &m)
					if !strings.Contains(m, `"digits"`) || !strings.Contains(m, `"grey-test"`) {
						t.Errorf("%s: a digits link says %s: want one sentence naming both models", name, m)
					}
					t.Logf("%s: the grey models' link: %d explanations, the native set; the page: %+v; a digits link: %s; the gallery's first: %s", name, len(native), got, m, thumbs)
				})
			}
		})
	}
}

// cardScaleFor is the page's card magnification for an input (cardScale, for models the test process does
// not serve).
func cardScaleFor(in weights.Input) int {
	return max(1, (112+max(in.Height, in.Width)/2)/max(in.Height, in.Width))
}

// TestBrowserGraphModelBits: a model whose networks are graphs with every layer of format 2 (testbundle.Graph:
// residual adds, a concat, a per-channel mul, grouped, depthwise and dilated convolutions, every activation,
// global pooling, batch normalisation, MC dropout on activations) runs in Chromium, Firefox and WebKitGTK under
// /repo/: its link's set is the native engine's, bit for bit.
func TestBrowserGraphModelBits(t *testing.T) {
	g, b, models := testModels(t, testbundle.Graph, 1)
	file := filepath.Join(t.TempDir(), "graph.bin")
	if err := os.WriteFile(file, g.Bytes, 0o644); err != nil {
		t.Fatal(err)
	}
	in := g.Description.Input
	s := sharelink.State{Models: g.Description.Name, Model: b.Fingerprint(), Height: in.Height, Width: in.Width, Channels: in.Channels,
		Image: sharelink.Quantize(g.Items(1, 3).Float(0, nil)), Params: clue.Defaults(), Selected: sharelink.NoSelection}
	s.Params.N, s.Params.MaxSteps = 16, 30
	prob, err := clue.NewProblem(models, s.Float())
	if err != nil {
		t.Fatal(err)
	}
	native, err := clue.Search(context.Background(), prob, s.Params, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	clue.Summarize(prob.X0, prob.Z0, models.BNN.Classes, s.Params, native)
	dir := buildModelsSite(t, file, "repo")
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			br := startEngineWith(t, engine, drive.Options{Width: 1280, Height: 1600})
			srv := serveAt(dir, "/repo")
			defer srv.Close()
			engineDo(t, br, "opening the link", func(ctx context.Context) error { return br.Navigate(ctx, srv.URL+"/repo/#"+sharelink.Encode(s)) })
			run := engineFinished(t, br, "the graph model's set")
			sameSet(t, br.Engine()+": the page's set against the native engine's", run.Report.Explanations, native)
		})
	}
}
