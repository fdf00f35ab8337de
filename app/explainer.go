package app

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
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
	padBase    []float32 // a shared link's digit, under the strokes on the pad
	drawing    bool
	x0         []float32 // quantised to k/255: what a share link carries
	source     string
	inspect    *searchworker.Inspection
	inspectSeq int // inspect requests carry ID −inspectSeq
	inspectAt  int // the worker the unanswered inspect request went to, or -1: if it is replaced, the request goes again
	inputErr   string

	// Parameters.
	form        form
	params      clue.Params
	paramsOK    bool
	workersIn   string // the requested pool size, as typed
	workersNote string // why a ?workers= in the address was not used

	settingsOpen bool // the Search settings fold is open

	// Workers.
	assets       app.Value          // the compiled worker and kernel and the checked models bundle (web/loader.js)
	modelsLoaded int                // bytes of the models bundle fetched so far
	modelsTotal  int                // its size
	timing       map[string]float64 // when the page mounted, loaded and checked the models, had every worker ready (ms since navigation)
	pool         *pool              // the workers themselves (pool.go)
	work         core.Pool          // what the page knows of them, and the search spread over them (package core)
	version      string
	fingerprint  uint32
	poolErr      string
	stale        bool // a worker runs another build than the page

	// The run beyond its schedule (which is work.Run).
	live         bool      // live mode: a preview after every stroke
	previewSeq   int       // debounces previews
	penUp        time.Time // when the stroke that started the preview ended
	previewTime  time.Duration
	elapsed      time.Duration
	summary      *clue.Summary   // of the results so far; final when the run ends
	cards        []clue.ModeCard // the summary's modes, most probable label first
	sentence     string          // the summary in words
	summarised   int             // how many results the summary covers
	carlaOf      *clue.CARLA     // CARLA's measures of the results, made with the summary
	reportJSON   string          // the finished run's report, as published
	summarisedAt time.Time       // when the summary was last remade
	figuresAt    time.Time       // when the figures were
	showAll      bool            // the grid shows every restart, not duplicates collapsed onto their representative
	tradeoffSVG  string          // the trade-off plot of the results so far
	mapSVG       string          // the latent map of the results so far
	refocus      int             // the restart whose marker in the map gets the keyboard focus back once the map is redrawn, or -1
	trajectory   *clue.Trajectory
	traceID      int
	traceErr     string

	// The δ sweep.
	sweep            *sweepRun
	sweepRadiiIn     string // the ladder's radii, as typed
	sweepNIn         string // its restarts per radius, as typed
	sweepInLink      bool   // a sweep was run on this input, so the link carries its ladder
	sweepDrawPending bool
	linkErr          string
	pendingLink      *sharelink.State // a link waiting for the workers
	linkNote         string           // a quiet remark about the opened link (a v1 link has no checksum)
	restore          *sharelink.State // what an opened link still has to restore once its run is done
	costly           *costlyLink      // a costly link waiting for the user's choice (panel_costly.go)
	copyNote         string           // what Copy link did, shown for a few seconds
	copySeq          int
	probeIDs         map[int]bool // the timing searches under way
	sortBy           string
	selected         int
	redrawPending    bool

	// Large sets are summarised off the main thread (summariser.go).
	sum          *summariser
	sumSeq       int                // the summary worker's run: a new one at every reset of the results
	unsent       []clue.Explanation // results the summary worker has not been sent
	finishing    bool               // every search worker is done; the run waits for the final summary
	figuresFor   int                // how many results the summary worker's figures show
	reportGetter app.Func           // window.deltaclue.report's getter (mainthread.go)
	early        *earlyRun          // the loader's run of the address's link, until the page opens the link (early.go)
}

// OnMount starts the workers and opens a share link, if the URL holds one.
func (e *Explainer) OnMount(ctx app.Context) {
	e.tab, e.sortBy, e.selected, e.live, e.inspectAt, e.refocus = "draw", "label", -1, true, -1, -1
	l := clue.DefaultLadder()
	e.sweepRadiiIn, e.sweepNIn = clue.FormatRadii(l.Radii), strconv.Itoa(l.N)
	e.form = newForm(clue.Defaults())
	e.params, e.paramsOK = e.form.params()
	e.version = app.Getenv("GOAPP_VERSION")
	e.probeIDs = map[int]bool{}
	redrawPad(nil, nil)
	n := min(max(app.Window().Get("navigator").Get("hardwareConcurrency").Int(), 1), MaxWorkers)
	addr := currentAddress() // GuardAddress has repaired it, and says what was wrong
	if addr.HasWorkers {
		n, e.workersNote = workersFromQuery(addr.Workers, n)
	}
	e.linkErr = addr.Problem
	if addr.Link != "" {
		e.openLink(addr.Link)
	}
	e.workersIn = strconv.Itoa(n)
	e.loadAssets(ctx, n)
	app.Window().Call("addEventListener", "hashchange", pageFuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(e.onHashChange)
		return nil
	}))
	e.publish()
}

// workersFromQuery reads ?workers=: a whole number from 1 to 8, else the default n with a sentence saying so.
func workersFromQuery(v string, n int) (int, string) {
	w, err := strconv.Atoi(strings.TrimSpace(v))
	if err == nil && w >= 1 && w <= 8 {
		return w, ""
	}
	shown := v
	if len(shown) > 20 {
		shown = shown[:20] + "…"
	}
	return n, fmt.Sprintf("The address asks for %q workers, which is not a whole number from 1 to 8: using %d "+
		"(this device's cores, at most %d). Change it under Search settings, Advanced options.", shown, n, MaxWorkers)
}

// OnDismount stops the workers.
func (e *Explainer) OnDismount() {
	if e.pool != nil {
		e.pool.close()
	}
	if e.sum != nil {
		e.sum.close()
	}
}

func (e *Explainer) startPool(ctx app.Context, n int) {
	if e.pool != nil {
		e.pool.close()
	}
	e.poolErr, e.stale = "", false
	script := ctx.ResolveStaticResource("/web/worker.js")
	onMessage := func(k int, r searchworker.Response, at float64) {
		ctx.Dispatch(func(ctx app.Context) { e.onWorker(ctx, k, r, at) })
	}
	// The workers web/loader.js started while the page loaded, once: the assets are posted to every worker
	// started later, and a Worker cannot be cloned.
	early := e.assets.Get("pool")
	e.assets.Set("pool", nil)
	if early.Truthy() && early.Get("n").Int() == n {
		if link := early.Get("link").String(); link != "" {
			id := early.Get("id").Int()
			e.early = &earlyRun{link: link, id: id}
			e.work.SkipIDs(id)
			e.inspectSeq = max(e.inspectSeq, id)
		}
		e.work.Resize(n, true, time.Now())
		e.pool = adoptPool(early, script, e.assets, onMessage)
	} else {
		if early.Truthy() {
			early.Call("terminate") // started for another number of workers
		}
		e.work.Resize(n, false, time.Now())
		e.pool = newPool(n, script, e.assets, onMessage)
	}
	e.startSummariser(ctx, script)
	e.watchStart(ctx, e.pool, time.Now())
}

// StartSilence is how long a starting worker may stay silent before it is started again. Now and then a
// worker never says ready (seen in WebKit on an offline reload, under load), and a shared link waits for
// every worker. The wait doubles with each start, and StartTries starts give up on it: the page then runs with
// the workers it has.
const (
	StartSilence = 20 * time.Second
	StartTries   = 3
)

// watchStart checks pool p's starting workers every few seconds until every one is ready or given up.
func (e *Explainer) watchStart(ctx app.Context, p *pool, last time.Time) {
	const every = StartSilence / 4
	ctx.After(every, func(ctx app.Context) {
		if e.pool != p {
			return
		}
		// As in watchFrom: a late check means the page's thread was held up, so silence says nothing this time.
		late := time.Since(last)-every >= StartSilence/4
		waiting := false
		for k := range e.work.Workers {
			w := &e.work.Workers[k]
			if w.Ready || w.Starts >= StartTries {
				continue
			}
			if _, resending := e.work.Run.Resend[k]; resending {
				continue // the run's own watchdog minds a worker replaced mid-run
			}
			if late {
				w.LastSeen = time.Now()
			} else if e.work.Silent(k, time.Now()) > StartSilence<<w.Starts { // a slow device gets longer each time
				if w.Starts+1 >= StartTries {
					w.Starts++
					e.poolErr = fmt.Sprintf("Search worker %d did not start after %d tries; the page runs with the others.", k+1, StartTries)
					e.openPendingLink(ctx)
					e.publish()
					continue
				}
				starts := w.Starts + 1
				e.work.Replace(k, time.Now())
				e.pool.restart(k)
				e.work.Workers[k].Starts = starts
			}
			waiting = true
		}
		if waiting {
			e.watchStart(ctx, p, time.Now())
		}
	})
}

// onWorker handles worker k's message, which the browser delivered at at (ms since navigation), on the UI
// goroutine: the core takes it into the pool and the run first; the shell then does what is the page's.
func (e *Explainer) onWorker(ctx app.Context, k int, r searchworker.Response, at float64) {
	if e.holdEarly(k, r, at) {
		return
	}
	run := &e.work.Run
	before := len(run.Results)
	// The run's own answers (and a worker's failure in its midst) are the core's alone.
	runs := run.Pending[k] && ((r.ID == 0 && r.Type == "error" && run.Phase == core.Running) || (r.ID > 0 && r.ID == run.ID && r.Type == "error"))
	e.exec(ctx, e.work.Said(k, r, time.Now(), at))
	if e.onProbe(r) {
		return
	}
	if s := e.sweep; s != nil && r.ID > 0 {
		if _, ok := s.ids[r.ID]; ok {
			e.onSweep(ctx, k, r)
			if r.Type != "results" {
				e.publish()
			}
			return
		}
	}
	switch r.Type {
	case "ready":
		if e.work.ReadyCount() == len(e.work.Workers) && e.timing != nil && e.timing["ready"] == 0 {
			_, e.timing["ready"] = e.work.ReadySpan() // when they said it: an early worker's message waited for the page
		}
		e.fingerprint = r.Fingerprint
		if r.Version != e.version {
			e.stale = true
		}
		// The first worker up is asked for the models' view of the input; so is the replacement of a worker that
		// died with the question unanswered (else the set would finish with no summary).
		if e.x0 != nil && e.inspect == nil && e.pendingLink == nil && (e.inspectAt < 0 || e.inspectAt == k) {
			e.requestInspect()
		}
		e.openPendingLink(ctx)
	case "traced":
		if r.ID == e.traceID {
			e.onTraced(ctx, r.Trajectory)
		}
	case "inspected":
		if r.ID != -e.inspectSeq { // an answer about an earlier input
			return
		}
		e.inspectAt = -1
		e.inspect = r.Inspection
		recon := r.Inspection.Reconstruction // captured: a later input may clear e.inspect before this runs
		ctx.Defer(func(app.Context) { drawDigit("recon", recon, 4) })
		e.maybeFinish(ctx)
	case "results":
		took := run.Results[min(before, len(run.Results)):]
		if len(took) == 0 {
			return
		}
		e.unsent = append(e.unsent, took...)
		e.scheduleRedraw(ctx)
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
		if runs {
			e.maybeFinish(ctx)
			if r.ID > 0 {
				return
			}
			break
		}
		if r.ID < 0 {
			if r.ID == -e.inspectSeq {
				e.inspectAt = -1
			}
			e.inputErr = sentence(r.Error) // the page's own messages (an upload's, which starts with its file name) are sentences already
		} else if r.ID == e.traceID {
			e.traceErr = r.Error
		} else {
			e.poolErr = r.Error
		}
	}
	e.publish()
}

// exec carries out the core's commands: messages to workers, replaced workers, timers whose events go back to
// the core.
func (e *Explainer) exec(ctx app.Context, cmds []core.Command) {
	for _, c := range cmds {
		switch c := c.(type) {
		case core.Post:
			e.pool.post(c.Worker, c.Request)
		case core.Replace:
			e.pool.restart(c.Worker)
		case core.ResultsReset:
			e.summarised = 0
			e.resetSummary()
		case core.After:
			ev := c.Event
			ctx.After(c.Delay, func(ctx app.Context) { e.onTimer(ctx, ev) })
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
	}
	if cmds == nil {
		ctx.PreventUpdate()
		return
	}
	e.exec(ctx, cmds)
	e.maybeFinish(ctx)
	e.publish()
}

// setInput makes a (quantised) image the input, and asks a worker for the models' view of it.
func (e *Explainer) setInput(ctx app.Context, q [sharelink.Pixels]uint8, source string) {
	e.takeInput(ctx, q, source)
	e.requestInspect()
}

// takeInput makes a (quantised) image the input, asking the workers nothing yet.
func (e *Explainer) takeInput(ctx app.Context, q [sharelink.Pixels]uint8, source string) {
	s := sharelink.State{Image: q}
	e.x0, e.source, e.inspect, e.inputErr = s.Float(), source, nil, ""
	e.resolveCostly() // a new input answers the question
	e.dropRun()
	e.clearResults()
	e.dropSweep()
	e.updateLink()
	x0 := e.x0
	ctx.Defer(func(app.Context) { drawDigit("preview", x0, 4) })
}

func (e *Explainer) requestInspect() {
	if e.pool == nil || e.x0 == nil {
		return
	}
	if ks := e.work.ReadyWorkers(); len(ks) > 0 {
		e.inspectSeq++
		e.inspectAt = ks[0]
		e.pool.post(ks[0], searchworker.Request{Type: "inspect", ID: -e.inspectSeq, X0: e.x0})
	}
}

func (e *Explainer) clearResults() {
	e.work.Run.Clear()
	e.summary, e.selected = nil, -1
	e.cards, e.sentence, e.summarised, e.reportJSON, e.carlaOf = nil, "", 0, "", nil
	e.tradeoffSVG, e.mapSVG, e.trajectory, e.traceErr = "", "", nil, ""
	e.elapsed = 0
	e.resetSummary()
}

// openPendingLink runs a shared link once every worker is up, so that it gets the whole pool.
func (e *Explainer) openPendingLink(ctx app.Context) {
	if ready := e.work.ReadyCount(); e.pendingLink == nil || e.pool == nil || ready == 0 || ready != len(e.work.Workers)-e.work.GivenUp(StartTries) || e.running() {
		return
	}
	link := *e.pendingLink
	e.pendingLink = nil
	if err := sharelink.CheckModel(link, e.fingerprint); err != nil {
		e.linkErr = err.Error()
		e.dropEarly()
		return
	}
	if e.openEarly(ctx, link) {
		return
	}
	e.setInput(ctx, link.Image, "the shared link")
	e.showOnPad(e.x0)
	if e.askCostly(link) {
		return
	}
	e.restore = &link
	e.run(ctx)
}

// onHashChange opens a link pasted into the address bar of an open page (the page's own updates of the
// fragment use replaceState, which fires no hashchange). A fragment the guard had to drop leaves the page as
// it was, its own link back in the address, and says what was wrong.
func (e *Explainer) onHashChange(ctx app.Context) {
	addr := currentAddress()
	if addr.Problem != "" {
		e.linkErr, e.linkNote = addr.Problem, ""
		e.updateLink()
		e.publish()
		return
	}
	if addr.Link == "" {
		return
	}
	e.linkErr, e.linkNote = "", ""
	e.dropRun()
	e.dropSweep()
	e.clearResults()
	e.openLink(addr.Link)
	e.openPendingLink(ctx)
	e.publish()
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
	if len(s.Sweep.Radii) > 0 {
		e.sweepRadiiIn, e.sweepNIn = clue.FormatRadii(s.Sweep.Radii), strconv.Itoa(s.Sweep.N)
	}
	if s.Version == 1 {
		e.linkNote = "This link is in the older format v1, which carries no checksum: a change to it cannot be detected."
	}
	e.pendingLink = &s
}

// updateLink writes the current input and parameters into the URL, without reloading.
func (e *Explainer) updateLink() {
	if e.x0 == nil || !e.paramsOK || e.fingerprint == 0 {
		return
	}
	st := sharelink.State{Image: sharelink.Quantize(e.x0), Params: e.params, Model: e.fingerprint, Selected: sharelink.NoSelection}
	if e.selected >= 0 && e.selected < e.params.Restarts() {
		st.Selected = e.selected
	}
	if l, bad := e.ladderInput(); e.sweepInLink && bad == "" {
		st.Sweep = l
	}
	link := "#" + sharelink.Encode(st)
	app.Window().Get("history").Call("replaceState", nil, "", link)
}

// run starts a search on every ready worker, each with its share of the restarts.
func (e *Explainer) run(ctx app.Context) {
	e.previewSeq++ // a preview still waiting for its debounce must not replace the full set
	e.start(ctx, e.params, false)
}

// start runs a search with parameters p on every ready worker, each with its share of the restarts. It replaces
// a live preview still running (with a newer preview, or with the full set); nothing interrupts a full set.
func (e *Explainer) start(ctx app.Context, p clue.Params, preview bool) {
	if e.x0 == nil || !e.paramsOK || e.pool == nil || e.sweep.running() || (e.running() && !e.work.Run.Preview) ||
		e.work.ReadyCount() == 0 {
		return
	}
	e.dropRun()       // the preview of an earlier drawing, if one runs: its workers drop it at their next step
	e.resolveCostly() // a run answers the question
	e.clearResults()
	e.linkErr = ""
	cmds, _ := e.work.Start(e.x0, p, preview, time.Now())
	e.exec(ctx, cmds)
	e.updateLink()
	e.scheduleRedraw(ctx)
	e.publish()
}

// PreviewRestarts is the size of a live preview's set.
const PreviewRestarts = 24

// schedulePreview runs a small set a moment after the pen lifts (debounced: a stroke that follows soon
// replaces it), when live mode is on.
func (e *Explainer) schedulePreview(ctx app.Context) {
	if !e.live || e.x0 == nil {
		return
	}
	e.previewSeq++
	seq, penUp := e.previewSeq, time.Now()
	ctx.After(60*time.Millisecond, func(ctx app.Context) {
		if seq != e.previewSeq || e.x0 == nil || e.running() && !e.work.Run.Preview {
			return
		}
		p := e.params
		p.N = PreviewRestarts
		if p.Validate() != nil || costlyPreview(p) {
			return
		}
		e.penUp = penUp
		e.start(ctx, p, true)
	})
}

// cancel asks the workers to stop; one that has not stopped within a second is replaced.
func (e *Explainer) cancel(ctx app.Context) {
	e.exec(ctx, e.work.Cancel())
}

// maybeFinish closes the run once every worker is done: the set's metrics, the final grid.
func (e *Explainer) maybeFinish(ctx app.Context) {
	if !e.work.Run.Settled() {
		return
	}
	if !e.finishing {
		e.elapsed = time.Since(e.work.Run.Started)
		e.work.Run.SortResults()
	}
	// A large set's summary is the summary worker's: the run ends once it has summarised every result.
	if e.summaryInWorker() && len(e.work.Run.Results) > 0 && (e.summarised != len(e.work.Run.Results) || e.figuresFor != len(e.work.Run.Results)) {
		e.finishing = true
		e.requestSummary()
		return
	}
	e.finishing = false
	if e.work.Run.Close() == core.Done && e.work.Run.Preview {
		e.previewTime = time.Since(e.penUp)
	}
	e.summarise()
	if l := e.restore; l != nil && e.work.Run.Phase == "done" {
		e.restore = nil
		if l.Selected >= 0 {
			e.selectRestart(ctx, l.Selected)
		}
		if len(l.Sweep.Radii) > 0 {
			e.runSweep(ctx, l.Sweep)
		}
	}
	e.scheduleRedraw(ctx)
	e.publish()
}

// summarise brings the set's summary, its mode cards and its sentence up to date with the results so far.
func (e *Explainer) summarise() {
	if e.inspect == nil || len(e.work.Run.Results) == 0 || e.summarised == len(e.work.Run.Results) {
		return
	}
	if e.summaryInWorker() {
		e.requestSummary()
		return
	}
	sort.Slice(e.work.Run.Results, func(a, b int) bool { return e.work.Run.Results[a].Restart < e.work.Run.Results[b].Restart })
	s := clue.Summarize(e.x0, e.inspect.Z0, len(e.inspect.Prediction.Probs), e.work.Run.Params, e.work.Run.Results)
	e.summary, e.summarised = &s, len(e.work.Run.Results)
	e.carlaOf = e.carlaNow()
	e.cards = clue.ModeCards(e.work.Run.Results, s)
	e.sentence = clue.Describe(e.inspect.Prediction, e.work.Run.Results, s, e.work.Run.Params)
	// The figures (two SVGs the browser parses anew) follow at most once a second while results stream in.
	if !e.running() || time.Since(e.figuresAt) >= time.Second {
		e.refreshFigures()
		e.figuresAt = time.Now()
	}
}

// dropRun tells the workers to stop a run whose input is gone; its late messages are ignored by their ID.
func (e *Explainer) dropRun() {
	if e.pool != nil {
		for _, c := range e.work.Drop() {
			if p, ok := c.(core.Post); ok {
				e.pool.post(p.Worker, p.Request)
			}
		}
	}
}

// dropSweep forgets the sweep of an earlier input, cancelling it if it still runs.
func (e *Explainer) dropSweep() {
	if s := e.sweep; s.running() {
		s.cancel(e.pool)
	}
	e.sweep, e.sweepInLink = nil, false
}

// running says whether a run is under way (or being cancelled).
func (e *Explainer) running() bool { return e.work.Run.Active() }

// report is the run as the JSON that `deltaclue explain` writes.
func (e *Explainer) report() clue.Report {
	r := clue.Report{Input: e.source, Params: e.work.Run.Params, X0: e.x0, Explanations: e.work.Run.Results, Seconds: e.elapsed.Seconds()}
	if len(e.work.Run.Results) > 0 {
		r.SecondsPerExplanation = r.Seconds / float64(len(e.work.Run.Results))
	}
	if e.inspect != nil {
		r.Z0, r.Prediction, r.Label = e.inspect.Z0, e.inspect.Prediction, argmax(e.inspect.Prediction.Probs)
	}
	if e.summary != nil {
		r.Summary = *e.summary
		c := clue.CARLAOf(e.x0, r.Label, e.work.Run.Results)
		c.YNNData = "not computed: the page has no dataset (deltaclue explain -link computes it)"
		r.CARLA = &c
	}
	return r
}

// carlaNow is CARLA's measures of the results as they are (but yNN, which needs the dataset), made when the
// summary is: the set panel showed them recomputed over every result at every render of the page.
func (e *Explainer) carlaNow() *clue.CARLA {
	if e.inspect == nil {
		return nil
	}
	c := clue.CARLAOf(e.x0, argmax(e.inspect.Prediction.Probs), e.work.Run.Results)
	return &c
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

// ordered returns the results in the grid's order: without the duplicates of another result unless every
// restart is asked for.
func (e *Explainer) ordered() []clue.Explanation {
	out := make([]clue.Explanation, 0, len(e.work.Run.Results))
	for _, x := range e.work.Run.Results {
		if e.showAll || x.DuplicateOf < 0 {
			out = append(out, x)
		}
	}
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
		// While results stream in, the summary (clustering, figures) is remade at most every 400 ms: it costs
		// the page's thread more than drawing the grid. The run's end always remakes it.
		if !e.running() || time.Since(e.summarisedAt) >= 400*time.Millisecond {
			timed("summarise", e.summarise)
			e.summarisedAt = time.Now()
		}
		timed("grid", func() { e.redrawResults(ctx) })
		timed("publish", e.publish)
	})
}

// redrawResults draws the results' canvases: the grid now, the mode cards once go-app has rendered them.
func (e *Explainer) redrawResults(ctx app.Context) {
	e.drawGrid(ctx)
	ctx.Defer(func(ctx app.Context) {
		e.drawFigures(ctx)
		e.drawCards()
		e.markSelected()
		e.drawReaches()
	})
}

// gridColumns is the paper's 10 columns, or as many as fit the page on a narrow screen (at least 3).
func gridColumns() int {
	wrap := app.Window().GetElementByID("grid-wrap")
	if wrap.IsNull() || wrap.IsUndefined() {
		return 10
	}
	return columnsFor(gridWidth.of(wrap))
}

// columnsFor is gridColumns for a width of px.
func columnsFor(px int) int { return min(10, max(3, px/cellW)) }

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
		w.fn = pageFuncOf(func(_ app.Value, args []app.Value) any {
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
		ctx.Dispatch(func(ctx app.Context) {
			ctx.PreventUpdate()
			if grid.el != nil && grid.cols != gridColumns() {
				e.scheduleRedraw(ctx)
			}
		})
	}
}

// publish mirrors the run's state into window.deltaclue, for people poking at the console and for the
// end-to-end test.
func (e *Explainer) publish() {
	state := map[string]any{
		"state": string(e.work.Run.Phase), "ready": e.work.ReadyCount(), "workers": 0, "results": len(e.work.Run.Results), "total": e.work.Run.Total,
		"preview": e.work.Run.Preview, "previewMs": e.previewTime.Milliseconds(), "superseded": e.work.Superseded, "runID": e.work.Run.ID,
		"firstResultMs": e.work.Run.FirstResult.Milliseconds(), "lastResultMs": e.work.Run.LastResult.Milliseconds(), "elapsedMs": e.elapsed.Milliseconds(),
		"workerSeconds": fmt.Sprint(e.work.Run.WorkerSeconds),
		"link":          app.Window().Get("location").Get("hash").String(), "linkError": e.linkErr, "linkNote": e.linkNote, "workersNote": e.workersNote, "restarted": e.work.Restarted, "restartNote": e.work.Run.Note,
		"funcs": liveFuncs, "workerHeap": sumOf(e.work.Heap), "workerSys": sumOf(e.work.Sys), "stale": e.stale,
		"runError": e.work.Run.Err, "poolError": e.poolErr, "inputError": e.inputErr, "costly": e.costlyState(),
	}
	if e.pool != nil {
		state["workers"] = len(e.pool.workers)
	}
	timing := map[string]any{} // syscall/js takes map[string]any, not map[string]float64
	for k, v := range e.timing {
		timing[k] = v
	}
	state["timing"] = timing
	state["slowest"] = slowest
	cards, _ := json.Marshal(e.cards)
	state["cards"], state["sentence"], state["selected"] = string(cards), e.sentence, e.selected
	if !e.running() { // (not while results stream in: it sorts the set)
		state["grid"] = e.gridState()
	}
	// The grid and the figures are painted over a few animation frames after the results change: painted says
	// that they show the page's state in full.
	state["painted"] = !grid.painting() && figuresPainted()
	if t := e.trajectory; t != nil && len(t.Frames) > 0 {
		last, _ := json.Marshal(t.Frames[len(t.Frames)-1].Image)
		state["trajectory"] = map[string]any{"restart": t.Restart, "frames": len(t.Frames), "lastImage": string(last)}
	}
	if s := e.sweep; s != nil {
		reaches := make([]map[string]any, len(s.reaches))
		for i, r := range s.reaches {
			reaches[i] = map[string]any{"label": r.Label, "delta": r.Delta, "restart": r.Explanation.Restart}
		}
		rb, _ := json.Marshal(reaches)
		state["sweep"] = map[string]any{"state": s.state, "done": s.done(), "finished": len(s.finishedPrefix()),
			"radii": len(s.ladder.Radii), "elapsedMs": s.elapsed.Milliseconds(), "reaches": string(rb)}
	}
	app.Window().Set("deltaclue", state)
	if e.work.Run.Phase == "done" || e.work.Run.Phase == "cancelled" {
		e.publishReport()
	}
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
