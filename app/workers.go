// The page's side of the search workers: starting them, taking their messages into the core (and then doing what
// is the page's: the models' view, results to redraw, errors to show), and carrying out the core's commands
// (messages to workers, replaced workers, timers).

package app

import (
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

func (e *Explainer) startPool(ctx app.Context, n int) {
	ctx = lasting(ctx) // (the workers' messages come for the page's life; a Workers field's context may go)
	if e.workers.pool != nil {
		e.workers.pool.close()
	}
	e.workers.err, e.models.stale = "", false
	script := ctx.ResolveStaticResource("/web/worker.js")
	onMessage := func(k int, r searchworker.Response, at float64, raw app.Value) {
		ctx.Dispatch(func(ctx app.Context) { e.onWorker(ctx, k, r, at, raw) })
	}
	// The workers web/loader.js started while the page loaded, once: the assets are posted to every worker
	// started later, and a Worker cannot be cloned.
	early := e.models.assets.Get("pool")
	e.models.assets.Set("pool", nil)
	if early.Truthy() && early.Get("n").Int() == n {
		if link := early.Get("link").String(); link != "" {
			id := early.Get("id").Int()
			e.workers.early = &earlyRun{link: link, id: id}
			e.work.SkipIDs(id)
			e.in.InspectSeq = max(e.in.InspectSeq, id)
		}
		e.work.Resize(n, true, time.Now())
		e.workers.pool = adoptPool(early, script, e.models.assets, onMessage)
	} else {
		if early.Truthy() {
			early.Call("terminate") // started for another number of workers
		}
		e.work.Resize(n, false, time.Now())
		e.workers.pool = newPool(n, script, e.models.assets, onMessage)
	}
	if !e.embed.on { // an embed's sets are small: it summarises them itself rather than run a second worker
		e.startSummariser(ctx, script)
	}
	e.exec(ctx, e.work.WatchStarts(time.Now()))
}

// onWorker handles worker k's message, which the browser delivered at at (ms since navigation) as raw (its
// ArrayBuffer, or nil), on the UI goroutine: the core takes it into the pool and the run first; the shell then
// does what is the page's.
func (e *Explainer) onWorker(ctx app.Context, k int, r searchworker.Response, at float64, raw app.Value) {
	if r.Type == "ready" {
		if e.models.timing != nil && e.models.timing["ready"] == 0 {
			e.models.timing["ready heard"] = max(e.models.timing["ready heard"], at)
		}
		at = saidAt(r, at, timeOrigin())
	}
	if e.workers.holdEarly(k, r, at) {
		return
	}
	run := &e.work.Run
	before := len(run.Results)
	// The run's own answers (and a worker's failure in its midst) are the core's alone.
	probe := e.work.IsProbe(r.ID)
	runs := run.Pending[k] && ((r.ID == 0 && r.Type == "error" && run.Phase == core.Running) || (r.ID > 0 && r.ID == run.ID && r.Type == "error"))
	e.exec(ctx, e.work.Said(k, r, time.Now(), at))
	if probe { // a costly link's timing search (core.Costly)
		if r.Type == "done" || r.Type == "error" {
			e.publish()
		}
		return
	}
	if s := e.sweep.run; s != nil && r.ID > 0 {
		if i, ok := s.Radius(r.ID); ok {
			e.onSweep(ctx, i, r)
			if r.Type != "results" {
				e.publish()
			}
			return
		}
	}
	switch r.Type {
	case "ready":
		e.onReady(ctx, k, r)
	case "traced":
		if e.sel.Traced(r.ID, r.Trajectory) {
			e.onTraced(ctx)
		}
	case "inspected":
		if !e.in.Inspected(r.ID, r.Inspection) { // an answer about an earlier input
			return
		}
		e.models.amortised.latest = amortisedState{Ms: r.Inspection.AmortisedMs, Count: len(r.Inspection.Amortised), Heard: at}
		recon := r.Inspection.Reconstruction // captured: a later input may clear e.in.Inspect before this runs
		ctx.Defer(func(app.Context) { served().input().Fill("recon", recon, inputkind.Card) })
		e.maybeFinish(ctx)
		// Shown now, not at go-app's next frame; and the page's render (the model's view, and a stroke's held
		// back by answerFirst, which need not render it now) after the browser has painted them, not in the same
		// task; or at once, when there are none to show.
		e.models.amortised.held = false
		if e.models.amortised.paint(&e.in, len(e.set.cards) > 0) {
			e.publish()
			ctx.PreventUpdate()
			e.models.amortised.after.request(ctx)
			return
		}
	case "results":
		took := run.Results[min(before, len(run.Results)):]
		if len(took) == 0 {
			return
		}
		e.passOn(raw, len(r.Explanations), took)
		e.scheduleRedraw()
		if before > 0 {
			// Rendering the page for every batch would cost more than the search: the scheduled redraw
			// shows them ten times a second.
			ctx.PreventUpdate()
			return
		}
	case "done":
		if r.ID != run.ID {
			return
		}
		e.maybeFinish(ctx)
	case "error":
		if !e.onError(ctx, r, runs) {
			return
		}
	}
	e.publish()
}

// saidAt is when a ready message was sent, on the page's clock (ms since navigation; origin is the page's
// performance.timeOrigin), from the worker's own clock that it carries; at, when the page's thread heard it, if
// it carries none or a time that cannot be (clocks are the same machine's, but a page must not trust a number
// to be sane). The page's thread is busy while the page first runs: a worker's ready message, and with it the
// time a link's early search started, was heard up to 500 ms after the fact.
func saidAt(r searchworker.Response, at, origin float64) float64 {
	if said := r.At - origin; r.At > 0 && origin > 0 && said > 0 && said < at {
		return said
	}
	return at
}

// onReady takes worker k's word that it is up: the pool's timing and the models it runs, the models' view of
// the input if it is still to be asked, and a link waiting for every worker.
func (e *Explainer) onReady(ctx app.Context, k int, r searchworker.Response) {
	if e.work.ReadyCount() == len(e.work.Workers) && e.models.timing != nil && e.models.timing["ready"] == 0 {
		_, e.models.timing["ready"] = e.work.ReadySpan() // when they said it: an early worker's message waited for the page
	}
	e.models.fingerprint, e.models.name = r.Fingerprint, r.Models
	if m := served(); r.Models != m.name && e.workers.err == "" {
		// The page is laid out for the description it was built with; workers on other models would fill it
		// with answers of another shape.
		e.workers.err = fmt.Sprintf("The search workers run the %q models, but this page was built for %q: the site is damaged. Reload the page; if this persists, rebuild the site.", r.Models, m.name)
	}
	if m := served(); m.err != "" {
		e.workers.err = m.err
	}
	if r.Version != e.models.version {
		e.models.stale = true
	}
	// The first worker up is asked for the models' view of the input; so is the replacement of a worker that
	// died with the question unanswered (else the set would finish with no summary).
	if e.links.Pending == nil && e.in.AskAgain(k) {
		e.requestInspect()
	}
	e.openPendingLink(ctx)
	e.onWorkersReady(ctx)
}

// onError takes a worker's error: the run's (runs: the core has taken it), the input's, the trajectory's, or
// the pool's. It says whether the page's state is to be published now.
func (e *Explainer) onError(ctx app.Context, r searchworker.Response, runs bool) bool {
	if runs {
		e.maybeFinish(ctx)
		return r.ID <= 0
	}
	if r.ID < 0 {
		e.in.Refused(r.ID, sentence(r.Error)) // the page's own messages (an upload's, which starts with its file name) are sentences already
		ctx.Defer(e.repaintAmortised)         // no answers are on their way any more
	} else if !e.sel.TraceFailed(r.ID, r.Error) {
		e.workers.err = r.Error
	}
	return true
}

// exec carries out the core's commands: messages to workers, replaced workers, timers whose events go back to
// the core.
func (e *Explainer) exec(ctx app.Context, cmds []core.Command) {
	for _, c := range cmds {
		switch c := c.(type) {
		case core.Post:
			e.workers.pool.post(c.Worker, c.Request)
		case core.Replace:
			e.workers.pool.restart(c.Worker)
		case core.ResultsReset:
			e.set.summarised = 0
			e.resetSummary()
		case core.After:
			ev := c.Event
			e.after(c.Delay, func(ctx app.Context) { e.onTimer(ctx, ev) })
		}
	}
}

// after runs f on the page's thread in d, on the page's own context, whichever element's handler asked.
func (e *Explainer) after(d time.Duration, f func(app.Context)) { e.page.After(d, f) }

// postAll sends the messages among cmds (a dropped run's or sweep's cancels: they come with nothing else).
func (e *Explainer) postAll(cmds []core.Command) {
	for _, c := range cmds {
		if p, ok := c.(core.Post); ok && e.workers.pool != nil {
			e.workers.pool.post(p.Worker, p.Request)
		}
	}
}

// onTimer hands a timer's event back to the core: the run's watch, or a cancel's grace.
func (e *Explainer) onTimer(ctx app.Context, ev core.Event) {
	var cmds []core.Command
	switch ev := ev.(type) {
	case core.Watch:
		cmds = e.work.Watch(ev, time.Now())
	case core.CancelDue:
		cmds = e.work.CancelDue(ev, time.Now())
	case core.PreviewDue:
		e.startPreview(ctx, ev)
		return
	case core.StartCheck:
		var gaveUp []int
		cmds, gaveUp = e.work.CheckStarts(ev, time.Now())
		for _, k := range gaveUp {
			e.workers.err = fmt.Sprintf("Search worker %d did not start after %d tries; the page runs with the others.", k+1, core.StartTries)
		}
		e.exec(ctx, cmds)
		if len(gaveUp) > 0 {
			e.openPendingLink(ctx)
			e.publish()
		} else {
			ctx.PreventUpdate()
		}
		return
	case core.SweepCancelDue:
		cmds = e.work.SweepCancelled(ev, time.Now())
		if e.sweep.run.running() {
			e.exec(ctx, cmds)
			e.maybeFinishSweep(ctx)
			e.publish()
			return
		}
	}
	if cmds == nil {
		ctx.PreventUpdate()
		return
	}
	e.exec(ctx, cmds)
	e.maybeFinish(ctx)
	e.publish()
}
