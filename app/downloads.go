// The set's and the sweep's downloads: made by the functions `deltaclue explain` and `deltaclue sweep` use, so
// the same link gives the same bytes (the summary's PNG, the trade-off, the latent map, the set's CSV), or the
// same schema (explain.json).

package app

import (
	"encoding/json"
	"sort"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/engine/glam"
)

// byRestart is the set's results in restart order, as the CLI holds them (the page holds them as they came).
func (e *Explainer) byRestart() []clue.Explanation {
	xs := append([]clue.Explanation(nil), e.work.Run.Results...)
	sort.Slice(xs, func(a, b int) bool { return xs[a].Restart < xs[b].Restart })
	return xs
}

// explainFile is the set as `deltaclue explain` writes explain.json: the report and the amortised answers (the
// page times them together, so each is given the inspection's time over their number).
func (e *Explainer) explainFile() glam.ExplainFile {
	f := glam.ExplainFile{Report: e.report()}
	f.Explanations = e.byRestart()
	if in := e.in.Inspect; in != nil {
		for _, a := range in.Amortised {
			f.Amortised = append(f.Amortised, glam.Reported{From: f.Label, To: a.To, Sure: a.Sure, K: a.K, Shift: a.Shift, Label: a.Label,
				HTotal: a.HTotal, Distance: a.Distance, Image: a.Image, Milliseconds: in.AmortisedMs / float64(len(in.Amortised))})
		}
		glam.Compare(f.Amortised, f.Explanations)
	}
	return f
}

// setFile makes one of the set's downloads; ok is false when the set has nothing to make it from.
func (e *Explainer) setFile(kind string) (data []byte, mime, name string, ok bool) {
	if e.in.Inspect == nil || e.set.summary == nil || len(e.work.Run.Results) == 0 {
		return nil, "", "", false
	}
	xs, p := e.byRestart(), e.work.Run.Params
	switch kind {
	case "summary":
		img := raster.Summary(e.in.Source, served().input(), served().words(), e.in.X0, e.in.Inspect.Prediction, p, xs, *e.set.summary, e.set.sentence)
		return raster.PNG(img), "image/png", "deltaclue-summary.png", true
	case "tradeoff", "latent":
		// The figures as shown, which the summary worker made (the page's binary has not their code).
		tradeoff, latent := e.set.tradeoffSVG, e.set.mapSVG
		if tradeoff == "" || e.summaries.figuresFor != len(xs) {
			return nil, "", "", false
		}
		if kind == "tradeoff" {
			return []byte(tradeoff), "image/svg+xml", "deltaclue-tradeoff.svg", true
		}
		return []byte(latent), "image/svg+xml", "deltaclue-latent.svg", true
	case "json":
		if b, ok := e.rowDownload(kind); ok { // a set of rows: each row by its columns
			return b, "application/json", "deltaclue-explain.json", true
		}
		b, err := json.MarshalIndent(e.explainFile(), "", " ")
		return b, "application/json", "deltaclue-explain.json", err == nil
	case "csv":
		if b, ok := e.rowDownload(kind); ok {
			return b, "text/csv", "deltaclue-set.csv", true
		}
		return clue.SetCSV(xs), "text/csv", "deltaclue-set.csv", true
	}
	return nil, "", "", false
}

// downloadSet saves the set's download of the clicked button's data-kind.
func (e *Explainer) downloadSet(ctx app.Context, _ app.Event) {
	if b, mime, name, ok := e.setFile(ctx.JSSrc().Get("dataset").Get("kind").String()); ok {
		downloadBytes(b, mime, name)
	}
}

// downloadSweep saves the sweep's figure as `deltaclue sweep` draws it (sweep.svg).
func (e *Explainer) downloadSweep(ctx app.Context, _ app.Event) {
	if s := e.sweep.run; s != nil && s.svg != "" {
		downloadBytes([]byte(s.svg), "image/svg+xml", "deltaclue-sweep.svg")
	}
}

// downloadBytes saves bytes under a file name, through a Blob.
func downloadBytes(b []byte, mime, name string) {
	arr := app.Window().Get("Uint8Array").New(len(b))
	app.CopyBytesToJS(arr, b)
	blob := app.Window().Get("Blob").New([]any{arr}, map[string]any{"type": mime})
	u := app.Window().Get("URL").Call("createObjectURL", blob)
	download(u.String(), name)
	// Revoked later, not at once: a browser may read the URL after the click has returned.
	var revoke app.Func
	revoke = webjs.FuncOf(func(app.Value, []app.Value) any {
		app.Window().Get("URL").Call("revokeObjectURL", u)
		revoke.Release()
		return nil
	})
	app.Window().Call("setTimeout", revoke, 60000)
}
