package app

import (
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
)

// MaxWorkers caps the pool: each worker holds its own copy of the models (~25 MB of memory).
const MaxWorkers = 4

// Explainer is the page: the input, the models' view of it, the controls, the δ-CLUEs as they stream in, the
// set's metrics, and the share link in the URL.
type Explainer struct {
	app.Compo

	// The page's state and its transitions (package core).
	in       core.Input     // the input, the tab it is entered in, the models' view of it
	settings core.Settings  // the parameters as typed, the pool size asked for, the fold they sit in
	sel      core.Selection // the explanation chosen, the grid's order, the chosen one's trajectory
	work     core.Pool      // what the page knows of the workers, and the search spread over them
	links    core.Links     // the share link being opened, its faults and what it still has to restore

	// What the shell keeps beside it.
	workers      searchWorkers // the workers themselves, why they failed, the loader's early run (pool.go)
	models       modelsState   // the models: their bundle and workers, their amortised answers, their global view
	set          setView       // the set as shown: its summary, cards, sentence, figures, the grid's order
	sweep        sweepState    // the δ sweep and its ladder as typed
	summaries    summaryWork   // large sets are summarised off the main thread (summariser.go)
	copied       copyNote      // what Copy link did, shown for a few seconds
	reportGetter app.Func      // window.deltaclue.report's getter (mainthread.go)
	embed        embedState    // in a host page's frame: the compact layout and the host's messages (embed.go)
	gc           collector     // collections held during a search, made when idle (collector.go)
	// page is the page's own context (OnMount). Timers are scheduled on it: go-app drops what is dispatched on
	// the context of an element that has since gone (a question's Run it button), and a run's watch or a redraw
	// dropped so never fires again.
	page app.Context
}

// setView is the run's set as the page shows it, beyond its schedule (which is work.Run).
type setView struct {
	previewTime   time.Duration
	elapsed       time.Duration
	summary       *clue.Summary   // of the results so far; final when the run ends
	cards         []clue.ModeCard // the summary's modes, most probable label first
	cardsJSON     string          // cards as published ("": not made since cards last changed)
	sentence      string          // the summary in words
	summarised    int             // how many results the summary covers
	carlaOf       *clue.CARLA     // CARLA's measures of the results, made with the summary
	reportJSON    string          // the finished run's report, as published
	summarisedAt  time.Time       // when the summary was last remade
	figuresAt     time.Time       // when the figures were
	tradeoffSVG   string          // the trade-off plot of the results so far
	mapSVG        string          // the latent map of the results so far
	redrawPending bool            // a redraw of the results is scheduled
	order         gridOrder       // the grid's order, kept until what it depends on changes (redraw.go)
}

// setCards makes cards the summary's mode cards; their JSON for window.deltaclue is made again when published.
func (v *setView) setCards(cards []clue.ModeCard) { v.cards, v.cardsJSON = cards, "" }

// sweepState is the δ sweep: the run, and its ladder as typed.
type sweepState struct {
	run         *sweepRun
	radiiIn     string // the ladder's radii, as typed
	nIn         string // its restarts per radius, as typed
	inLink      bool   // a sweep was run on this input, so the link carries its ladder
	drawPending bool
}

// summaryWork is the summary worker and what it has been sent of the current run.
type summaryWork struct {
	worker     *summariser
	seq        int                // the summary worker's run: a new one at every reset of the results
	unsent     []clue.Explanation // results the summary worker has not been sent
	finishing  bool               // every search worker is done; the run waits for the final summary
	figuresFor int                // how many results the summary worker's figures show
	// A small set's figures (summarised on the page) are asked of the summary worker too, under IDs −1, −2, …:
	// figuresSeq is the last; figuresWanted, a request to make when the worker is free or ready.
	figuresSeq    int
	figuresWanted bool
	figuresAsked  int // how many results the last figures asked for (or wanted) show
}

// copyNote is what Copy link did, and which copy said it (a later one replaces the note).
type copyNote struct {
	note string
	seq  int
}

// OnMount starts the workers and opens a share link, if the URL holds one.
func (e *Explainer) OnMount(ctx app.Context) {
	e.in, e.sel = newInput(), core.NewSelection()
	e.gc.mount(ctx)
	e.page = ctx
	pageContext.ctx, pageContext.set = ctx, true
	served().input().Open(ctx, e.in.Tab)
	l := clue.DefaultLadder()
	e.sweep.radiiIn, e.sweep.nIn = clue.FormatRadii(l.Radii), strconv.Itoa(l.N)
	e.settings.ShowDefaults(served().defaults())
	e.models.version = app.Getenv("GOAPP_VERSION")
	served().input().Blank()
	n := min(max(app.Window().Get("navigator").Get("hardwareConcurrency").Int(), 1), MaxWorkers)
	addr := currentAddress() // GuardAddress has repaired it, and says what was wrong
	e.embed.on = addr.Embed
	if e.embed.on {
		n = 1 // light on the host page, unless it asks for more
	}
	if addr.HasWorkers {
		n, e.settings.WorkersNote = core.WorkersFromQuery(addr.Workers, n, MaxWorkers)
	}
	e.links.Err = addr.Problem
	if addr.Link != "" && openModelsOfLink(addr.Link) {
		return // the page loads again, for the models the link was made with
	}
	if addr.Link != "" {
		e.openLink(addr.Link)
	}
	e.settings.WorkersIn = strconv.Itoa(n)
	e.loadAssets(ctx, n)
	e.models.offline.watch(ctx)
	app.Window().Call("addEventListener", "hashchange", webjs.PageFuncOf(func(app.Value, []app.Value) any {
		lasting(ctx).Dispatch(e.onHashChange)
		return nil
	}))
	e.listenToHost(ctx)
	e.publish()
	ctx.After(0, func(ctx app.Context) { // in a task of its own while the workers start, not when a link opens
		ctx.PreventUpdate()
		sharelink.Warm()
	})
}

// OnDismount stops the workers.
func (e *Explainer) OnDismount() {
	if e.workers.pool != nil {
		e.workers.pool.close()
	}
	if e.summaries.worker != nil {
		e.summaries.worker.close()
	}
}
