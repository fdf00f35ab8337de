// The results panel (4 · The whole set): the figures (panel_results_figures.go), the grid of explanations, the
// selected one in detail, the set's measures (panel_results_set.go), and the share and download buttons.

package app

import (
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// resultsView is what the results panel shows.
type resultsView struct {
	Results    int // how many explanations have come
	HasInput   bool
	SortBy     string
	ShowAll    bool
	Chosen     *clue.Explanation // a copy of the selected explanation, if it has come
	ChosenMode string            // which mode it is in, in words
	Summary    *clue.Summary     // replaced, never changed, when the summary is remade
	Set        setFacts
	Figures    figuresView
	CopyNote   string
}

func (e *Explainer) resultsView() resultsView {
	v := resultsView{Results: len(e.work.Run.Results), HasInput: e.in.X0 != nil, SortBy: e.sel.SortBy, ShowAll: e.sel.ShowAll,
		Summary: e.set.summary, CopyNote: e.copied.note, Figures: e.figuresView()}
	if x := e.sel.Chosen(e.work.Run.Results); x != nil {
		c := *x
		v.Chosen, v.ChosenMode = &c, core.ModeText(c, e.work.Run.Results, e.modes())
	}
	if e.set.summary != nil {
		v.Set = e.setFacts()
	}
	return v
}

// resultsPanel is 4 · The whole set: the figures, the grid of explanations, the selected one in detail, the
// set's measures, and the share and download buttons.
type resultsPanel struct {
	app.Compo
	Page *Explainer
	View resultsView
}

func (p *resultsPanel) Render() app.UI {
	defer rendered("results", time.Now())
	v, e := p.View, p.Page
	sel := v.Chosen
	dups := 0
	if v.Summary != nil {
		dups = v.Summary.Duplicates
	}
	return app.Section().Class("card results").Body(
		app.H2().Text("4 · The whole set"),
		p.renderFigures(v.Figures),
		app.H3().Text("Every explanation"),
		app.Div().Class("row").Body(
			app.Label().For("sort").Text("order"),
			app.Select().ID("sort").OnChange(func(ctx app.Context, ev app.Event) {
				e.sel.SortBy = ctx.JSSrc().Get("value").String()
				e.scheduleRedraw()
			}).Body(
				app.Option().Value("label").Text("by label, then cost").Selected(v.SortBy == "label"),
				app.Option().Value("cost").Text("by cost").Selected(v.SortBy == "cost"),
				app.Option().Value("distance").Text("by distance").Selected(v.SortBy == "distance"),
				app.Option().Value("restart").Text("by restart").Selected(v.SortBy == "restart"),
			),
			app.Label().Class("check").Body(
				app.Input().ID("show-all").Type("checkbox").Checked(v.ShowAll).OnChange(func(ctx app.Context, _ app.Event) {
					e.sel.ShowAll = ctx.JSSrc().Get("checked").Bool()
					e.scheduleRedraw()
				}),
				app.Text(fmt.Sprintf(" show every restart (%s collapsed)", plural.Count(dups, "duplicate"))),
			),
			app.Span().Class("hint").Text("Above each: its label and H; below: its distance d, and ×k when it stands for k near-identical restarts. Grey: H above the threshold. Point at one (or use the arrow keys) to compare it with the input."),
		),
		app.Div().ID("grid-wrap").Class("grid-wrap").Body(
			// The painter (gridpaint.go) fills it with one canvas per row.
			app.Div().ID("grid").Class("grid").TabIndex(0).
				Aria("label", "the explanations; arrow keys select one").
				On("pointermove", e.gridPoint).On("click", e.gridPoint).OnKeyDown(e.gridKey),
		),
		app.Div().ID("detail").Class("row detail").Hidden(sel == nil).Body(
			app.Figure().Body(served().input().Placeholder("detail-x0", inputkind.Detail, ""), app.FigCaption().Text("input")),
			app.Figure().Body(served().input().Placeholder("detail-e", inputkind.Detail, ""), app.FigCaption().Text("explanation")),
			app.Figure().Body(served().input().Placeholder("detail-diff", inputkind.Detail, ""), app.FigCaption().Body(
				app.Span().Class("added").Text("added"), app.Text(" / "), app.Span().Class("removed").Text("removed"))),
			app.If(sel != nil, func() app.UI {
				x := *sel
				return app.Table().Class("numbers").Body(
					row("label", fmt.Sprintf("%s (p = %.3f)", served().class(x.Label), x.Probs[x.Label])),
					row(served().uncertaintyName()+" total / aleatoric / epistemic", fmt.Sprintf("%.3f / %.3f / %.3f", x.HTotal, x.HAleatoric, x.HEpistemic)),
					row("distance d (L1)", fmt.Sprintf("%.1f", x.Distance)),
					row("latent distance ρ", fmt.Sprintf("%.3f%s", x.Rho, map[bool]string{true: " (on the shell)", false: ""}[x.OnShell])),
					row("cost", fmt.Sprintf("%.4f", x.Cost)),
					row("steps", fmt.Sprintf("%d%s", x.Steps, map[bool]string{true: ", converged", false: ""}[x.Converged])),
					row("restart, mode", fmt.Sprintf("%d, %s", x.Restart, v.ChosenMode)),
				)
			}),
			app.If(sel != nil && sel.Mean != nil, func() app.UI {
				return explanationBand("chosen-band", sel.Mean, sel.HTotal, e.work.Run.Params.HThreshold)
			}),
		),
		app.If(v.Summary != nil, func() app.UI { return renderSet(*v.Summary, v.Set) }),
		app.Div().Class("row share").Body(
			app.Button().ID("copy-link").Text("Copy link").Disabled(!v.HasInput).OnClick(e.copyLink),
			app.Span().ID("copy-note").Class("hint").Aria("live", "polite").Text(v.CopyNote),
			// The snippet is written when the fold opens: the state it embeds is the address's at that moment.
			app.Details().ID("embed").Class("embed-fold").On("toggle", e.writeEmbedSnippet).Body(
				app.Summary().Text("Embed"),
				app.Label().For("embed-snippet").Class("hint").Text("Put this explainer, as it is now, on your page (docs/embed.md):"),
				// Raw HTML: go-app's Textarea, used nowhere else, would add its element type to app.wasm.
				app.Raw(`<textarea id="embed-snippet" readonly rows="4" aria-describedby="embed-help"></textarea>`),
				app.Div().Class("row").Body(
					app.Button().ID("copy-embed").Text("Copy snippet").OnClick(e.copyEmbedSnippet),
					app.Small().ID("embed-help").Class("help").Text("A compact frame: the pad, the model's view and the answer, with a link to the full explainer. It loads when it scrolls into view and runs one worker."),
				),
			),
		),
		// The files `deltaclue explain` writes, from the same functions (the same link gives the same bytes).
		app.Div().Class("row downloads").Role("group").Aria("label", "download the set").Body(
			app.Span().Class("hint").Text("Download:"),
			app.Button().ID("download-summary").DataSet("kind", "summary").Text("Summary (PNG)").Disabled(v.Summary == nil).OnClick(e.downloadSet),
			app.Button().ID("download-png").Text("Grid (PNG)").Disabled(v.Results == 0).OnClick(e.downloadPNG),
			app.Button().ID("download-tradeoff").DataSet("kind", "tradeoff").Text("Trade-off (SVG)").Disabled(v.Summary == nil).OnClick(e.downloadSet),
			app.Button().ID("download-latent").DataSet("kind", "latent").Text("Latent map (SVG)").Disabled(v.Summary == nil).OnClick(e.downloadSet),
			app.Button().ID("download-json").DataSet("kind", "json").Text("Set (JSON)").Disabled(v.Summary == nil).OnClick(e.downloadSet),
			app.Button().ID("download-csv").DataSet("kind", "csv").Text("Set (CSV)").Disabled(v.Summary == nil).OnClick(e.downloadSet),
		),
	)
}

// drawGrid brings the grid canvas up to date, framing the cell that shows the selected explanation (its
// representative's when it is a collapsed duplicate): at once where little changed, else over the next
// animation frames (gridpaint.go's gridPainter); the page publishes its state again when it is done.
func (e *Explainer) drawGrid(ctx app.Context) {
	if grid.onPainted == nil {
		grid.onPainted = e.publish
	}
	watchGridWidth(ctx, e)
	ord := e.ordered()
	timed("grid paint", func() {
		grid.paint(ctx, "grid", e.in.X0, ord, gridColumns(), core.CellOf(ord, e.work.Run.Results, e.sel.Restart), e.copies())
	})
}

// gridState is what the test reads of the grid: the restart in the first cell and the framed cell's index and
// restart (-1 when none).
func (e *Explainer) gridState() map[string]any {
	ord := e.ordered()
	first, k, shown := -1, core.CellOf(ord, e.work.Run.Results, e.sel.Restart), -1
	if len(ord) > 0 {
		first = ord[0].Restart
	}
	if k >= 0 {
		shown = ord[k].Restart
	}
	return map[string]any{"first": first, "cell": k, "restart": shown, "columns": gridColumns(), "cellW": cells().cellW, "cellH": cells().cellH,
		"painted": !grid.painting()}
}

// modes is the number of modes per label, or nil before a summary.
func (e *Explainer) modes() []int {
	if e.set.summary == nil {
		return nil
	}
	return e.set.summary.Modes
}

func (e *Explainer) selectedExplanation() *clue.Explanation {
	for i := range e.work.Run.Results {
		if e.work.Run.Results[i].Restart == e.sel.Restart && e.work.Run.Results[i].Image != nil {
			return &e.work.Run.Results[i]
		}
	}
	return nil
}

func (e *Explainer) gridPoint(ctx app.Context, ev app.Event) {
	if !pointerMoved(ev) {
		ctx.PreventUpdate()
		return
	}
	ord := e.ordered()
	k := grid.at(ev.JSValue(), len(ord))
	if k < 0 || ord[k].Restart == e.sel.Restart { // (a duplicate selected in a chart gives way to its cell's own)
		ctx.PreventUpdate()
		return
	}
	e.selectRestart(ctx, ord[k].Restart)
}

func (e *Explainer) gridKey(ctx app.Context, ev app.Event) {
	restart, ok := e.sel.Move(e.ordered(), e.work.Run.Results, ev.Get("key").String(), gridColumns())
	if !ok {
		return
	}
	ev.PreventDefault()
	if restart == e.sel.Restart {
		ctx.PreventUpdate()
		return
	}
	e.selectRestart(ctx, restart)
}

// lastPointer is where the pointer was at the last pointer event the page saw (in the viewport).
var lastPointer struct{ x, y float64 }

// pointerMoved says whether a pointer event (pointermove, pointerover) comes from the pointer moving. The
// browser also sends them when the page moves under a pointer at rest (the keyboard focus scrolled it, a panel
// opened above): those must not take the selection from what the keyboard chose. Other events (a click, a
// focus) always count.
func pointerMoved(ev app.Event) bool {
	typ := ev.Get("type").String()
	if typ != "pointermove" && typ != "pointerover" {
		return true
	}
	x, y := ev.Get("clientX").Float(), ev.Get("clientY").Float()
	if x == lastPointer.x && y == lastPointer.y {
		return false
	}
	lastPointer.x, lastPointer.y = x, y
	return true
}

// copyLink copies the page's address, and says whether it did (for a few seconds, beside the button).
func (e *Explainer) copyLink(ctx app.Context, _ app.Event) {
	href := app.Window().Get("location").Get("href").String()
	e.copied.seq++
	seq := e.copied.seq
	say := func(note string) {
		ctx.Dispatch(func(ctx app.Context) {
			e.copied.note = note
			ctx.After(5*time.Second, func(app.Context) {
				if e.copied.seq == seq {
					e.copied.note = ""
				}
			})
		})
	}
	refused := "The browser did not let the page copy: copy the link from the address bar."
	cb := app.Window().Get("navigator").Get("clipboard")
	if cb.IsUndefined() || cb.IsNull() {
		say(refused)
		return
	}
	webjs.Promise(cb.Call("writeText", href), func(app.Value) {
		say(fmt.Sprintf("Link copied (%d characters).", len(href)))
	}, func(string) { say(refused) })
}

// download saves a Blob or data URL under a file name.
func download(href, name string) {
	a := app.Window().Get("document").Call("createElement", "a")
	a.Set("href", href)
	a.Set("download", name)
	a.Call("click")
}

func (e *Explainer) downloadPNG(ctx app.Context, _ app.Event) {
	if grid.el != nil {
		download(grid.image().Call("toDataURL", "image/png").String(), "deltaclue-grid.png")
	}
}
