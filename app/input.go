// The input: what a link, a host page or the input's kind (inputkind.Host's Take) gives made the input, the
// models' view of it asked for.

package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
)

// setInput makes an input, as a link carries it (its kind's Carry), the input, and asks a worker for the models' view of it, first of all:
// its amortised answers are what the visitor sees next (a stroke's, within a frame).
func (e *Explainer) setInput(ctx app.Context, q []uint8, source string) {
	e.in.Take(served().input().Carried(q), source)
	e.requestInspect()
	e.tookInput(ctx)
}

// takeInput makes an input, as a link carries it, the input, asking the workers nothing yet.
func (e *Explainer) takeInput(ctx app.Context, q []uint8, source string) {
	e.in.Take(served().input().Carried(q), source)
	e.tookInput(ctx)
}

// tookInput drops what belonged to the input before: its run, results, sweep and link.
func (e *Explainer) tookInput(ctx app.Context) {
	e.resolveCostly() // a new input answers the question
	e.dropRun()
	e.clearResults(ctx)
	e.dropSweep()
	e.updateLink()
	x0 := e.in.X0
	ctx.Defer(func(ctx app.Context) {
		served().input().Fill("preview", x0, inputkind.Card)
		e.repaintAmortised(ctx) // the last input's answers, dimmed until this one's come
	})
}

func (e *Explainer) requestInspect() {
	if e.workers.pool == nil {
		return
	}
	if ask, ok := e.in.Ask(e.work.ReadyWorkers()); ok {
		e.workers.pool.post(ask.Worker, ask.Request)
	}
}
