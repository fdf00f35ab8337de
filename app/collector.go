// When the page's garbage is collected.

package app

import (
	"runtime"
	"runtime/debug"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
)

// collector keeps Go's garbage collector out of a search. WebAssembly gives Go one thread: a collection runs
// inside whichever task of the page allocates, and holds the page's thread for 20–130 ms of CPU (a set of
// 1000 restarts holds thousands of images). While a search runs, the page's results, summaries and figures
// allocate tens of MB, so even at a goal of nine times the live heap (GOGC 800) a run of 1000 met a collection,
// in the middle of the streaming set, in a third of the runs measured. So collections are held while a search
// runs (the soft memory limit set at start-up still collects if a huge set nears it), and one is made once the
// answer has been on screen for a while and the browser is idle. That one is made whether or not the heap has
// reached its goal: the JavaScript objects the page's Go values hold (images, typed arrays) are released only
// by Go's collections, and searches in a row would otherwise pile them up in the browser's heap.
type collector struct {
	ctx     app.Context
	mounted bool      // ctx is the page's
	percent int       // the goal (GOGC) while not held
	held    bool      // collections are off
	due     bool      // a release is scheduled
	since   time.Time // since when the page has been seen quiet (zero: not yet)
	fn      app.Func
	quiet   func() bool // nothing runs or remains to paint

	// Collections counts the collections made in idle time (published as window.deltaclue.collections).
	Collections int
}

// mount gives the collector the page's context, to schedule its releases with.
func (c *collector) mount(ctx app.Context) { c.ctx, c.mounted = ctx, true }

// idleCollectionDelay is how long a finished answer stays on screen, undisturbed, before the page's heap may
// be collected: a visitor reads it, or starts the next search (which holds collections again).
const idleCollectionDelay = time.Second

// follow holds collections while searching, and schedules their release when not: it is called whenever the
// page's state changes (publish). quiet says whether the page has nothing left to do for now.
func (c *collector) follow(searching bool, quiet func() bool) {
	c.quiet = quiet
	if searching {
		if !c.held {
			c.percent = debug.SetGCPercent(-1)
			c.held = true
		}
		c.since = time.Time{}
		return
	}
	if c.held && !c.due && c.mounted {
		c.schedule()
	}
}

// schedule runs release in the first idle period after half of idleCollectionDelay.
func (c *collector) schedule() {
	if c.fn == nil {
		c.fn = webjs.PageFuncOf(func(app.Value, []app.Value) any {
			c.ctx.Dispatch(func(ctx app.Context) {
				ctx.PreventUpdate()
				c.release()
			})
			return nil
		})
	}
	c.due = true
	c.ctx.After(idleCollectionDelay/2, func(ctx app.Context) {
		ctx.PreventUpdate()
		if w := app.Window(); w.Get("requestIdleCallback").Truthy() {
			w.Call("requestIdleCallback", c.fn, map[string]any{"timeout": 2000})
		} else { // WebKit has no idle callbacks
			w.Call("setTimeout", c.fn, 0)
		}
	})
}

// release restores the goal and collects, once the page has been seen quiet for idleCollectionDelay and the
// browser is idle.
func (c *collector) release() {
	c.due = false
	if !c.held {
		return
	}
	switch {
	case !c.quiet(): // its answer is still being painted (a new search holds them still)
		c.since = time.Time{}
		c.schedule()
		return
	case c.since.IsZero() || time.Since(c.since) < idleCollectionDelay:
		if c.since.IsZero() {
			c.since = time.Now()
		}
		c.schedule()
		return
	}
	c.held = false
	debug.SetGCPercent(c.percent)
	start := time.Now()
	runtime.GC()
	c.Collections++
	d := app.Window().Get("deltaclue") // published at once: nothing else changes, so publish does not run
	d.Set("collections", c.Collections)
	d.Set("idleCollectionMs", float64(time.Since(start).Microseconds())/1000)
	d.Set("collectionsHeld", false)
}

// searching says whether a search (a run or a sweep) is under way.
func (e *Explainer) searching() bool { return e.running() || e.sweep.run.running() }

// quiet says whether the page has nothing left to do: no search, and its answer painted in full.
func (e *Explainer) quiet() bool { return !e.searching() && e.painted() }
