package app

import (
	"encoding/json"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/webjs"
)

// publishReport makes window.deltaclue.report the finished run's report as JSON, written when it is first read:
// marshalling a set of 1000 (7 MB of JSON) blocked the page's thread for a quarter of a second at the end of
// every run, for a text that only the console and the tests read.
func (e *Explainer) publishReport() {
	if e.reportGetter == nil {
		e.reportGetter = webjs.PageFuncOf(func(app.Value, []app.Value) any {
			if e.set.reportJSON == "" && (e.work.Run.Phase == core.Done || e.work.Run.Phase == core.Cancelled) {
				b, _ := json.Marshal(e.report())
				e.set.reportJSON = string(b)
			}
			return e.set.reportJSON
		})
	}
	app.Window().Get("Object").Call("defineProperty", app.Window().Get("deltaclue"), "report",
		map[string]any{"get": e.reportGetter, "enumerable": true, "configurable": true})
}

// slowest holds, for each step of the page's work on a run's results, the longest it took (ms): published as
// window.deltaclue.slowest, so that a test or a console can tell which step blocks the main thread.
var slowest = map[string]any{}

// timed runs f and records its duration under step.
func timed(step string, f func()) {
	start := time.Now()
	f()
	tookSince(step, start)
}

// tookSince records under step the time since start, if it is the longest yet.
func tookSince(step string, start time.Time) {
	ms := float64(time.Since(start).Microseconds()) / 1000
	if old, _ := slowest[step].(float64); ms > old {
		slowest[step] = ms
	}
}

// renders counts each panel's renders (window.deltaclue.renders): a panel is rendered again only when its view
// of the page changed, so results streaming in must not render the pad or the model's view again.
var renders = map[string]any{}

// rendered counts a render of panel, begun at start, and records how long it took to build.
func rendered(panel string, start time.Time) {
	n, _ := renders[panel].(int)
	renders[panel] = n + 1
	tookSince("render "+panel, start)
}
