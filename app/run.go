// A run as the page sees it: started, previewed, cancelled, finished and summarised; the core (package core)
// schedules it over the workers.

package app

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// clearResults forgets the run's results and all that was made of them, and repaints what showed them.
func (e *Explainer) clearResults(ctx app.Context) {
	e.work.Run.Clear()
	e.sel.Clear()
	e.set.summary, e.set.sentence, e.set.summarised, e.set.reportJSON, e.set.carlaOf = nil, "", 0, "", nil
	e.set.setCards(nil)
	e.set.tradeoffSVG, e.set.mapSVG = "", ""
	e.set.elapsed = 0
	e.resetSummary()
	// The grid and the figures are painted by the page, not rendered by go-app: without a repaint they would go on
	// showing the last set beside an input that has none.
	e.redrawResults(ctx)
}

// run starts a search on every ready worker, each with its share of the restarts.
func (e *Explainer) run(ctx app.Context) {
	e.work.HoldPreviews() // a preview still waiting for its debounce must not replace the full set
	if e.in.X0 != nil && !e.running() && e.work.Costly == nil && e.work.AskSlow(e.settings.Params) {
		e.publish() // a search that would take long on this device asks first (the question's banner)
		return
	}
	e.runAsked(ctx)
}

// runAsked runs the form's search without asking: the visitor already chose to (a costly link's Run it).
func (e *Explainer) runAsked(ctx app.Context) {
	e.work.HoldPreviews()
	e.start(ctx, e.settings.Params, false)
}

// start runs a search with parameters p on every ready worker, each with its share of the restarts. It replaces
// a live preview still running (with a newer preview, or with the full set); nothing interrupts a full set.
func (e *Explainer) start(ctx app.Context, p clue.Params, preview bool) {
	if e.in.X0 == nil || !e.settings.OK || e.workers.pool == nil || e.sweep.run.running() || (e.running() && !e.work.Run.Preview) ||
		e.work.ReadyCount() == 0 {
		return
	}
	e.dropRun()       // the preview of an earlier drawing, if one runs: its workers drop it at their next step
	e.resolveCostly() // a run answers the question
	e.clearResults(ctx)
	e.links.Err = ""
	cmds, _ := e.work.Start(e.in.X0, p, preview, time.Now())
	if !preview {
		e.embed.started(e.work.Run.ID)
	}
	e.exec(ctx, cmds)
	e.updateLink()
	e.scheduleRedraw()
	e.publish()
}

// PreviewRestarts is the size of a live preview's set.
const PreviewRestarts = 24

// schedulePreview runs a small set a moment after the pen lifts (debounced: a stroke that follows soon
// replaces it), when live mode is on.
func (e *Explainer) schedulePreview(ctx app.Context) {
	if !e.in.Live || e.in.X0 == nil {
		return
	}
	e.exec(ctx, e.work.Edited(time.Now()))
}

// startPreview starts the live preview of a stroke whose debounce has ended (core.PreviewDue), unless a later
// stroke or a full set came first, or its parameters would make it a costly search.
func (e *Explainer) startPreview(ctx app.Context, ev core.PreviewDue) {
	p := e.settings.Params
	p.N = PreviewRestarts
	if !e.work.PreviewMayStart(ev) || e.in.X0 == nil || p.Validate() != nil || costlyPreview(p) {
		ctx.PreventUpdate()
		return
	}
	e.start(ctx, p, true)
	if e.work.Run.Preview {
		e.work.Run.EditedAt = ev.EditedAt
	}
}

// cancel asks the workers to stop; one that has not stopped within a second is replaced.
func (e *Explainer) cancel(ctx app.Context) {
	e.exec(ctx, e.work.Cancel())
}

// maybeFinish closes the run once every worker is done: the set's metrics, the final grid.
func (e *Explainer) maybeFinish(ctx app.Context) {
	if !e.work.Run.Settled() {
		return
	}
	if !e.summaries.finishing {
		e.set.elapsed = time.Since(e.work.Run.Started)
		e.work.Run.SortResults()
	}
	// A large set's summary is the summary worker's: the run ends once it has summarised every result.
	if e.summaryInWorker() && len(e.work.Run.Results) > 0 && (e.set.summarised != len(e.work.Run.Results) || e.summaries.figuresFor != len(e.work.Run.Results)) {
		e.summaries.finishing = true
		e.requestSummary()
		return
	}
	// A small set's figures come from the summary worker too: a set is done with them, as a large one is (not a
	// live preview's, whose answer is its cards).
	if e.smallSetFiguresOwed() {
		e.summaries.finishing = true
		if e.summaries.figuresAsked != len(e.work.Run.Results) {
			e.refreshFigures()
		}
		return
	}
	e.summaries.finishing = false
	if e.work.Run.Close() == core.Done && e.work.Run.Preview {
		e.set.previewTime = time.Since(e.work.Run.EditedAt)
	}
	e.summarise()
	// A small set's figures follow the results at most once a second while it runs: the last ones asked for may
	// be of fewer results than the set has (a preview's, which the run does not wait for).
	if !e.summaryInWorker() && e.summaries.figuresAsked != len(e.work.Run.Results) {
		e.refreshFigures()
	}
	if l := e.links.Restore; l != nil && e.work.Run.Phase == core.Done {
		e.links.Restore = nil
		if l.Selected >= 0 {
			e.selectRestart(ctx, l.Selected)
		}
		if len(l.Sweep.Radii) > 0 && !e.embed.on { // an embed shows no sweep: it does not run one
			e.runSweep(ctx, l.Sweep)
		}
	}
	if e.work.Run.Phase == core.Done {
		e.onSetDone()
	}
	e.scheduleRedraw()
	e.publish()
}

// summarise brings the set's summary, its mode cards and its sentence up to date with the results so far.
func (e *Explainer) summarise() {
	if e.in.Inspect == nil || len(e.work.Run.Results) == 0 || e.set.summarised == len(e.work.Run.Results) {
		return
	}
	if e.summaryInWorker() {
		e.requestSummary()
		return
	}
	e.work.Run.SortResults()
	s := clue.Summarize(e.in.X0, e.in.Inspect.Z0, len(e.in.Inspect.Prediction.Probs), e.work.Run.Params, e.work.Run.Results)
	e.set.summary, e.set.summarised = &s, len(e.work.Run.Results)
	e.set.carlaOf = e.carlaNow()
	e.set.setCards(clue.ModeCards(e.work.Run.Results, s))
	e.set.sentence = served().input().Describe(served().words(), e.in.X0, e.in.Inspect.Prediction, e.work.Run.Results, s, e.work.Run.Params)
	// The figures (two SVGs the browser parses anew) follow at most once a second while results stream in.
	if !e.running() || time.Since(e.set.figuresAt) >= time.Second {
		e.refreshFigures()
		e.set.figuresAt = time.Now()
	}
}

// dropRun tells the workers to stop a run whose input is gone; its late messages are ignored by their ID.
func (e *Explainer) dropRun() {
	e.postAll(e.work.Drop())
}

// dropSweep forgets the sweep of an earlier input, cancelling it if it still runs.
func (e *Explainer) dropSweep() {
	e.postAll(e.work.DropSweep())
	e.sweep.run, e.sweep.inLink = nil, false
}

// running says whether a run is under way (or being cancelled).
func (e *Explainer) running() bool { return e.work.Run.Active() }

// report is the run as the JSON that `deltaclue explain` writes.
func (e *Explainer) report() clue.Report {
	r := clue.Report{Input: e.in.Source, Params: e.work.Run.Params, X0: e.in.X0, Explanations: e.work.Run.Results, Seconds: e.set.elapsed.Seconds()}
	if len(e.work.Run.Results) > 0 {
		r.SecondsPerExplanation = r.Seconds / float64(len(e.work.Run.Results))
	}
	if e.in.Inspect != nil {
		r.Z0, r.Prediction, r.Label = e.in.Inspect.Z0, e.in.Inspect.Prediction, argmax(e.in.Inspect.Prediction.Probs)
	}
	if e.set.summary != nil {
		r.Summary = *e.set.summary
		c := clue.CARLAOf(e.in.X0, r.Label, e.work.Run.Results)
		c.YNNData = "not computed: the page has no dataset (deltaclue explain -link computes it)"
		r.CARLA = &c
	}
	return r
}

// carlaNow is CARLA's measures of the results as they are (but yNN, which needs the dataset), made when the
// summary is: the set panel showed them recomputed over every result at every render of the page.
func (e *Explainer) carlaNow() *clue.CARLA {
	if e.in.Inspect == nil {
		return nil
	}
	c := clue.CARLAOf(e.in.X0, argmax(e.in.Inspect.Prediction.Probs), e.work.Run.Results)
	return &c
}

func argmax(p []float32) int {
	best := 0
	for k, v := range p {
		if v > p[best] {
			best = k
		}
	}
	return best
}
