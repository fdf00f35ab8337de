package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
)

// PaperURL is the δ-CLUE paper.
const PaperURL = "https://arxiv.org/abs/2104.06323"

// Render lays the page out: input, the model's view, the search controls, then the results.
func (e *Explainer) Render() app.UI {
	return app.Div().Class("page").Body(
		app.Header().Body(
			app.H1().Text("deltaclue"),
			app.P().Class("lede").Text("Why is the model unsure about this digit? δ-CLUE shows a set of nearby digits the model is sure about."),
			app.Details().Class("about").Body(
				app.Summary().Text("What am I looking at?"),
				app.P().Text("A Bayesian neural network (an MC-dropout MLP with 20 fixed dropout masks) reads a handwritten digit and says how sure it is: its predictive entropy H, split into aleatoric (noise in the data) and epistemic (the model's own ignorance) parts."),
				app.P().Text("When it is unsure, δ-CLUE explains why by searching the latent space of a variational autoencoder, within a ball of radius δ around the digit's code, for digits the network is confident about. Each of n searches starts elsewhere in the ball; together they show the different ways the digit could be read, how far each is from what was drawn (d, the L1 distance in pixels), and how the labels share out."),
				app.P().Body(app.Text("Everything runs in your browser, in a pool of Web Workers. Method: Ley, Bhatt & Weller, "),
					app.A().Href(PaperURL).Target("_blank").Rel("noopener").Text("δ-CLUE: Diverse Sets of Explanations for Uncertainty Estimates"), app.Text(" (2021).")),
			),
		),
		app.If(e.stale, func() app.UI {
			return app.Div().Class("banner").Body(app.Text("A new version of deltaclue is available and the workers run it. "),
				app.Button().Text("Reload").OnClick(func(ctx app.Context, _ app.Event) { ctx.Reload() }))
		}),
		app.If(e.linkErr != "", func() app.UI { return app.Div().ID("link-error").Class("banner error").Text(e.linkErr) }),
		app.If(e.poolErr != "", func() app.UI { return app.Div().ID("pool-error").Class("banner error").Text(e.poolErr) }),
		app.Div().Class("columns").Body(e.renderInput(), e.renderModel(), e.renderControls()),
		e.renderResults(),
	)
}

func (e *Explainer) renderInput() app.UI {
	tab := func(id, label string) app.UI {
		return app.Button().Class("tab").ID("tab-"+id).Role("tab").Aria("selected", e.tab == id).Text(label).
			OnClick(func(ctx app.Context, _ app.Event) { e.tab = id })
	}
	return app.Section().Class("card").Body(
		app.H2().Text("1 · A digit"),
		app.Div().Class("tabs").Role("tablist").Body(tab("draw", "Draw"), tab("gallery", "Uncertain test digits"), tab("upload", "Upload")),
		app.Div().Class("tab-panel").Hidden(e.tab != "draw").Body(
			app.Canvas().ID("pad").Class("pad").Width(padSize).Height(padSize).Aria("label", "drawing pad: draw a digit").
				On("pointerdown", e.padDown).On("pointermove", e.padMove).On("pointerup", e.padUp).On("pointercancel", e.padUp),
			app.Div().Class("row").Body(
				app.Button().ID("undo").Text("Undo").Disabled(len(e.strokes) == 0).OnClick(e.undo),
				app.Button().ID("clear").Text("Clear").Disabled(len(e.strokes) == 0).OnClick(e.clearPad),
				app.Span().Class("hint").Text("Draw with a mouse, finger or pen."),
			),
		),
		app.Div().Class("tab-panel gallery").Hidden(e.tab != "gallery").Body(
			app.Range(galleryImages()).Slice(func(i int) app.UI {
				d := gallery()[i]
				return app.Button().Class("thumb").Title(fmt.Sprintf("test digit %d: true label %d, the model says %d with H = %.2f", d.Index, d.Label, d.Pred, d.H)).
					OnClick(func(ctx app.Context, _ app.Event) {
						e.setInput(ctx, sharelink.Quantize(d.Image()), fmt.Sprintf("test digit %d (true label %d)", d.Index, d.Label))
					}).Body(app.Img().Src(galleryImages()[i]).Alt(fmt.Sprintf("test digit %d", d.Index)),
					app.Span().Text(fmt.Sprintf("H %.2f", d.H)))
			}),
		),
		app.Div().Class("tab-panel").Hidden(e.tab != "upload").Body(
			app.Label().For("upload").Text("An image of one digit, any size; dark on light or light on dark:"),
			app.Input().ID("upload").Type("file").Accept("image/*").OnChange(e.upload),
		),
		app.If(e.inputErr != "", func() app.UI { return app.P().ID("input-error").Class("error").Text(e.inputErr) }),
		app.Div().Class("row views").Body(
			app.Figure().Body(app.Canvas().ID("preview").Width(112).Height(112), app.FigCaption().Text("what the model reads (28×28)")),
			app.Figure().Body(app.Canvas().ID("recon").Width(112).Height(112), app.FigCaption().Text("its VAE reconstruction")),
		),
	)
}

func (e *Explainer) renderModel() app.UI {
	in := e.inspect
	return app.Section().Class("card").Body(
		app.H2().Text("2 · The model's view"),
		app.If(in == nil, func() app.UI {
			msg := "Draw a digit, pick one or upload one."
			if e.x0 != nil {
				msg = "Asking the model …"
			}
			if e.ready == 0 && e.poolErr == "" {
				msg = "Starting the search workers …"
			}
			return app.P().Class("hint").Text(msg)
		}).Else(func() app.UI {
			p := in.Prediction
			return app.Div().ID("model-view").Body(
				app.P().Body(app.Text("It reads "), app.Strong().ID("pred-label").Text(strconv.Itoa(argmax(p.Probs))),
					app.Text(fmt.Sprintf(" with probability %.2f.", p.Probs[argmax(p.Probs)]))),
				bars("pred-bars", p.Probs, "p"),
				app.Table().Class("numbers").Body(
					row("total uncertainty H", fmt.Sprintf("%.3f nats", p.Total)),
					row("aleatoric (data noise)", fmt.Sprintf("%.3f nats", p.Aleatoric)),
					row("epistemic (model ignorance)", fmt.Sprintf("%.3f nats", p.Epistemic)),
					row("on its reconstruction", fmt.Sprintf("%d, H %.3f", argmax(in.Reconstructed.Probs), in.Reconstructed.Total)),
				),
			)
		}),
	)
}

// bars is a bar chart of ten probabilities, one bar per class, as HTML.
func bars(id string, vals []float32, prefix string) app.UI {
	return app.Div().ID(id).Class("bars").Role("img").Aria("label", barsLabel(vals, prefix)).Body(
		app.Range(vals).Slice(func(k int) app.UI {
			return app.Div().Class("bar").Body(
				app.Div().Class("fill").Style("height", fmt.Sprintf("%.1f%%", 100*vals[k])).Title(fmt.Sprintf("%s(%d) = %.3f", prefix, k, vals[k])),
				app.Span().Text(strconv.Itoa(k)),
			)
		}),
	)
}

func barsLabel(vals []float32, prefix string) string {
	var parts []string
	for k, v := range vals {
		if v >= 0.01 {
			parts = append(parts, fmt.Sprintf("%s(%d) = %.2f", prefix, k, v))
		}
	}
	return strings.Join(parts, ", ")
}

func row(k, v string) app.UI { return app.Tr().Body(app.Th().Text(k), app.Td().Text(v)) }

func (e *Explainer) renderControls() app.UI {
	control := func(f field) app.UI {
		id := "p-" + f.Key
		var input app.UI
		switch f.Kind {
		case "select":
			input = app.Select().ID(id).OnChange(e.setField(f.Key)).Body(app.Range(f.Options).Slice(func(i int) app.UI {
				return app.Option().Value(f.Options[i]).Text(f.Options[i]).Selected(e.form.values[f.Key] == f.Options[i])
			}))
		case "checkbox":
			input = app.Input().ID(id).Type("checkbox").Checked(e.form.values[f.Key] == "true").OnChange(e.setCheckbox(f.Key))
		default:
			input = app.Input().ID(id).Type("text").Attr("inputmode", "decimal").Value(e.form.values[f.Key]).
				Aria("invalid", e.form.errors[f.Key] != "").Aria("describedby", id+"-help").OnChange(e.setField(f.Key))
		}
		return app.Div().Class("field").Body(
			app.Label().For(id).Text(f.Label), input,
			app.Small().ID(id+"-help").Class("help").Text(f.Help),
			app.If(e.form.errors[f.Key] != "", func() app.UI {
				return app.Small().ID(id + "-error").Class("error").Role("alert").Text(e.form.errors[f.Key])
			}),
		)
	}
	var basic, advanced []app.UI
	for _, f := range fields {
		if f.Advanced {
			advanced = append(advanced, control(f))
		} else {
			basic = append(basic, control(f))
		}
	}
	workersErr := ""
	if w, err := strconv.Atoi(e.workersIn); err != nil || w < 1 || w > 8 {
		workersErr = "a whole number from 1 to 8"
	}
	advanced = append(advanced, app.Div().Class("field").Body(
		app.Label().For("p-workers").Text("workers"),
		app.Input().ID("p-workers").Type("text").Attr("inputmode", "numeric").Value(e.workersIn).OnChange(e.setWorkers),
		app.Small().Class("help").Text(fmt.Sprintf("Web Workers sharing the search (this device has %d cores; default up to %d).", app.Window().Get("navigator").Get("hardwareConcurrency").Int(), MaxWorkers)),
		app.If(workersErr != "", func() app.UI { return app.Small().Class("error").Text(workersErr) }),
	))
	running := e.state == "running" || e.state == "cancelling"
	canRun := e.x0 != nil && e.paramsOK && e.ready > 0 && !running
	return app.Section().Class("card").Body(
		app.H2().Text("3 · Search"),
		app.Div().Class("form").Body(basic...),
		app.Details().Class("advanced").Body(append([]app.UI{app.Summary().Text("Advanced options")}, advanced...)...),
		app.Div().Class("row run").Body(
			app.Button().ID("run").Class("primary").Text("Explain").Disabled(!canRun).OnClick(func(ctx app.Context, _ app.Event) { e.run(ctx) }),
			app.Button().ID("cancel").Text("Cancel").Disabled(e.state != "running").OnClick(func(ctx app.Context, _ app.Event) { e.cancel(ctx) }),
		),
		app.Progress().ID("progress").Max(max(e.total, 1)).Value(len(e.results)).Aria("label", "explanations found"),
		app.P().ID("status").Class("status").Aria("live", "polite").Text(e.status()),
	)
}

// status says what is happening, in words.
func (e *Explainer) status() string {
	workers := fmt.Sprintf("%d of %d workers ready", e.ready, len(e.poolWorkers()))
	switch e.state {
	case "running":
		s := fmt.Sprintf("%d of %d explanations", len(e.results), e.total)
		if len(e.results) > 0 {
			s += fmt.Sprintf(" (first after %s)", fmtDuration(e.firstResult))
		}
		return s + " …"
	case "cancelling":
		return "Cancelling …"
	case "cancelled":
		return fmt.Sprintf("Cancelled after %s with %d of %d explanations.", fmtDuration(e.elapsed), len(e.results), e.total)
	case "failed":
		return "The search failed: " + e.runErr
	case "done":
		return fmt.Sprintf("Done: %d explanations in %s (first after %s) on %d workers.", len(e.results), fmtDuration(e.elapsed),
			fmtDuration(e.firstResult), e.runWorkers)
	}
	if !e.paramsOK {
		return "Fix the highlighted parameter to search. " + workers + "."
	}
	return workers + "."
}

func (e *Explainer) poolWorkers() []*poolWorker {
	if e.pool == nil {
		return nil
	}
	return e.pool.workers
}

func (e *Explainer) renderResults() app.UI {
	sel := e.selectedExplanation()
	return app.Section().Class("card results").Body(
		app.H2().Text("4 · δ-CLUEs"),
		app.Div().Class("row").Body(
			app.Label().For("sort").Text("order"),
			app.Select().ID("sort").OnChange(func(ctx app.Context, ev app.Event) {
				e.sortBy = ctx.JSSrc().Get("value").String()
				e.scheduleRedraw(ctx)
			}).Body(
				app.Option().Value("label").Text("by label, then cost").Selected(e.sortBy == "label"),
				app.Option().Value("cost").Text("by cost").Selected(e.sortBy == "cost"),
				app.Option().Value("distance").Text("by distance").Selected(e.sortBy == "distance"),
				app.Option().Value("restart").Text("by restart").Selected(e.sortBy == "restart"),
			),
			app.Span().Class("hint").Text("Above each: its label and H; below: its distance d. Grey: H above the threshold. Point at one (or use the arrow keys) to compare it with the input."),
		),
		app.Div().ID("grid-wrap").Class("grid-wrap").Body(
			app.Canvas().ID("grid").Class("grid").Width(10*cellW).Height(cellH).TabIndex(0).
				Aria("label", "the explanations; arrow keys select one").
				On("pointermove", e.gridPoint).On("click", e.gridPoint).OnKeyDown(e.gridKey),
		),
		app.Div().ID("detail").Class("row detail").Hidden(sel == nil).Body(
			app.Figure().Body(app.Canvas().ID("detail-x0").Width(140).Height(140), app.FigCaption().Text("input")),
			app.Figure().Body(app.Canvas().ID("detail-e").Width(140).Height(140), app.FigCaption().Text("explanation")),
			app.Figure().Body(app.Canvas().ID("detail-diff").Width(140).Height(140), app.FigCaption().Body(
				app.Span().Class("added").Text("added"), app.Text(" / "), app.Span().Class("removed").Text("removed"))),
			app.If(sel != nil, func() app.UI {
				x := *sel
				return app.Table().Class("numbers").Body(
					row("label", fmt.Sprintf("%d (p = %.3f)", x.Label, x.Probs[x.Label])),
					row("H total / aleatoric / epistemic", fmt.Sprintf("%.3f / %.3f / %.3f", x.HTotal, x.HAleatoric, x.HEpistemic)),
					row("distance d (L1)", fmt.Sprintf("%.1f", x.Distance)),
					row("latent distance ρ", fmt.Sprintf("%.3f%s", x.Rho, map[bool]string{true: " (on the shell)", false: ""}[x.OnShell])),
					row("cost", fmt.Sprintf("%.4f", x.Cost)),
					row("steps", fmt.Sprintf("%d%s", x.Steps, map[bool]string{true: ", converged", false: ""}[x.Converged])),
					row("restart, mode", fmt.Sprintf("%d, %d%s", x.Restart, x.Mode, dupText(x.DuplicateOf))),
				)
			}),
		),
		app.If(e.summary != nil, func() app.UI { return e.renderSummary() }),
		app.Div().Class("row share").Body(
			app.Button().ID("copy-link").Text("Copy link").Disabled(e.x0 == nil).OnClick(e.copyLink),
			app.Button().ID("download-png").Text("Download grid (PNG)").Disabled(len(e.results) == 0).OnClick(e.downloadPNG),
			app.Button().ID("download-json").Text("Download results (JSON)").Disabled(e.summary == nil).OnClick(e.downloadJSON),
		),
	)
}

func dupText(of int) string {
	if of < 0 {
		return ""
	}
	return fmt.Sprintf(", a duplicate of restart %d", of)
}

func (e *Explainer) renderSummary() app.UI {
	s := e.summary
	dist := make([]float32, len(s.LabelDistribution))
	for k, v := range s.LabelDistribution {
		dist[k] = float32(v)
	}
	var modes []string
	for k, m := range s.Modes {
		if m > 0 {
			modes = append(modes, fmt.Sprintf("%d: %d", k, m))
		}
	}
	return app.Div().ID("summary").Class("summary").Body(
		app.Div().Body(
			app.H3().Text("Label distribution"),
			app.P().Class("hint").Text("p(y) ∝ 1 / (lowest cost among the explanations labelled y)², as in the paper's appendix E."),
			bars("label-bars", dist, "p"),
		),
		app.Div().Body(
			app.H3().Text("The set"),
			app.Table().Class("numbers").Body(
				row("accepted", fmt.Sprintf("%d of %d (%d duplicates, %d failed)", s.Accepted, s.Restarts, s.Duplicates, s.Failed)),
				row("labels", fmt.Sprintf("%d distinct: %s", s.DistinctLabels, countsText(s.LabelCounts))),
				row("label entropy", fmt.Sprintf("%.3f nats (%.2f of the maximum)", s.LabelEntropy, s.LabelEntropyNorm)),
				row("H min / mean / max", fmt.Sprintf("%.3f / %.3f / %.3f", s.H.Min, s.H.Mean, s.H.Max)),
				row("d min / mean / max", fmt.Sprintf("%.1f / %.1f / %.1f", s.D.Min, s.D.Mean, s.D.Max)),
				row("on the shell", fmt.Sprintf("%.0f %%", 100*s.ShellFraction)),
				row("DPP (input / latent)", fmt.Sprintf("%.3g / %.3g", s.Input.DPP, s.Latent.DPP)),
				row("coverage (input / latent)", fmt.Sprintf("%.3f / %.3f", s.Input.Coverage, s.Latent.Coverage)),
				row("prediction coverage", fmt.Sprintf("%.3f", s.PredictionCoverage)),
				row("modes within labels", strings.Join(modes, ", ")),
			),
		),
	)
}

func countsText(c []int) string {
	var parts []string
	for k, n := range c {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d×%d", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

func (e *Explainer) selectedExplanation() *clue.Explanation {
	for i := range e.results {
		if e.results[i].Restart == e.selected && e.results[i].Image != nil {
			return &e.results[i]
		}
	}
	return nil
}

// galleryImages are the gallery's digits as PNG data URLs, made once.
var galleryCache []string

func galleryImages() []string {
	if galleryCache != nil {
		return galleryCache
	}
	for _, d := range gallery() {
		x := d.Image()
		img := image.NewGray(image.Rect(0, 0, mnist.Side, mnist.Side))
		for i, v := range x {
			img.SetGray(i%mnist.Side, i/mnist.Side, color.Gray{uint8(255 - 255*v)})
		}
		var b bytes.Buffer
		png.Encode(&b, img)
		galleryCache = append(galleryCache, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(b.Bytes()))
	}
	return galleryCache
}

// ---- event handlers ----

func (e *Explainer) padPoint(ev app.Event) point {
	return point{ev.Get("offsetX").Float(), ev.Get("offsetY").Float()}
}

func (e *Explainer) padDown(ctx app.Context, ev app.Event) {
	ev.PreventDefault()
	ctx.JSSrc().Call("setPointerCapture", ev.Get("pointerId"))
	e.drawing = true
	e.strokes = append(e.strokes, []point{e.padPoint(ev)})
	redrawPad(e.strokes)
}

func (e *Explainer) padMove(ctx app.Context, ev app.Event) {
	ctx.PreventUpdate()
	if !e.drawing {
		return
	}
	ev.PreventDefault()
	last := &e.strokes[len(e.strokes)-1]
	*last = append(*last, e.padPoint(ev))
	if c := canvas2d("pad"); c != nil {
		s := *last
		drawStroke(c, s[len(s)-2:])
	}
}

func (e *Explainer) padUp(ctx app.Context, ev app.Event) {
	if !e.drawing {
		ctx.PreventUpdate()
		return
	}
	e.drawing = false
	e.padChanged(ctx)
}

func (e *Explainer) padChanged(ctx app.Context) {
	redrawPad(e.strokes)
	x, err := padDigit()
	if err != nil {
		e.x0, e.inspect, e.inputErr = nil, nil, ""
		e.clearResults()
		return
	}
	e.setInput(ctx, sharelink.Quantize(x), "a drawing")
}

func (e *Explainer) undo(ctx app.Context, _ app.Event) {
	if len(e.strokes) > 0 {
		e.strokes = e.strokes[:len(e.strokes)-1]
		e.padChanged(ctx)
	}
}

func (e *Explainer) clearPad(ctx app.Context, _ app.Event) {
	e.strokes = nil
	e.padChanged(ctx)
}

func (e *Explainer) upload(ctx app.Context, ev app.Event) {
	files := ctx.JSSrc().Get("files")
	if files.Length() == 0 {
		return
	}
	file := files.Index(0)
	name := file.Get("name").String()
	var onload, onerror app.Func
	img := app.Window().Get("Image").New()
	objectURL := app.Window().Get("URL").Call("createObjectURL", file)
	onload = app.FuncOf(func(app.Value, []app.Value) any {
		defer onload.Release()
		defer onerror.Release()
		w, h := img.Get("naturalWidth").Int(), img.Get("naturalHeight").Int()
		scale := min(1, 1024/float64(max(w, h))) // keep huge photos cheap
		cw, ch := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
		c := app.Window().Get("document").Call("createElement", "canvas")
		c.Set("width", cw)
		c.Set("height", ch)
		c2d := c.Call("getContext", "2d")
		c2d.Call("drawImage", img, 0, 0, cw, ch)
		app.Window().Get("URL").Call("revokeObjectURL", objectURL)
		x, err := mnist.Preprocess(mnist.Intensities(canvasImage(c2d, cw, ch), cw, ch), cw, ch)
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				e.inputErr = name + ": " + err.Error()
				return
			}
			e.setInput(ctx, sharelink.Quantize(x), name)
		})
		return nil
	})
	onerror = app.FuncOf(func(app.Value, []app.Value) any {
		defer onload.Release()
		defer onerror.Release()
		ctx.Dispatch(func(ctx app.Context) { e.inputErr = name + " is not an image this browser can read." })
		return nil
	})
	img.Set("onload", onload)
	img.Set("onerror", onerror)
	img.Set("src", objectURL)
}

func (e *Explainer) setField(key string) app.EventHandler {
	return func(ctx app.Context, ev app.Event) {
		e.form.set(key, ctx.JSSrc().Get("value").String())
		e.paramsChanged()
	}
}

func (e *Explainer) setCheckbox(key string) app.EventHandler {
	return func(ctx app.Context, ev app.Event) {
		e.form.set(key, strconv.FormatBool(ctx.JSSrc().Get("checked").Bool()))
		e.paramsChanged()
	}
}

func (e *Explainer) paramsChanged() {
	e.params, e.paramsOK = e.form.params()
	e.updateLink()
	e.publish()
}

func (e *Explainer) setWorkers(ctx app.Context, ev app.Event) {
	e.workersIn = ctx.JSSrc().Get("value").String()
	if n, err := strconv.Atoi(e.workersIn); err == nil && n >= 1 && n <= 8 && (e.pool == nil || n != len(e.pool.workers)) &&
		e.state != "running" && e.state != "cancelling" {
		e.startPool(ctx, n)
	}
}

func (e *Explainer) gridPoint(ctx app.Context, ev app.Event) {
	ord := e.ordered()
	k := cellAt(ev.Get("offsetX").Float(), ev.Get("offsetY").Float(), len(ord), gridColumns())
	if k < 0 || ord[k].Restart == e.selected {
		ctx.PreventUpdate()
		return
	}
	e.selectRestart(ctx, ord[k].Restart)
}

func (e *Explainer) gridKey(ctx app.Context, ev app.Event) {
	ord := e.ordered()
	if len(ord) == 0 {
		return
	}
	pos := 0
	for i, x := range ord {
		if x.Restart == e.selected {
			pos = i
		}
	}
	switch ev.Get("key").String() {
	case "ArrowRight":
		pos++
	case "ArrowLeft":
		pos--
	case "ArrowDown":
		pos += gridColumns()
	case "ArrowUp":
		pos -= gridColumns()
	default:
		return
	}
	ev.PreventDefault()
	e.selectRestart(ctx, ord[min(max(pos, 0), len(ord)-1)].Restart)
}

func (e *Explainer) selectRestart(ctx app.Context, restart int) {
	e.selected = restart
	drawGrid("grid", e.ordered(), gridColumns(), e.selected)
	ctx.Defer(func(app.Context) {
		if x := e.selectedExplanation(); x != nil {
			drawDigit("detail-x0", e.x0, 5)
			drawDigit("detail-e", x.Image, 5)
			drawDiff("detail-diff", e.x0, x.Image, 5)
		}
	})
}

func (e *Explainer) copyLink(ctx app.Context, _ app.Event) {
	href := app.Window().Get("location").Get("href").String()
	if cb := app.Window().Get("navigator").Get("clipboard"); !cb.IsUndefined() {
		cb.Call("writeText", href)
	}
}

// download saves a Blob or data URL under a file name.
func download(href, name string) {
	a := app.Window().Get("document").Call("createElement", "a")
	a.Set("href", href)
	a.Set("download", name)
	a.Call("click")
}

func (e *Explainer) downloadPNG(ctx app.Context, _ app.Event) {
	if c := app.Window().GetElementByID("grid"); !c.IsNull() {
		download(c.Call("toDataURL", "image/png").String(), "deltaclue-grid.png")
	}
}

func (e *Explainer) downloadJSON(ctx app.Context, _ app.Event) {
	b, _ := json.MarshalIndent(e.report(), "", " ")
	blob := app.Window().Get("Blob").New([]any{string(b)}, map[string]any{"type": "application/json"})
	u := app.Window().Get("URL").Call("createObjectURL", blob)
	download(u.String(), "deltaclue.json")
	app.Window().Get("URL").Call("revokeObjectURL", u)
}
