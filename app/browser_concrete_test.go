//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue/kind"
	drive "github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/internal/modelsource"
)

// TestBrowserConcrete, in Chromium, Firefox and WebKitGTK, at /repo/ and at the root, on a site of the concrete
// models (issue 42's regression): a mix picked from the gallery is read as a prediction with its σ in MPa, drawn
// as a band; Explain gives the native engine's set bit for bit (each explanation's predictive mean too), every
// explanation accepted exactly when its σ is at most τ and every row valid; the sentence, the cards and the
// trade-off speak of predicted values and σ, not entropies. Then a host page on another origin embeds the page
// and sends it the same mix as {column: value}: its deltaclue:done carries the prediction and σ, the native
// engine's.
func TestBrowserConcrete(t *testing.T) {
	sites := []struct{ name, repo, prefix string }{{"subpath", "repo@concrete", "/repo"}, {"root", "@concrete", ""}}
	dirs := map[string]string{"repo@concrete": buildSiteFor(t, "repo@concrete"), "@concrete": buildSiteFor(t, "@concrete")}
	src, err := modelsource.Open("concrete")
	if err != nil {
		t.Fatal(err)
	}
	tau := src.Description().Regression.Sure
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			br := startEngineWith(t, engine, drive.Options{Width: 1280, Height: 1000})
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveAt(dirs[site.repo], site.prefix)
					defer srv.Close()
					page := srv.URL + site.prefix + "/?models=concrete"
					name := br.Engine() + " at " + site.prefix + "/"
					engineDo(t, br, "opening the concrete page", func(ctx context.Context) error { return br.Navigate(ctx, page) })
					engineWait(t, br, "the workers", `window.deltaclue && window.deltaclue.ready > 0`, 2*time.Minute)
					engineEval[bool](t, br, `(document.getElementById("tab-gallery").click(), true)`)
					engineWait(t, br, "the gallery", `document.querySelectorAll(".row-pick").length == 24`, time.Minute)
					if first := engineEval[string](t, br, `document.querySelector(".row-pick").textContent`); !strings.Contains(first, "σ ") || !strings.Contains(first, "predicts ") {
						t.Errorf("%s: the gallery's first mix reads %q", name, first)
					}
					engineEval[bool](t, br, `(document.querySelector(".row-pick").click(), true)`)
					label := engineWait(t, br, "the picked mix's prediction", `document.getElementById("pred-label") && document.getElementById("pred-band") &&
						({label: document.getElementById("pred-label").textContent, band: document.getElementById("pred-band").getAttribute("aria-label")})`, time.Minute)
					if s := string(label); !strings.Contains(s, " MPa ± ") || !strings.Contains(s, "band from") {
						t.Errorf("%s: the model's view says %s", name, s)
					}

					engineExplain(t, br, name)
					run := engineFinished(t, br, "the mix's set")
					native, sum, x0, cols := rowsNative(t, "concrete", run.Link)
					sameSet(t, name+": the mix's set against the native engine's", run.Report.Explanations, native)
					sameJSON(t, name+": the set's summaries", run.Report.Summary, sum)
					tab := kind.Table{Columns: cols}
					if tab.Row(x0) == nil {
						t.Fatalf("%s: the link's row does not read", name)
					}
					for _, e := range run.Report.Explanations {
						if e.Failed != "" {
							continue
						}
						row := tab.Row(e.Image)
						if e.Mean == nil || row == nil || cols.CheckRow(row) != nil {
							t.Errorf("%s: restart %d: mean %v, row %v", name, e.Restart, e.Mean, row)
						}
						if e.Accepted && float64(e.HTotal) > tau {
							t.Errorf("%s: restart %d accepted with σ %v above τ %v", name, e.Restart, e.HTotal, tau)
						}
					}
					type shown struct {
						Sentence, Cards, Tradeoff string
						CardCount, Bands          int
						Band                      string
					}
					engineWait(t, br, "the set painted", `window.deltaclue.painted`, time.Minute)
					v := engineEval[shown](t, br, `({sentence: window.deltaclue.sentence,
						cards: Array.from(document.querySelectorAll("#cards .card-numbers")).map((e) => e.textContent).join(" | "),
						tradeoff: (document.querySelector("#tradeoff svg") || {outerHTML: ""}).outerHTML,
						cardCount: document.querySelectorAll("#cards .mode-card").length,
						bands: document.querySelectorAll("#cards .mode-card svg.band").length,
						band: (() => { const b = document.querySelector("#cards .mode-card svg.band"); return b ? b.getAttribute("aria-label") : ""; })()})`)
					if !strings.HasPrefix(v.Sentence, "The model predicts ") || !strings.Contains(v.Sentence, " MPa ± ") || strings.Contains(v.Sentence, "nats") {
						t.Errorf("%s: the sentence %q", name, v.Sentence)
					}
					if run.Report.Summary.Accepted > 0 && (!strings.Contains(v.Cards, " MPa ± ") || strings.Contains(v.Cards, "H ")) {
						t.Errorf("%s: the cards say %q", name, v.Cards)
					}
					if v.CardCount > 0 && (v.Bands != v.CardCount || !strings.Contains(v.Band, "band from")) {
						t.Errorf("%s: %d cards, %d with a prediction's band (%q)", name, v.CardCount, v.Bands, v.Band)
					}
					if v.Tradeoff != "" && (!strings.Contains(v.Tradeoff, "σ") || strings.Contains(v.Tradeoff, "(nats)")) {
						t.Errorf("%s: the trade-off's axis is not σ", name)
					}

					// Embedded on another origin, sent the mix as {column: value}.
					r, err := cols.Unstandardise(x0)
					if err != nil {
						t.Fatal(err)
					}
					rowJS, _ := json.Marshal(cols.ToMap(r))
					host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						w.Header().Set("Content-Type", "text/html; charset=utf-8")
						fmt.Fprintf(w, rowHost, srv.URL+site.prefix+"/", "concrete")
					}))
					defer host.Close()
					engineDo(t, br, "opening the host page", func(ctx context.Context) error { return br.Navigate(ctx, host.URL+"/") })
					engineWait(t, br, "the frame ready", `window.said("deltaclue:ready").length > 0`, 2*time.Minute)
					engineEval[bool](t, br, `window.send({type: "deltaclue:row", row: `+string(rowJS)+`, id: "mix"})`)
					raw := engineWait(t, br, "the embedded set", `(window.said("deltaclue:done").find((d) => d.id === "mix") || window.said("deltaclue:error")[0]) &&
						JSON.stringify(window.said("deltaclue:done").find((d) => d.id === "mix") || window.said("deltaclue:error")[0])`, 2*time.Minute)
					var done struct {
						Prediction, Sigma *float64
						Sentence          string
					}
					var text string
					if err := json.Unmarshal(raw, &text); err != nil || json.Unmarshal([]byte(text), &done) != nil {
						t.Fatalf("%s: the frame said %s", name, raw)
					}
					want := run.Report.Prediction
					if done.Prediction == nil || done.Sigma == nil || want.Mean == nil ||
						math.Abs(*done.Prediction-float64(*want.Mean)) > 1e-4 || math.Abs(*done.Sigma-float64(want.Total)) > 1e-4 ||
						!strings.HasPrefix(done.Sentence, "The model predicts ") {
						t.Errorf("%s: embedded, the mix's set came back as %s (the page's prediction %v ± %v)", name, raw, want.Mean, want.Total)
					}
				})
			}
		})
	}
}
