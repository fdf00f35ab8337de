// The input: an image made the input, the models' view of it asked for.

package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/sharelink"
)

// setInput makes a (quantised) image the input, and asks a worker for the models' view of it.
func (e *Explainer) setInput(ctx app.Context, q [sharelink.Pixels]uint8, source string) {
	e.takeInput(ctx, q, source)
	e.requestInspect()
}

// takeInput makes a (quantised) image the input, asking the workers nothing yet.
func (e *Explainer) takeInput(ctx app.Context, q [sharelink.Pixels]uint8, source string) {
	e.in.Take(q, source)
	e.resolveCostly() // a new input answers the question
	e.dropRun()
	e.clearResults(ctx)
	e.dropSweep()
	e.updateLink()
	x0 := e.in.X0
	ctx.Defer(func(app.Context) { drawDigit("preview", x0, 4) })
}

func (e *Explainer) requestInspect() {
	if e.pool == nil {
		return
	}
	if ask, ok := e.in.Ask(e.work.ReadyWorkers()); ok {
		e.pool.post(ask.Worker, ask.Request)
	}
}
