// The model panel (2 · The model's view): what it reads and its reconstruction, the prediction and its
// uncertainty, or the models' download.

package app

import (
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// modelView is what the model panel shows.
type modelView struct {
	HasInput   bool
	Inspect    *searchworker.Inspection // replaced, never changed, when a new view comes
	Starting   bool                     // no worker is up yet, and none failed
	Loading    bool                     // the models are still being fetched
	Loaded     int                      // bytes of the models bundle so far
	Total      int                      // its size
	HThreshold float64
}

func (e *Explainer) modelView() modelView {
	return modelView{HasInput: e.in.X0 != nil, Inspect: e.in.Inspect, Starting: e.work.ReadyCount() == 0 && e.workers.err == "",
		Loading: e.models.assets == nil, Loaded: e.models.loaded, Total: e.models.total, HThreshold: e.settings.Params.HThreshold}
}

// modelPanel is 2 · The model's view: what it reads and its reconstruction, the prediction and its
// uncertainty, or the models' download.
type modelPanel struct {
	app.Compo
	View modelView
}

func (p *modelPanel) Render() app.UI {
	defer rendered("model", time.Now())
	v, m := p.View, served()
	in := v.Inspect
	caption := fmt.Sprintf("what it reads (%d×%d)", m.Width, m.Height)
	if !tablesLeftOut && m.IsTable() {
		caption = fmt.Sprintf("what it reads (%d fields)", len(m.Columns))
	}
	return app.Section().ID("model").Class("card model").Body(
		app.H2().Text("2 · The model's view"),
		// First, and always there: the page draws on these canvases whatever the panel says below them.
		app.Div().Class("row views").Hidden(!v.HasInput).Body(
			app.Figure().Body(m.input().Placeholder("preview", inputkind.Card, ""), app.FigCaption().Text(caption)),
			app.Figure().Body(m.input().Placeholder("recon", inputkind.Card, ""), app.FigCaption().Text("its VAE reconstruction")),
		),
		app.If(in == nil, func() app.UI {
			msg := m.input().Phrase(inputkind.ModelHint)
			if v.HasInput {
				msg = "Asking the model …"
			}
			if v.Starting {
				msg = "Starting the search workers …"
				if v.Loading {
					return renderLoading(v.Loaded, v.Total)
				}
			}
			return app.P().Class("hint").Text(msg)
		}).Else(func() app.UI {
			if r := regressionView(in, v.HThreshold); r != nil {
				return r
			}
			p := in.Prediction
			return app.Div().ID("model-view").Body(
				app.P().Body(app.Text("It reads "), app.Strong().ID("pred-label").Text(m.class(argmax(p.Probs))),
					app.Text(fmt.Sprintf(" with probability %.2f.", p.Probs[argmax(p.Probs)]))),
				bars("pred-bars", p.Probs, "p"),
				app.Table().Class("numbers").Body(
					row("total uncertainty H", fmt.Sprintf("%.3f nats", p.Total)),
					row("aleatoric (data noise)", fmt.Sprintf("%.3f nats", p.Aleatoric)),
					row("epistemic (model ignorance)", fmt.Sprintf("%.3f nats", p.Epistemic)),
					row("on its reconstruction", fmt.Sprintf("%s, H %.3f", m.class(argmax(in.Reconstructed.Probs)), in.Reconstructed.Total)),
				),
				app.If(float64(p.Total) < v.HThreshold, func() app.UI {
					return app.P().ID("sure-note").Class("banner").Text(fmt.Sprintf("The model is already sure of this "+m.noun()+": H = %.2f nats "+
						"is below the threshold of %g. There is little to explain: δ-CLUE will show near copies of it that the model "+
						"reads the same way. Explain still works; a higher threshold or a larger δ shows other readings.", p.Total, v.HThreshold))
				}),
			)
		}),
	)
}

// renderLoading shows the models bundle's download: the page is usable meanwhile, the search is not yet.
func renderLoading(loaded, total int) app.UI {
	mb := func(b int) string { return fmt.Sprintf("%.1f", float64(b)/1e6) }
	done := "" // nothing to count yet: the page itself is still loading, or the download has not answered
	if total > 0 {
		done = fmt.Sprintf(": %s of %s MB", mb(loaded), mb(total))
	}
	return app.Div().ID("models-loading").Body(
		app.P().Class("hint").Text(fmt.Sprintf("Loading the models%s. You can %s meanwhile; "+
			"the model reads it as soon as they are in.", done, served().input().Phrase(inputkind.WhileLoading))),
		app.Progress().ID("models-progress").Max(max(total, 1)).Value(min(loaded, max(total, 1))).
			Aria("label", "the models' download"),
	)
}
