package app

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/searchworker"
	"github.com/deltaclue/deltaclue/app/sharelink"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// MaxWorkers caps the pool: each worker holds its own copy of the models (~25 MB of memory).
const MaxWorkers = 4

// Explainer is the page: the input, the models' view of it, the controls, the δ-CLUEs as they stream in, the
// set's metrics, and the share link in the URL.
type Explainer struct {
	app.Compo

	// Input.
	tab        string // "draw", "gallery" or "upload"
	strokes    [][]point
	drawing    bool
	x0         []float32 // quantised to k/255: what a share link carries
	source     string
	inspect    *searchworker.Inspection
	inspectSeq int // inspect requests carry ID −inspectSeq
	inputErr   string

	// Parameters.
	form      form
	params    clue.Params
	paramsOK  bool
	workersIn string // the requested pool size, as typed

	// Workers.
	pool        *pool
	version     string
	fingerprint uint32
	ready       int
	poolErr     string
	stale       bool // a worker runs another build than the page

	// The run.
	runID         int
	state         string // "", "running", "cancelling", "done", "cancelled", "failed"
	total         int
	results       []clue.Explanation
	pending       map[int]bool // workers still running the current search
	runWorkers    int          // how many workers share the current search
	started       time.Time
	firstResult   time.Duration
	lastResult    time.Duration
	workerSeconds []float64 // each worker's own time for its share
	elapsed       time.Duration
	summary       *clue.Summary
	runErr        string
	linkErr       string
	pendingLink   *sharelink.State // a link waiting for the workers
	sortBy        string
	selected      int
	redrawPending bool
}

// OnMount starts the workers and opens a share link, if the URL holds one.
func (e *Explainer) OnMount(ctx app.Context) {
	e.tab, e.sortBy, e.selected = "draw", "label", -1
	e.form = newForm(clue.Defaults())
	e.params, e.paramsOK = e.form.params()
	e.version = app.Getenv("GOAPP_VERSION")
	redrawPad(nil)
	n := min(max(app.Window().Get("navigator").Get("hardwareConcurrency").Int(), 1), MaxWorkers)
	if u, err := url.Parse(app.Window().Get("location").Get("href").String()); err == nil {
		if w, err := strconv.Atoi(u.Query().Get("workers")); err == nil && w >= 1 && w <= 8 {
			n = w
		}
		if u.Fragment != "" {
			e.openLink(u.Fragment)
		}
	}
	e.workersIn = strconv.Itoa(n)
	e.startPool(ctx, n)
	e.publish()
}

// OnDismount stops the workers.
func (e *Explainer) OnDismount() {
	if e.pool != nil {
		e.pool.close()
	}
}

func (e *Explainer) startPool(ctx app.Context, n int) {
	if e.pool != nil {
		e.pool.close()
	}
	e.ready, e.poolErr, e.stale = 0, "", false
	script := ctx.ResolveStaticResource("/web/worker.js")
	e.pool = newPool(n, script, func(k int, r searchworker.Response) {
		ctx.Dispatch(func(ctx app.Context) { e.onWorker(ctx, k, r) })
	})
}

// onWorker handles a worker's message on the UI goroutine.
func (e *Explainer) onWorker(ctx app.Context, k int, r searchworker.Response) {
	switch r.Type {
	case "ready":
		e.ready++
		e.fingerprint = r.Fingerprint
		if r.Version != e.version {
			e.stale = true
		}
		if e.ready == 1 && e.x0 != nil && e.pendingLink == nil {
			e.requestInspect()
		}
		// A shared link runs once every worker is up, so that it gets the whole pool.
		if e.ready == len(e.pool.workers) && e.pendingLink != nil {
			link := *e.pendingLink
			e.pendingLink = nil
			if err := sharelink.CheckModel(link, e.fingerprint); err != nil {
				e.linkErr = err.Error()
			} else {
				e.setInput(ctx, link.Image, "the shared link")
				e.run(ctx)
			}
		}
	case "inspected":
		if r.ID != -e.inspectSeq { // an answer about an earlier input
			return
		}
		e.inspect = r.Inspection
		recon := r.Inspection.Reconstruction // captured: a later input may clear e.inspect before this runs
		ctx.Defer(func(app.Context) { drawDigit("recon", recon, 4) })
		e.maybeFinish(ctx)
	case "result":
		if r.ID != e.runID || r.Explanation == nil || (e.state != "running" && e.state != "cancelling") {
			return
		}
		if len(e.results) == 0 {
			e.firstResult = time.Since(e.started)
		}
		e.results = append(e.results, *r.Explanation)
		e.lastResult = time.Since(e.started)
		e.scheduleRedraw(ctx)
		if len(e.results) > 1 {
			// Rendering the page for every result would cost more than the search: the scheduled redraw
			// shows them ten times a second.
			ctx.PreventUpdate()
			return
		}
	case "done":
		if r.ID != e.runID {
			return
		}
		delete(e.pending, k)
		e.workerSeconds = append(e.workerSeconds, r.Seconds)
		if r.Error != "" && r.Error != searchworker.Cancelled {
			e.runErr = r.Error
		}
		e.maybeFinish(ctx)
	case "error":
		if r.ID > 0 && r.ID == e.runID && e.pending[k] {
			delete(e.pending, k)
			e.runErr = r.Error
			e.maybeFinish(ctx)
			return
		}
		if r.ID < 0 {
			e.inputErr = r.Error
		} else {
			e.poolErr = r.Error
		}
	}
	e.publish()
}

// setInput makes a (quantised) image the input, and asks a worker for the models' view of it.
func (e *Explainer) setInput(ctx app.Context, q [sharelink.Pixels]uint8, source string) {
	s := sharelink.State{Image: q}
	e.x0, e.source, e.inspect, e.inputErr = s.Float(), source, nil, ""
	e.clearResults()
	e.requestInspect()
	e.updateLink()
	x0 := e.x0
	ctx.Defer(func(app.Context) { drawDigit("preview", x0, 4) })
}

func (e *Explainer) requestInspect() {
	if e.pool == nil || e.x0 == nil {
		return
	}
	if ks := e.pool.ready(); len(ks) > 0 {
		e.inspectSeq++
		e.pool.post(ks[0], searchworker.Request{Type: "inspect", ID: -e.inspectSeq, X0: e.x0})
	}
}

func (e *Explainer) clearResults() {
	e.results, e.summary, e.state, e.runErr, e.selected = nil, nil, "", "", -1
	e.elapsed, e.firstResult, e.lastResult, e.workerSeconds = 0, 0, 0, nil
}

// openLink reads a share link: its parameters now, its image once the workers say which models they run.
func (e *Explainer) openLink(fragment string) {
	s, err := sharelink.Decode(fragment)
	if err != nil {
		e.linkErr = err.Error()
		return
	}
	e.form = newForm(s.Params)
	e.params, e.paramsOK = e.form.params()
	e.pendingLink = &s
}

// updateLink writes the current input and parameters into the URL, without reloading.
func (e *Explainer) updateLink() {
	if e.x0 == nil || !e.paramsOK || e.fingerprint == 0 {
		return
	}
	link := "#" + sharelink.Encode(sharelink.State{Image: sharelink.Quantize(e.x0), Params: e.params, Model: e.fingerprint})
	app.Window().Get("history").Call("replaceState", nil, "", link)
}

// run starts a search on every ready worker, each with its share of the restarts.
func (e *Explainer) run(ctx app.Context) {
	if e.x0 == nil || !e.paramsOK || e.pool == nil || e.state == "running" || e.state == "cancelling" {
		return
	}
	workers := e.pool.ready()
	if len(workers) == 0 {
		return
	}
	if e.params.LambdaD > 0 { // the diversity term couples every restart: one worker runs them all
		workers = workers[:1]
	}
	e.clearResults()
	e.linkErr = ""
	e.runID++
	e.state, e.total, e.started = "running", e.params.Restarts(), time.Now()
	e.pending = map[int]bool{}
	e.runWorkers = len(workers)
	p := e.params
	for k, share := range shares(e.total, workers) {
		e.pending[k] = true
		e.pool.post(k, searchworker.Request{Type: "explain", ID: e.runID, X0: e.x0, Params: &p, Restarts: share})
	}
	e.updateLink()
	e.scheduleRedraw(ctx)
}

// cancel asks the workers to stop; one that has not stopped within a second is replaced.
func (e *Explainer) cancel(ctx app.Context) {
	if e.state != "running" {
		return
	}
	e.state = "cancelling"
	id := e.runID
	for k := range e.pending {
		e.pool.post(k, searchworker.Request{Type: "cancel", ID: id})
	}
	ctx.After(time.Second, func(ctx app.Context) {
		if e.runID != id || e.state != "cancelling" {
			return
		}
		for k := range e.pending {
			e.pool.restart(k)
			e.ready--
			delete(e.pending, k)
		}
		e.maybeFinish(ctx)
	})
}

// maybeFinish closes the run once every worker is done: the set's metrics, the final grid.
func (e *Explainer) maybeFinish(ctx app.Context) {
	if (e.state != "running" && e.state != "cancelling") || len(e.pending) > 0 {
		return
	}
	e.elapsed = time.Since(e.started)
	sort.Slice(e.results, func(a, b int) bool { return e.results[a].Restart < e.results[b].Restart })
	switch {
	case e.state == "cancelling":
		e.state = "cancelled"
	case e.runErr != "":
		e.state = "failed"
	default:
		e.state = "done"
	}
	if e.inspect != nil && len(e.results) > 0 {
		s := clue.Summarize(e.x0, e.inspect.Z0, len(e.inspect.Prediction.Probs), e.params, e.results)
		e.summary = &s
	}
	e.scheduleRedraw(ctx)
	e.publish()
}

// report is the run as the JSON that `deltaclue explain` writes.
func (e *Explainer) report() clue.Report {
	r := clue.Report{Input: e.source, Params: e.params, X0: e.x0, Explanations: e.results, Seconds: e.elapsed.Seconds()}
	if e.inspect != nil {
		r.Z0, r.Prediction, r.Label = e.inspect.Z0, e.inspect.Prediction, argmax(e.inspect.Prediction.Probs)
	}
	if e.summary != nil {
		r.Summary = *e.summary
	}
	return r
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

// ordered returns the results in the grid's order.
func (e *Explainer) ordered() []clue.Explanation {
	out := append([]clue.Explanation(nil), e.results...)
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Accepted != y.Accepted {
			return x.Accepted
		}
		switch e.sortBy {
		case "cost":
			return x.Cost < y.Cost
		case "distance":
			return x.Distance < y.Distance
		case "restart":
			return x.Restart < y.Restart
		}
		if x.Label != y.Label {
			return x.Label < y.Label
		}
		return x.Cost < y.Cost
	})
	return out
}

// scheduleRedraw redraws the grid soon, at most ten times a second while results stream in.
func (e *Explainer) scheduleRedraw(ctx app.Context) {
	if e.redrawPending {
		return
	}
	e.redrawPending = true
	ctx.After(100*time.Millisecond, func(ctx app.Context) {
		e.redrawPending = false
		drawGrid("grid", e.ordered(), gridColumns(), e.selected)
		e.publish()
	})
}

// gridColumns is the paper's 10 columns, or as many as fit the page on a narrow screen (at least 3).
func gridColumns() int {
	wrap := app.Window().GetElementByID("grid-wrap")
	if wrap.IsNull() || wrap.IsUndefined() {
		return 10
	}
	return min(10, max(3, wrap.Get("clientWidth").Int()/cellW))
}

// publish mirrors the run's state into window.deltaclue, for people poking at the console and for the
// end-to-end test.
func (e *Explainer) publish() {
	state := map[string]any{
		"state": e.state, "ready": e.ready, "workers": 0, "results": len(e.results), "total": e.total,
		"firstResultMs": e.firstResult.Milliseconds(), "lastResultMs": e.lastResult.Milliseconds(), "elapsedMs": e.elapsed.Milliseconds(),
		"workerSeconds": fmt.Sprint(e.workerSeconds),
		"link":          app.Window().Get("location").Get("hash").String(), "linkError": e.linkErr, "stale": e.stale,
		"runError": e.runErr, "poolError": e.poolErr, "inputError": e.inputErr,
	}
	if e.pool != nil {
		state["workers"] = len(e.pool.workers)
	}
	if e.state == "done" || e.state == "cancelled" {
		b, _ := json.Marshal(e.report())
		state["report"] = string(b)
	}
	app.Window().Set("deltaclue", state)
}

func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}
