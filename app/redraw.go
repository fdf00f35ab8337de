// Redrawing the results: the grid's order, the throttled redraw, the grid's width, and the state published
// in window.deltaclue.

package app

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// ordered returns the results in the grid's order (core.Selection.Ordered). The grid, the published state and
// the keyboard ask for it several times per redraw; sorting and copying 1000 results took the page's thread
// 3–5 ms each time, so the order is kept until the results, their marks or the chosen order change (what
// orderKey reads).
func (e *Explainer) ordered() []clue.Explanation {
	key := orderKey(e.sel, e.work.Run.Results)
	if e.set.order.out == nil || e.set.order.key != key {
		e.set.order.key, e.set.order.out = key, e.sel.Ordered(e.work.Run.Results)
	}
	return e.set.order.out
}

// gridOrder is the grid's order as ordered last made it.
type gridOrder struct {
	key uint64
	out []clue.Explanation
}

// orderKey is a fingerprint (FNV-1a) of what Ordered's answer depends on: the chosen order, and each result's
// place, restart, acceptance, label, cost, distance, mode and duplicate (the fields that change after a result
// came are its marks, set by each summary).
func orderKey(s core.Selection, xs []clue.Explanation) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		for i := 0; i < 8; i++ {
			h = (h ^ (v & 0xff)) * 1099511628211
			v >>= 8
		}
	}
	for i := 0; i < len(s.SortBy); i++ {
		mix(uint64(s.SortBy[i]))
	}
	mix(uint64(len(s.SortBy)))
	if s.ShowAll {
		mix(1)
	}
	mix(uint64(len(xs)))
	for i := range xs {
		x := &xs[i]
		acc := uint64(0)
		if x.Accepted {
			acc = 1
		}
		mix(uint64(uint32(x.Restart)) | acc<<32 | uint64(uint16(x.Label))<<33)
		mix(uint64(math.Float32bits(x.Cost)) | uint64(math.Float32bits(x.Distance))<<32)
		mix(uint64(uint32(x.Mode)) | uint64(uint32(x.DuplicateOf))<<32)
	}
	return h
}

// scheduleRedraw redraws the grid soon, at most ten times a second while results stream in.
func (e *Explainer) scheduleRedraw() {
	if e.set.redrawPending {
		return
	}
	e.set.redrawPending = true
	e.after(100*time.Millisecond, func(ctx app.Context) {
		e.set.redrawPending = false
		// While results stream in, the summary (clustering, figures) is remade at most every 400 ms: it costs
		// the page's thread more than drawing the grid. The run's end always remakes it.
		if !e.running() || time.Since(e.set.summarisedAt) >= 400*time.Millisecond {
			timed("summarise", e.summarise)
			e.set.summarisedAt = time.Now()
		}
		timed("grid", func() { e.redrawResults(ctx) })
		timed("publish", e.publish)
	})
}

// redrawResults draws the results' canvases in the next animation frames, once go-app has rendered their
// elements: the grid, then the mode cards and the sweep's images, each within what is left of the frame's
// budget, and the figures in the frame after. (Drawn in the task that asked for them, which go-app often
// merges with a summary's arrival and the render of the panels, they made it one of the page's longest; the
// figures replace thousands of elements, a frame's work of their own.)
func (e *Explainer) redrawResults(ctx app.Context) {
	figures := func() {
		e.drawFigures(ctx)
		e.markSelected()
		if e.painted() { // (else the grid or a figure publishes when it is complete)
			e.publish()
		}
	}
	var cards func()
	waited := 0
	cards = func() {
		if frame.left(paintBudget) <= 0 { // the frame is spent (a slice of the grid): the next one
			afterRender.request(ctx, cards)
			return
		}
		if !e.drawCards() { // the frame is spent: the other cards in the next
			afterRender.request(ctx, cards)
			return
		}
		// go-app may render the cards after this frame (a summary that came as the set finished, on a slow
		// engine): drawn before they were there, they stayed blank. Wait for them, a few seconds at most.
		if !e.cardsOnPage() && waited < 240 {
			waited++
			afterRender.request(ctx, cards)
			return
		}
		e.drawReaches()
		afterRender.request(ctx, figures)
	}
	afterRender.request(ctx, func() {
		e.drawGrid(ctx)
		cards()
	})
}

// afterRender draws what the page rendered in the next animation frame (redrawResults).
var afterRender frameQueue

// gridColumns is the paper's 10 columns, or as many as fit the page on a narrow screen (at least 3).
func gridColumns() int {
	wrap := app.Window().GetElementByID("grid-wrap")
	if wrap.IsNull() || wrap.IsUndefined() {
		return 10
	}
	return columnsFor(gridWidth.of(wrap))
}

// columnsFor is gridColumns for a width of px.
func columnsFor(px int) int { return min(10, max(3, px/cells().cellW)) }

// gridWidth keeps #grid-wrap's width as the browser last laid it out, told by a ResizeObserver: reading
// clientWidth where the page has just changed makes the browser lay the whole page out first, which took up to
// 165 ms of the page's thread at every redraw of a large set.
var gridWidth widthWatch

// widthWatch is the width of one element, kept up to date by a ResizeObserver.
type widthWatch struct {
	el       app.Value
	px       int
	observer app.Value
	fn       app.Func
	changed  func(px int) // called when the browser lays the element out at another width
}

// of returns el's width: read once (a layout) when el is new, then as the observer reports it.
func (w *widthWatch) of(el app.Value) int {
	if w.el != nil && el.Equal(w.el) {
		return w.px
	}
	if w.observer == nil {
		if ro := app.Window().Get("ResizeObserver"); ro.IsUndefined() {
			return el.Get("clientWidth").Int() // no observer (an old browser): read it every time
		}
		w.fn = webjs.PageFuncOf(func(_ app.Value, args []app.Value) any {
			entries := args[0]
			for i := 0; i < entries.Length(); i++ {
				if t := entries.Index(i).Get("target"); w.el != nil && t.Equal(w.el) {
					px := t.Get("clientWidth").Int() // laid out already: the observer runs after layout
					if px != w.px {
						w.px = px
						if w.changed != nil {
							w.changed(px)
						}
					}
				}
			}
			return nil
		})
		w.observer = app.Window().Get("ResizeObserver").New(w.fn)
	}
	if w.el != nil {
		w.observer.Call("unobserve", w.el)
	}
	w.el, w.px = el, el.Get("clientWidth").Int()
	w.observer.Call("observe", el)
	return w.px
}

// watchGridWidth makes a change in the grid's number of columns (a rotated phone, a resized window) redraw it.
func watchGridWidth(ctx app.Context, e *Explainer) {
	if gridWidth.changed != nil {
		return
	}
	gridWidth.changed = func(int) {
		lasting(ctx).Dispatch(func(ctx app.Context) {
			ctx.PreventUpdate()
			if grid.el != nil && grid.cols != gridColumns() {
				e.scheduleRedraw()
			}
		})
	}
}

// publish mirrors the run's state into window.deltaclue, for people poking at the console and for the
// end-to-end test.
func (e *Explainer) publish() {
	st := published{
		State: string(e.work.Run.Phase), Ready: e.work.ReadyCount(), Results: len(e.work.Run.Results), Total: e.work.Run.Total,
		Preview: e.work.Run.Preview, PreviewMs: e.set.previewTime.Milliseconds(), Superseded: e.work.Superseded, RunID: e.work.Run.ID,
		FirstResultMs: e.work.Run.FirstResult.Milliseconds(), LastResultMs: e.work.Run.LastResult.Milliseconds(), ElapsedMs: e.set.elapsed.Milliseconds(),
		WorkerSeconds: fmt.Sprint(e.work.Run.WorkerSeconds),
		Link:          app.Window().Get("location").Get("hash").String(), LinkError: e.links.Err, LinkNote: e.links.Note, WorkersNote: e.settings.WorkersNote,
		Restarted: e.work.Restarted, RestartNote: e.work.Run.Note, Funcs: webjs.LiveFuncs(), WorkerHeap: sumOf(e.work.Heap), WorkerSys: sumOf(e.work.Sys),
		Stale: e.models.stale, RunError: e.work.Run.Err, PoolError: e.workers.err, StepSeconds: e.work.StepSeconds, InputError: e.in.Err, Costly: e.costlyState(),
		Timing: e.models.timing, // nil before the models load: {} in JSON, as before

		Amortised: map[string]any{"ms": e.models.amortised.latest.Ms, "count": e.models.amortised.latest.Count, "heard": e.models.amortised.latest.Heard, "shown": e.models.amortised.latest.Shown},
		Global:    map[string]any{"loaded": e.models.global.data != nil, "parseMs": e.models.global.parseMs, "error": e.models.global.err},
		Slowest:   slowest, Renders: renders, Selected: e.sel.Restart, Sentence: e.set.sentence,
	}
	if e.workers.pool != nil {
		st.Workers = len(e.workers.pool.workers)
	}
	if st.Timing == nil {
		st.Timing = map[string]float64{}
	}
	if e.set.cardsJSON == "" { // made once per summary: publish runs many times between two
		b, _ := json.Marshal(e.set.cards)
		e.set.cardsJSON = string(b)
	}
	st.Cards = e.set.cardsJSON
	if !e.running() { // (not while results stream in: it sorts the set)
		st.Grid = e.gridState()
	}
	// The grid and the figures are painted over a few animation frames after the results change: painted says
	// that they show the page's state in full.
	st.Painted = e.painted()
	e.gc.follow(e.searching(), e.quiet)
	st.Collections, st.CollectionsHeld = e.gc.Collections, e.gc.held
	if t := e.sel.Trajectory; t != nil && len(t.Frames) > 0 {
		last, _ := json.Marshal(t.Frames[len(t.Frames)-1].Image)
		st.Trajectory = map[string]any{"restart": t.Restart, "frames": len(t.Frames), "lastImage": string(last)}
	}
	if s := e.sweep.run; s != nil {
		reaches := make([]map[string]any, len(s.reaches))
		for i, r := range s.reaches {
			reaches[i] = map[string]any{"label": r.Label, "delta": r.Delta, "restart": r.Explanation.Restart}
		}
		rb, _ := json.Marshal(reaches)
		st.Sweep = map[string]any{"state": string(s.Phase), "done": s.Done(), "finished": len(s.finishedPrefix()),
			"radii": len(s.Ladder.Radii), "elapsedMs": s.elapsed.Milliseconds(), "reaches": string(rb)}
	}
	// One JSON text the browser parses, not an object built entry by entry across syscall/js: a map literal of
	// forty entries was 25 KB of app.wasm.
	b, err := json.Marshal(st)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"publishError": err.Error()})
	}
	app.Window().Set("deltaclue", app.Window().Get("JSON").Call("parse", string(b)))
	if e.work.Run.Phase == core.Done || e.work.Run.Phase == core.Cancelled {
		e.publishReport()
	}
}

// published is the page's state as tests and tools read it (window.deltaclue).
type published struct {
	State           string             `json:"state"`
	Ready           int                `json:"ready"`
	Workers         int                `json:"workers"`
	Results         int                `json:"results"`
	Total           int                `json:"total"`
	Preview         bool               `json:"preview"`
	PreviewMs       int64              `json:"previewMs"`
	Superseded      int                `json:"superseded"`
	RunID           int                `json:"runID"`
	FirstResultMs   int64              `json:"firstResultMs"`
	LastResultMs    int64              `json:"lastResultMs"`
	ElapsedMs       int64              `json:"elapsedMs"`
	WorkerSeconds   string             `json:"workerSeconds"`
	Link            string             `json:"link"`
	LinkError       string             `json:"linkError"`
	LinkNote        string             `json:"linkNote"`
	WorkersNote     string             `json:"workersNote"`
	Restarted       int                `json:"restarted"`
	RestartNote     string             `json:"restartNote"`
	Funcs           int                `json:"funcs"`
	WorkerHeap      float64            `json:"workerHeap"`
	WorkerSys       float64            `json:"workerSys"`
	Stale           bool               `json:"stale"`
	RunError        string             `json:"runError"`
	PoolError       string             `json:"poolError"`
	StepSeconds     float64            `json:"stepSeconds"`
	InputError      string             `json:"inputError"`
	Costly          any                `json:"costly"`
	Timing          map[string]float64 `json:"timing"`
	Amortised       map[string]any     `json:"amortised"`
	Global          map[string]any     `json:"global"`
	Slowest         map[string]any     `json:"slowest"`
	Renders         map[string]any     `json:"renders"`
	Cards           string             `json:"cards"`
	Sentence        string             `json:"sentence"`
	Selected        int                `json:"selected"`
	Grid            map[string]any     `json:"grid,omitempty"`
	Painted         bool               `json:"painted"`
	Collections     int                `json:"collections"`
	CollectionsHeld bool               `json:"collectionsHeld"`
	Trajectory      map[string]any     `json:"trajectory,omitempty"`
	Sweep           map[string]any     `json:"sweep,omitempty"`
}

func sumOf(m map[int]uint64) float64 {
	var s uint64
	for _, v := range m {
		s += v
	}
	return float64(s)
}

func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// copies maps each result that others duplicate to how many restarts it stands for (itself and its
// duplicates), for the collapsed grid's "×k".
func (e *Explainer) copies() map[int]int {
	out := map[int]int{}
	if e.sel.ShowAll {
		return out
	}
	for _, x := range e.work.Run.Results {
		if x.DuplicateOf >= 0 {
			if out[x.DuplicateOf] == 0 {
				out[x.DuplicateOf] = 1
			}
			out[x.DuplicateOf]++
		}
	}
	return out
}
