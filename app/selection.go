// The selection's effects in the page: the link, the grid's frame, the figures' marks, the detail, and the
// chosen explanation's trajectory asked of a worker (the selection itself is core.Selection).

package app

import (
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// selectRestart chooses a restart, from whichever panel the reader chose it in (a card, a cell, a marker).
func (e *Explainer) selectRestart(ctx app.Context, restart int) {
	e.sel.Select(restart)
	e.updateLink()
	e.requestTrace()
	e.markSelected()
	e.drawGrid(ctx)
	// Published now: nothing else may follow (the grid repaints two cells at once, and the trajectory may be
	// the one already shown), and window.deltaclue would still name the previous choice.
	e.publish()
	ctx.Defer(func(app.Context) {
		if x := e.sel.Chosen(e.work.Run.Results); x != nil {
			k := served().input()
			k.Fill("detail-x0", e.in.X0, inputkind.Detail)
			k.Fill("detail-e", x.Image, inputkind.Detail)
			k.FillDiff("detail-diff", e.in.X0, x.Image, inputkind.Detail)
		}
	})
}

// requestTrace asks a worker, a moment after the selection settles, how the selected explanation was found.
func (e *Explainer) requestTrace() {
	restart := e.sel.Restart
	e.after(150*time.Millisecond, func(ctx app.Context) {
		ks := e.work.ReadyWorkers()
		if e.workers.pool == nil || e.in.X0 == nil || len(ks) == 0 || !e.sel.TraceWanted(restart, e.work.NewID()) {
			return
		}
		p := e.work.Run.Params
		e.workers.pool.post(ks[len(ks)-1], searchworker.Request{Type: "trace", ID: e.sel.TraceID, X0: e.in.X0, Params: &p, Restart: restart})
	})
}

// onTraced shows the selected explanation's trajectory, just come from a worker.
func (e *Explainer) onTraced(ctx app.Context) {
	t := e.sel.Trajectory
	if e.summaryInWorker() { // a large set's map comes back from the summary worker, with the path
		e.requestSummary()
	} else {
		e.refreshFigures()
	}
	ctx.Defer(func(ctx app.Context) {
		for i, f := range t.Frames {
			served().input().Fill("frame-"+strconv.Itoa(i), f.Image, inputkind.Thumb)
		}
		e.drawFigures(ctx)
		e.markSelected()
	})
}
