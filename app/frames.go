// Work spread over animation frames.

package app

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// frameQueue runs a step in the page's next animation frame, on go-app's UI goroutine and without
// re-rendering the page. Asking again before that frame replaces the step and requests nothing more: one
// request is under way at a time. Its callback is made once and kept for the page's life.
type frameQueue struct {
	fn     app.Func
	queued bool
	ctx    app.Context
	step   func()
}

// request runs step in the next animation frame.
func (q *frameQueue) request(ctx app.Context, step func()) {
	q.ctx, q.step = ctx, step
	if q.queued {
		return
	}
	if q.fn == nil {
		q.fn = pageFuncOf(func(app.Value, []app.Value) any {
			q.ctx.Dispatch(func(ctx app.Context) {
				ctx.PreventUpdate()
				q.queued = false
				q.step()
			})
			return nil
		})
	}
	q.queued = true
	app.Window().Call("requestAnimationFrame", q.fn)
}
