// The δ sweep panel (5 · Sweep δ): the same digit and parameters over a ladder of radii, streamed through the
// worker pool, with the label distribution, distinct labels and best H against δ, and how far each label is.

package app

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// sweepRun is a δ sweep in progress or finished as the page shows it: its schedule over the workers is the
// core's (core.Sweep, which it points to); the page adds each radius's summary, the chart and the reaches.
type sweepRun struct {
	*core.Sweep
	steps   []*clue.SweepStep // per radius, nil until every worker finished it
	elapsed time.Duration
	reaches []clue.Reach
	svg     string
}

func (s *sweepRun) running() bool { return s != nil && s.Active() }

// ladderInput reads the ladder fields, with a sentence saying what is wrong if they are not a ladder.
func (e *Explainer) ladderInput() (clue.Ladder, string) {
	radii, err := clue.ParseRadii(e.sweep.radiiIn)
	if err != nil {
		return clue.Ladder{}, strings.TrimPrefix(err.Error(), "ladder = ")
	}
	n, err := strconv.Atoi(strings.TrimSpace(e.sweep.nIn))
	if err != nil {
		return clue.Ladder{}, fmt.Sprintf("n per radius %q is not a whole number", e.sweep.nIn)
	}
	l := clue.Ladder{Radii: radii, N: n}
	if err := l.Validate(); err != nil {
		pe, ok := err.(*clue.ParamError)
		if ok {
			return l, fmt.Sprintf("%v: %s", pe.Value, pe.Reason)
		}
		return l, err.Error()
	}
	return l, ""
}

// sweepView is what the sweep panel shows.
type sweepView struct {
	RadiiIn, NIn string // the ladder, as typed
	LadderErr    string
	CanRun       bool
	CanCancel    bool
	Shown        bool // a sweep was run on this input
	Total, Done  int  // its restarts, and those done
	Status       string
	SVG          string
	Sentence     string
	Reaches      []clue.Reach
}

func (e *Explainer) sweepView() sweepView {
	s := e.sweep.run
	_, ladderErr := e.ladderInput()
	v := sweepView{RadiiIn: e.sweep.radiiIn, NIn: e.sweep.nIn, LadderErr: ladderErr,
		CanRun:    e.in.X0 != nil && e.settings.OK && e.work.ReadyCount() > 0 && ladderErr == "" && !s.running() && !e.running(),
		CanCancel: s != nil && s.Phase == core.Running}
	if s != nil {
		v.Shown, v.Total, v.Done = true, len(s.Ladder.Radii)*s.Ladder.N, s.Done()
		v.Status, v.SVG, v.Sentence, v.Reaches = e.sweepStatus(), s.svg, e.reachSentence(), s.reaches
	}
	return v
}

// sweepPanel is 5 · Sweep δ: the same search at each radius of a ladder, which labels appear as the ball
// grows, and the smallest δ at which the model is sure of each.
type sweepPanel struct {
	app.Compo
	Page *Explainer
	View sweepView
}

func (p *sweepPanel) Render() app.UI {
	defer rendered("sweep", time.Now())
	v, e := p.View, p.Page
	ladderErr := v.LadderErr
	return app.Section().ID("sweep").Class("card results").Body(
		app.H2().Text("5 · Sweep δ: how far is each label?"),
		app.P().Class("hint").Text("The same input and parameters, searched again at each radius of a ladder: which labels appear as the ball grows, "+
			"and the smallest δ at which the model is sure of each."),
		app.Div().Class("row").Body(
			app.Div().Class("field").Body(
				app.Label().For("sweep-radii").Text("radii δ"),
				app.Input().ID("sweep-radii").Type("text").Value(v.RadiiIn).Aria("invalid", ladderErr != "").
					Aria("describedby", "sweep-help").OnChange(func(ctx app.Context, _ app.Event) {
					e.sweep.radiiIn = ctx.JSSrc().Get("value").String()
				}),
			),
			app.Div().Class("field").Body(
				app.Label().For("sweep-n").Text("n per radius"),
				app.Input().ID("sweep-n").Type("text").Attr("inputmode", "numeric").Value(v.NIn).Aria("invalid", ladderErr != "").
					OnChange(func(ctx app.Context, _ app.Event) { e.sweep.nIn = ctx.JSSrc().Get("value").String() }),
			),
			app.Button().ID("sweep-run").Class("primary").Text("Sweep δ").Disabled(!v.CanRun).OnClick(func(ctx app.Context, _ app.Event) {
				if l, bad := e.ladderInput(); bad == "" { // read now: go-app keeps a handler's first closure
					e.runSweep(ctx, l)
				}
			}),
			app.Button().ID("sweep-cancel").Text("Cancel").Disabled(!v.CanCancel).OnClick(func(ctx app.Context, _ app.Event) { e.cancelSweep(ctx) }),
			app.Button().ID("download-sweep").Text("Download (SVG)").Aria("label", "download the sweep's figure (SVG)").
				Disabled(!v.Shown || v.Done < v.Total || v.SVG == "").OnClick(e.downloadSweep),
		),
		app.Small().ID("sweep-help").Class("help").Text(fmt.Sprintf("Up to %d radii in (0, 20], increasing, separated by commas, or first:last:step.", clue.MaxRadii)),
		app.If(ladderErr != "", func() app.UI { return app.P().ID("sweep-error").Class("error").Role("alert").Text(ladderErr) }),
		app.If(v.Shown, func() app.UI {
			return app.Div().Body(
				app.Progress().ID("sweep-progress").Max(max(v.Total, 1)).Value(v.Done).Aria("label", "restarts of the sweep done"),
				app.P().ID("sweep-status").Class("status").Aria("live", "polite").Text(v.Status),
				app.Div().Class("figures").Body(
					app.Figure().Class("figure-box").Body(app.Div().ID("sweep-chart").Body(app.Raw(v.SVG))),
					app.Div().Body(
						app.P().ID("reach-sentence").Class("sentence").Text(v.Sentence),
						app.Div().ID("reaches").Class("strip").Body(app.Range(v.Reaches).Slice(func(i int) app.UI {
							r := v.Reaches[i]
							return app.Figure().Body(
								served().input().Placeholder("reach-"+strconv.Itoa(r.Label), inputkind.Thumb, "the nearest confident "+served().class(r.Label)),
								app.FigCaption().Body(app.Div().Text(fmt.Sprintf("%s at δ %g", served().class(r.Label), r.Delta)),
									app.Div().Text(fmt.Sprintf("H %.2f · d %.1f", r.Explanation.HTotal, r.Explanation.Distance))),
							)
						})),
					),
				),
			)
		}),
	)
}

func (e *Explainer) sweepStatus() string {
	s := e.sweep.run
	finished := 0
	for _, st := range s.steps {
		if st != nil {
			finished++
		}
	}
	radii := plural.Of(finished, len(s.Ladder.Radii), "radius", "radii")
	switch s.Phase {
	case core.Running:
		return fmt.Sprintf("Sweeping: %s, %s …", radii, plural.Of(s.Done(), len(s.Ladder.Radii)*s.Ladder.N, "restart"))
	case core.Cancelling:
		return "Cancelling the sweep …"
	case core.Cancelled:
		return fmt.Sprintf("Cancelled after %s: %s finished, shown below.", fmtDuration(s.elapsed), radii)
	case core.Failed:
		return "The sweep failed: " + s.Err
	}
	return fmt.Sprintf("Done: %s × %s in %s.", plural.Count(len(s.Ladder.Radii), "radius", "radii"), plural.Count(s.Ladder.N, "restart"), fmtDuration(s.elapsed))
}

// reachSentence says how far each label is, over the radii finished in order so far.
func (e *Explainer) reachSentence() string {
	s := e.sweep.run
	if len(s.reaches) == 0 && s.Phase == core.Running {
		return ""
	}
	l := s.Ladder
	if n := len(s.finishedPrefix()); n < len(l.Radii) {
		l.Radii = l.Radii[:max(n, 1)]
	}
	label0 := -1
	if e.in.Inspect != nil {
		label0 = e.in.Inspect.Prediction.Label()
	}
	return served().words().DescribeReaches(s.reaches, l, label0)
}

// finishedPrefix is the sweep's steps up to the first radius still running: what a reach may be read from.
func (s *sweepRun) finishedPrefix() []clue.SweepStep {
	var out []clue.SweepStep
	for _, st := range s.steps {
		if st == nil {
			break
		}
		out = append(out, *st)
	}
	return out
}

// runSweep starts the ladder's searches: every radius's restarts shared among the ready workers, all queued at
// once, so that each worker works through its shares in increasing δ.
func (e *Explainer) runSweep(ctx app.Context, l clue.Ladder) {
	if e.in.X0 == nil || !e.settings.OK || e.workers.pool == nil || e.sweep.run.running() || e.running() {
		return
	}
	cmds, ok := e.work.StartSweep(e.in.X0, e.settings.Params, l, time.Now())
	if !ok {
		return
	}
	e.exec(ctx, cmds)
	s := &sweepRun{Sweep: e.work.Sweep, steps: make([]*clue.SweepStep, len(l.Radii))}
	e.sweep.run, e.sweep.inLink = s, true
	s.refresh(e)
	e.updateLink()
}

// onSweep handles a worker's message about one of the sweep's searches.
// The core has taken it into the sweep already (core.Pool.Said).
func (e *Explainer) onSweep(ctx app.Context, i int, r searchworker.Response) {
	s := e.sweep.run
	switch r.Type {
	case "results":
		ctx.PreventUpdate() // the progress shows at the next radius's end; redrawing per result costs more than it shows
		return
	case "done", "error":
		if s.Complete(i) && s.steps[i] == nil && (r.Error == "" || r.Error == searchworker.Cancelled) && s.Phase == core.Running {
			e.finishRadius(i)
		}
	}
	e.maybeFinishSweep(ctx)
	ctx.Defer(func(app.Context) { e.drawReaches() })
}

// finishRadius summarises a radius whose every share has come back.
func (e *Explainer) finishRadius(i int) {
	s := e.sweep.run
	exps := s.Results[i]
	sort.Slice(exps, func(a, b int) bool { return exps[a].Restart < exps[b].Restart })
	p := s.Ladder.AtRadius(s.Params, i)
	if e.in.Inspect == nil || len(exps) != p.Restarts() {
		return
	}
	st := clue.SweepStep{Delta: p.Delta, Explanations: exps,
		Summary: clue.Summarize(e.in.X0, e.in.Inspect.Z0, len(e.in.Inspect.Prediction.Probs), p, exps)}
	s.steps[i] = &st
	s.refresh(e)
}

// maybeFinishSweep closes the sweep once no worker owes it anything.
func (e *Explainer) maybeFinishSweep(ctx app.Context) {
	s := e.sweep.run
	if s == nil || !s.Settled() {
		return
	}
	s.elapsed = time.Since(s.Started)
	s.Close()
	s.refresh(e)
}

// refresh remakes the sweep's chart and reaches from the radii finished so far, and draws the reach images
// once go-app has rendered their canvases.
func (s *sweepRun) refresh(e *Explainer) {
	chart := figures.SweepOf(s.Ladder, s.steps, s.Params.HThreshold)
	chart.Names = served().classes
	s.svg = figures.Sweep(chart)
	s.reaches = clue.Reaches(s.finishedPrefix())
	e.sweep.drawPending = true
}

// drawReaches draws each label's nearest explanation.
func (e *Explainer) drawReaches() {
	if e.sweep.run == nil || !e.sweep.drawPending {
		return
	}
	e.sweep.drawPending = false
	for _, r := range e.sweep.run.reaches {
		served().input().Fill("reach-"+strconv.Itoa(r.Label), r.Explanation.Image, inputkind.Thumb)
	}
}

// cancelSweep stops the sweep; the radii already finished stay shown. A worker that has not answered within a
// second is replaced.
func (e *Explainer) cancelSweep(ctx app.Context) {
	e.exec(ctx, e.work.CancelSweep())
}
