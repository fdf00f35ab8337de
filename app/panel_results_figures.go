// The results panel's figures of a set: the uncertainty–distance trade-off, the δ-ball seen from above, and the selected
// explanation's trajectory (how it was found).

package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// renderFigures lays out the trade-off plot and the latent map side by side (stacked on a phone), and the
// selected explanation's trajectory under them.
// figuresView is what the figures part of the results panel shows (the figures themselves are painted into
// it, not rendered: see drawFigures).
type figuresView struct {
	Results    bool // any explanation has come
	Selected   int
	Trajectory *clue.Trajectory // replaced, never changed, when another comes
	TraceErr   string
}

func (e *Explainer) figuresView() figuresView {
	return figuresView{Results: len(e.work.Run.Results) > 0, Selected: e.sel.Restart, Trajectory: e.sel.Trajectory, TraceErr: e.sel.TraceErr}
}

func (p *resultsPanel) renderFigures(v figuresView) app.UI {
	if !v.Results {
		return app.Div().ID("figures").Hidden(true)
	}
	return app.Div().ID("figures").Body(
		app.Div().Class("figures").Body(
			p.chart("tradeoff", "Each explanation at its distance d and uncertainty H, its label written on it; lines: each label's "+
				"Pareto front (the least uncertain for its distance); dashed: the H threshold. Point at one, or Tab to the chart "+
				"and move with the arrow keys (left and right by d, up and down by H)."),
			p.chart("latent-map", "The δ-ball projected onto the two directions along which the results spread most (PCA around z0): "+
				"hollow circles are starts, labelled circles results; the selected restart's path is drawn. "+
				"Tab to the chart and move with the arrow keys."),
		),
		renderTrajectory(v),
	)
}

// renderTrajectory shows the selected explanation's path: its decoded image at evenly spaced steps.
// chart is one figure's box: an element the figure is painted into (by figurePainter, a few markers per
// animation frame, not by go-app: see drawFigures), whose markers select on pointer, focus and keys.
func (p *resultsPanel) chart(id, caption string) app.UI {
	e := p.Page
	return app.Figure().Class("figure-box").Body(
		app.Div().ID(id).On("pointerover", e.figurePoint).On("focusin", e.figurePoint).On("click", e.figurePoint).OnKeyDown(e.figureKey),
		app.FigCaption().Text(caption),
	)
}

func renderTrajectory(v figuresView) app.UI {
	t := v.Trajectory
	if v.Selected < 0 {
		return app.Div().ID("trajectory").Hidden(true)
	}
	if t == nil || t.Restart != v.Selected {
		msg := "Tracing how restart " + strconv.Itoa(v.Selected) + " was found …"
		if v.TraceErr != "" {
			msg = "Could not trace it: " + endSentence(v.TraceErr)
		}
		return app.Div().ID("trajectory").Body(app.H3().Text("How it was found"), app.P().Class("hint").Text(msg))
	}
	return app.Div().ID("trajectory").Body(
		app.H3().Text(fmt.Sprintf("How restart %d was found: %s from its start to its result", t.Restart, plural.Count(t.Explanation.Steps, "step"))),
		app.Div().ID("strip").Class("strip").Body(
			app.Range(t.Frames).Slice(func(i int) app.UI {
				f := t.Frames[i]
				return app.Figure().Body(
					served().input().Placeholder("frame-"+strconv.Itoa(i), inputkind.Thumb, fmt.Sprintf("step %d: reads %s", f.Step, served().class(f.Label))),
					app.FigCaption().Body(
						app.Div().Text(fmt.Sprintf("step %d · %s", f.Step, served().class(f.Label))),
						app.Div().Text(fmt.Sprintf("H %.2f · d %.1f", f.HTotal, f.Distance)),
					),
				)
			}),
		),
	)
}

// figurePoint selects the explanation under the pointer or keyboard focus in either figure.
func (e *Explainer) figurePoint(ctx app.Context, ev app.Event) {
	if !pointerMoved(ev) {
		ctx.PreventUpdate()
		return
	}
	g := ev.Get("target").Call("closest", "[data-restart]")
	if g.IsNull() || g.IsUndefined() {
		ctx.PreventUpdate()
		return
	}
	r, err := strconv.Atoi(g.Call("getAttribute", "data-restart").String())
	if err != nil || r == e.sel.Restart {
		ctx.PreventUpdate()
		return
	}
	e.selectRestart(ctx, r)
}

// figureKey moves the keyboard focus between a chart's markers with the arrow keys, Home and End (the chart is
// one Tab stop: see figures.navigate); the focus selects the marker's explanation.
func (e *Explainer) figureKey(ctx app.Context, ev app.Event) {
	ctx.PreventUpdate()
	m := ev.Get("target").Call("closest", "[data-nx]")
	if m.IsNull() || m.IsUndefined() {
		return
	}
	fig := ctx.JSSrc()
	n := fig.Call("querySelectorAll", "[data-nx]").Length()
	rank := func(attr string) int {
		k, _ := strconv.Atoi(m.Call("getAttribute", attr).String())
		return k
	}
	attr, k := "data-nx", 0
	switch ev.Get("key").String() {
	case "ArrowRight":
		k = rank(attr) + 1
	case "ArrowLeft":
		k = rank(attr) - 1
	case "ArrowUp":
		attr, k = "data-ny", rank("data-ny")+1
	case "ArrowDown":
		attr, k = "data-ny", rank("data-ny")-1
	case "Home":
		k = 0
	case "End":
		k = n - 1
	default:
		return
	}
	ev.PreventDefault() // the page does not scroll
	next := fig.Call("querySelector", fmt.Sprintf(`[%s="%d"]`, attr, min(max(k, 0), n-1)))
	if next.IsNull() {
		return
	}
	rove(fig, next)
	next.Call("focus")
}

// rove makes el its chart's one Tab stop.
func rove(fig, el app.Value) {
	old := fig.Call("querySelectorAll", `[data-nx][tabindex="0"]`)
	for i := 0; i < old.Length(); i++ {
		old.Index(i).Call("setAttribute", "tabindex", "-1")
	}
	el.Call("setAttribute", "tabindex", "0")
}

// refreshFigures asks for the figures' SVG again after the results or the trajectory changed. The summary
// worker makes them (requestFigures): worker.wasm has the figures' code for large sets' summaries, and the page's
// binary does without it (30 KB gzipped of a first visit).
func (e *Explainer) refreshFigures() {
	if e.in.Inspect == nil || len(e.work.Run.Results) == 0 || e.embed.on { // an embed shows no figures
		e.set.tradeoffSVG, e.set.mapSVG = "", ""
		e.summaries.figuresWanted = false
		return
	}
	e.requestFigures()
}

// tracedPath is the selected restart's latent path, once traced.
func (e *Explainer) tracedPath() [][]float32 {
	if t := e.sel.Trajectory; t != nil && t.Restart == e.sel.Restart {
		return t.Path
	}
	return nil
}

// markSelected shows the selection in the figures without redrawing them (which would lose keyboard focus).
func (e *Explainer) markSelected() {
	doc := app.Window().Get("document")
	old := doc.Call("querySelectorAll", ".figures .selected")
	for i := 0; i < old.Length(); i++ {
		old.Index(i).Get("classList").Call("remove", "selected")
	}
	if e.sel.Restart < 0 {
		return
	}
	now := doc.Call("querySelectorAll", fmt.Sprintf(`.figures [data-restart="%d"]`, e.sel.Restart))
	for i := 0; i < now.Length(); i++ {
		now.Index(i).Get("classList").Call("add", "selected")
	}
	// The selected marker becomes its chart's Tab stop, so that Tab comes back to it.
	for _, id := range []string{"tradeoff", "latent-map"} {
		fig := doc.Call("getElementById", id)
		if fig.IsNull() {
			continue
		}
		if el := fig.Call("querySelector", fmt.Sprintf(`[data-nx][data-restart="%d"]`, e.sel.Restart)); !el.IsNull() {
			rove(fig, el)
		}
	}
}

// figurePainter puts one figure's SVG into its element a few parts at a time: the browser parses, styles and
// lays out each part in the frame it arrives in. Inserted whole, as go-app inserts raw HTML, the figures of a
// set of 1000 (about 10,000 SVG elements) took the page's thread 0.3 s in one task.
type figurePainter struct {
	el     app.Value  // the element painted into
	svg    string     // the SVG it shows, or is being filled with
	root   app.Value  // its <svg> element
	parts  []string   // the parts not inserted yet
	chunk  int        // how many parts the next slice inserts, adapted to what a slice took
	frames frameQueue // inserts the next slice in the next animation frame
	ctx    app.Context
	done   func() // called when the figure is complete
	// focused is the data-restart of the marker that had the keyboard focus when the figure was replaced ("" if
	// the focus was elsewhere): the new figure gives it back once complete.
	focused string
}

// figures are the page's two painted figures.
var (
	tradeoffFigure = figurePainter{chunk: 40}
	mapFigure      = figurePainter{chunk: 40}
)

// show makes the element with the given id show svg: at once when it is small, else a slice now and the rest
// in later animation frames.
func (f *figurePainter) show(ctx app.Context, id, svg string, done func()) {
	el := app.Window().GetElementByID(id)
	if el.IsNull() || el.IsUndefined() {
		f.el, f.svg, f.parts = nil, "", nil
		return
	}
	if f.el != nil && el.Equal(f.el) && f.svg == svg {
		return
	}
	opening, parts, closing := figures.Pieces(svg)
	// Replacing the figure removes the element with the keyboard focus, if it is in it (a reader tabbing
	// through the chart as it is redrawn, with a trajectory or more results): remember which marker it was.
	if f.focused == "" {
		if a := app.Window().Get("document").Get("activeElement"); !a.IsNull() && !a.IsUndefined() && el.Call("contains", a).Bool() {
			f.focused = "*"
			if m := a.Call("closest", "[data-restart]"); !m.IsNull() {
				f.focused = m.Call("getAttribute", "data-restart").String()
			}
		}
	}
	el.Set("innerHTML", opening+closing)
	f.el, f.svg, f.parts, f.ctx, f.done = el, svg, parts, ctx, done
	f.root = el.Get("firstElementChild")
	if f.root.IsNull() { // not an SVG document (empty)
		f.parts = nil
	}
	f.slice()
}

// painting says whether the figure is still being filled.
func (f *figurePainter) painting() bool { return len(f.parts) > 0 }

// slice inserts the next chunk of parts, and adapts the chunk so that a slice takes about a frame's budget. The
// slice's time includes the browser's styling and layout of the new parts, forced at once: left to the frame's
// rendering, they took 3–5 times the insertion the chunk was timed on, and made tasks of 30–45 ms.
func (f *figurePainter) slice() {
	budget := frame.left(frameBudget)
	if len(f.parts) > 0 && budget <= 0 { // the frame is spent: the next one
		f.queue()
		return
	}
	if len(f.parts) > 0 {
		// f.chunk parts take about frameBudget; what is left of the frame may be less.
		n := min(max(int(float64(f.chunk)*float64(budget)/float64(frameBudget)), 1), len(f.parts))
		start := time.Now()
		f.root.Call("insertAdjacentHTML", "beforeend", strings.Join(f.parts[:n], ""))
		f.root.Call("getBoundingClientRect") // styles and lays out the parts now, inside the time measured
		f.parts = f.parts[n:]
		if took := time.Since(start); took > 0 {
			f.chunk = min(max(int(float64(n)*float64(frameBudget)/float64(took)), 4), 400)
		}
	}
	if len(f.parts) > 0 {
		f.queue()
		return
	}
	if f.focused != "" {
		f.refocus()
	}
	if f.done != nil {
		done := f.done
		f.done = nil
		done()
	}
}

// refocus gives the keyboard focus back to the marker that had it before the figure was replaced, or to the
// chart's Tab stop if that marker is gone; unless the reader has put it elsewhere meanwhile.
func (f *figurePainter) refocus() {
	restart := f.focused
	f.focused = ""
	if a := app.Window().Get("document").Get("activeElement"); !a.IsNull() && !a.IsUndefined() && !a.Equal(app.Window().Get("document").Get("body")) {
		return
	}
	m := f.el.Call("querySelector", fmt.Sprintf(`[data-restart="%s"]`, restart))
	if m.IsNull() {
		m = f.el.Call("querySelector", `[tabindex="0"]`)
	}
	if !m.IsNull() {
		m.Call("focus")
	}
}

func (f *figurePainter) queue() {
	f.frames.request(f.ctx, func() {
		if f.painting() {
			f.slice()
		}
	})
}

// drawFigures brings both figures up to date with the page's SVG; once both are complete, the selection is
// marked in them again, the keyboard focus put back where a redrawn map took it from, and the page's state
// published (window.deltaclue.painted).
func (e *Explainer) drawFigures(ctx app.Context) {
	finished := func() {
		if tradeoffFigure.painting() || mapFigure.painting() {
			return
		}
		e.markSelected()
		e.publish()
	}
	timed("figures", func() {
		tradeoffFigure.show(ctx, "tradeoff", e.set.tradeoffSVG, finished)
		mapFigure.show(ctx, "latent-map", e.set.mapSVG, finished)
	})
}

// figuresPainted says whether the figures show the page's SVG in full.
func figuresPainted() bool { return !tradeoffFigure.painting() && !mapFigure.painting() }

// painted says whether the grid and the figures show the page's state in full: no summary asked of the summary
// worker, no redraw waiting (results that came, a finished run's final summary), none under way, and each
// figure holding the page's current SVG. A run's end is published before the page has rendered and painted
// it: without the last two, a test (or a console) could read "painted" of the figures of the results before.
func (e *Explainer) painted() bool {
	if w := e.summaries.worker; w != nil && w.busy { // its answer brings new figures (a trajectory's path)
		return false
	}
	if e.embed.on { // no grid and no figures: the cards are drawn after the render
		return !e.set.redrawPending && !afterRender.queued
	}
	return !e.set.redrawPending && !afterRender.queued && !grid.painting() && figuresPainted() && tradeoffFigure.svg == e.set.tradeoffSVG && mapFigure.svg == e.set.mapSVG
}
