// Work spread over animation frames.

package app

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
)

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
	q.ctx, q.step = lasting(ctx), step
	if q.queued {
		return
	}
	if q.fn == nil {
		q.fn = webjs.PageFuncOf(func(_ app.Value, args []app.Value) any {
			at := 0.0
			if len(args) > 0 {
				at = args[0].Float()
			}
			q.ctx.Dispatch(func(ctx app.Context) {
				ctx.PreventUpdate()
				q.queued = false
				frame.enter(at)
				defer frame.leave()
				q.step()
			})
			return nil
		})
	}
	q.queued = true
	app.Window().Call("requestAnimationFrame", q.fn)
}

// pageContext is the page component's own context (Explainer.OnMount), mounted for the page's life.
var pageContext struct {
	ctx app.Context
	set bool
}

// lasting is the context to dispatch a later callback on: the page's own. go-app silently drops what is
// dispatched on the context of an element that has since gone (the Explain button a finished run re-renders), and
// a frame queue whose callback was dropped stays queued for good: the grid half painted, the cards blank (WebKit,
// now and then, in CI).
func lasting(ctx app.Context) app.Context {
	if pageContext.set {
		return pageContext.ctx
	}
	return ctx
}

// frameBudget is the page's share of one animation frame. Every callback of a frame runs in one task of the
// page's thread, followed by the browser's styling, layout and painting of what they changed: the grid's cells,
// a figure's parts and what a render left to draw share it, rather than each taking a budget of its own (a
// slice of the grid, one of each figure and the cards made frames of 50–60 ms with the painting).
const frameBudget = 8 * time.Millisecond

// frame is the animation frame the page's steps run in, if any.
var frame frameClock

type frameClock struct {
	at    float64   // the frame's time (requestAnimationFrame's argument)
	start time.Time // when its first step began
	in    bool      // a step of it is running
}

func (f *frameClock) enter(at float64) {
	if at != f.at || f.start.IsZero() {
		f.at, f.start = at, time.Now()
	}
	f.in = true
}

func (f *frameClock) leave() { f.in = false }

// left is what remains of the frame's budget for a step that would take at most limit: limit itself outside a
// frame (work done at once, as a small repaint after a choice is), and nothing once the frame is spent.
func (f *frameClock) left(limit time.Duration) time.Duration {
	if !f.in {
		return limit
	}
	return min(limit, frameBudget-time.Since(f.start))
}

// renderAfterPaint renders the page (a dispatch that does not prevent its update) once the browser has presented
// its next frame: what was just put in the page directly (the amortised answers) is seen first, and go-app's
// render of everything else follows it, rather than share its task and hold its frame back.
type renderAfterPaint struct {
	frame, task app.Func
	queued      bool
	ctx         app.Context
}

// request asks for the render; asking again before it comes asks nothing more.
func (r *renderAfterPaint) request(ctx app.Context) {
	r.ctx = lasting(ctx)
	if r.queued {
		return
	}
	if r.frame == nil {
		r.task = webjs.PageFuncOf(func(app.Value, []app.Value) any {
			r.ctx.Dispatch(func(app.Context) { r.queued = false })
			return nil
		})
		// A task queued from an animation frame's callback runs after that frame is painted.
		r.frame = webjs.PageFuncOf(func(app.Value, []app.Value) any {
			app.Window().Call("setTimeout", r.task, 0)
			return nil
		})
	}
	r.queued = true
	app.Window().Call("requestAnimationFrame", r.frame)
}
