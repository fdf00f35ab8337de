package app

import (
	"sort"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// SummaryInWorkerAbove is the set size above which the page hands a run's summary to its summary worker: a
// summary grows with the square of the set and more (k-means, pairwise distances, a determinant), about 7 ms
// natively for 100 restarts but 0.3 s for 1000, several times that in WebAssembly, where it blocked the page's
// thread for seconds. The default set of 100 goes to the worker too: on the page it took the page's thread up
// to 92 ms on this machine and 265–495 ms with the CPU throttled 4× (a phone). A live preview (PreviewRestarts)
// stays on the page: it summarises in a few ms, and the round trip to the worker made the preview about 70 ms
// later (pen-up → on screen, p50 370 against 302 ms, make bench-set). The page also summarises on its own
// thread while the worker is not up yet, or if it failed.
const SummaryInWorkerAbove = PreviewRestarts

// summariser is a worker of its own (worker.wasm started without models) that summarises large sets off the
// page's main thread. The page sends it each run's restarts once, as they come; it answers with the summary of
// all it holds, which the page applies when it arrives.
type summariser struct {
	js      app.Value
	funcs   []app.Func
	ready   bool
	failed  bool
	busy    bool          // a request is out
	again   bool          // a request was wanted while one was out
	sentAt  time.Time     // when it went
	took    time.Duration // how long the last one took, answer included
	answers int           // summaries received, for the test
}

// startSummariser starts the page's summary worker from the compiled modules, with no models.
func (e *Explainer) startSummariser(ctx app.Context, script string) {
	if s := e.summaries.worker; s != nil {
		s.close()
	}
	s := &summariser{}
	e.summaries.worker = s
	s.js = app.Window().Get("Worker").New(script, map[string]any{"name": "summary"})
	onMessage := webjs.FuncOf(func(_ app.Value, args []app.Value) any {
		r, err := searchworker.UnmarshalResponseShared(webjs.Bytes(args[0].Get("data")))
		if err != nil {
			r = searchworker.Response{Type: "error", Error: err.Error()}
		}
		ctx.Dispatch(func(ctx app.Context) { e.onSummariser(ctx, s, r) })
		return nil
	})
	onError := webjs.FuncOf(func(app.Value, []app.Value) any {
		ctx.Dispatch(func(ctx app.Context) {
			e.onSummariser(ctx, s, searchworker.Response{Type: "error", Error: "the summary worker failed"})
		})
		return nil
	})
	s.js.Call("addEventListener", "message", onMessage)
	s.js.Call("addEventListener", "error", onError)
	s.funcs = []app.Func{onMessage, onError}
	start := app.Window().Get("Object").Call("assign", app.Window().Get("Object").New(), e.models.assets)
	start.Set("models", app.Window().Get("ArrayBuffer").New(0)) // no models: worker.wasm starts as a summariser
	s.js.Call("postMessage", start)
}

func (s *summariser) close() {
	s.js.Call("terminate")
	for _, f := range s.funcs {
		f.Release()
	}
	s.ready, s.failed = false, true
}

// summaryInWorker says whether the current run's summary is the summary worker's to make.
func (e *Explainer) summaryInWorker() bool {
	return e.summaries.worker != nil && e.summaries.worker.ready && !e.summaries.worker.failed && e.work.Run.Total > SummaryInWorkerAbove && e.in.Inspect != nil
}

// requestSummary sends the summary worker the restarts it has not seen and asks for the summary of them all.
// One request at a time; while results stream in, the worker is left idle at least four times as long as its
// last summary took, so that it takes at most a fifth of a core from the search (on 2 cores with 2 search
// workers, back-to-back summaries of a growing set of 1000 made the search twice as slow).
func (e *Explainer) requestSummary() {
	s := e.summaries.worker
	streaming := e.running() && !e.summaries.finishing
	if s.busy || (streaming && time.Since(s.sentAt) < 5*s.took) {
		s.again = s.busy && !streaming
		return
	}
	p := e.work.Run.Params
	// The figures (two SVGs the browser parses anew) follow at most once a second while results stream in.
	figures := !streaming || time.Since(e.set.figuresAt) >= time.Second
	if figures {
		e.set.figuresAt, e.summaries.figuresFor = time.Now(), -1
	}
	s.post(searchworker.Request{Type: "summarize", ID: e.summaries.seq, X0: e.in.X0, Z0: e.in.Inspect.Z0,
		Classes: len(e.in.Inspect.Prediction.Probs), Label0: argmax(e.in.Inspect.Prediction.Probs), Params: &p, Explanations: e.summaries.unsent, Figures: figures, Path: e.tracedPath(), Names: served().classes})
	e.summaries.unsent = nil
	s.busy, s.sentAt = true, time.Now()
}

// requestFigures asks the summary worker for the figures of a set the page summarises itself (a small one, or
// any while the worker is not up): the set as it is, under a new negative ID, so that the worker summarises it
// afresh. While the worker is busy or not yet ready, the request waits (figuresWanted); a worker that failed
// makes none, and the page shows the set without its figures.
func (e *Explainer) requestFigures() {
	s := e.summaries.worker
	e.summaries.figuresWanted, e.summaries.figuresAsked = true, len(e.work.Run.Results)
	if s == nil || s.failed || !s.ready || s.busy || e.in.Inspect == nil || len(e.work.Run.Results) == 0 {
		return
	}
	e.summaries.figuresWanted = false
	e.summaries.figuresSeq++
	p := e.work.Run.Params
	s.post(searchworker.Request{Type: "summarize", ID: -e.summaries.figuresSeq, X0: e.in.X0, Z0: e.in.Inspect.Z0,
		Classes: len(e.in.Inspect.Prediction.Probs), Label0: argmax(e.in.Inspect.Prediction.Probs), Params: &p,
		Explanations: append([]clue.Explanation(nil), e.work.Run.Results...), Figures: true, Path: e.tracedPath(), Names: served().classes})
	s.busy, s.sentAt = true, time.Now()
}

func (s *summariser) post(req searchworker.Request) {
	b := searchworker.MarshalRequest(req)
	arr := app.Window().Get("Uint8Array").New(len(b))
	app.CopyBytesToJS(arr, b)
	buf := arr.Get("buffer")
	s.js.Call("postMessage", buf, []any{buf})
}

// passOn gives the summary worker a batch of the run's restarts (took, of a message of batch restarts that came
// as raw). When the summary is the worker's and the page took the whole batch, the search worker's message
// itself goes on, re-addressed in place to the summary's run (searchworker.IDOffset) and transferred: the page
// neither encodes nor copies it. Otherwise the restarts wait for the next summary request.
func (e *Explainer) passOn(raw app.Value, batch int, took []clue.Explanation) {
	if raw != nil && len(took) == batch && e.summaryInWorker() && raw.InstanceOf(app.Window().Get("ArrayBuffer")) {
		app.Window().Get("DataView").New(raw).Call("setInt32", searchworker.IDOffset, e.summaries.seq, true)
		e.summaries.worker.js.Call("postMessage", raw, []any{raw})
		return
	}
	e.summaries.unsent = append(e.summaries.unsent, took...)
}

// resetSummary forgets the summary worker's view of the run: the next request starts afresh.
func (e *Explainer) resetSummary() {
	e.summaries.seq++
	e.summaries.unsent, e.summaries.finishing, e.summaries.figuresFor, e.summaries.figuresAsked = nil, false, 0, 0
	e.summaries.figuresWanted = false // an earlier set's figures, waiting for the worker, are not this one's
	e.summaries.figuresSeq++          // nor are those still on their way
}

// onSummariser handles the summary worker's message on the UI goroutine.
func (e *Explainer) onSummariser(ctx app.Context, s *summariser, r searchworker.Response) {
	if s != e.summaries.worker {
		return
	}
	switch r.Type {
	case "ready":
		s.ready = true
		if !e.summaries.figuresWanted {
			ctx.PreventUpdate()
			return
		}
		e.requestFigures()
		return
	case "summarized":
		s.busy, s.took = false, time.Since(s.sentAt)
		s.answers++
		switch sm := r.Summarized; {
		case sm == nil:
		case r.ID < 0: // a small set's figures
			if r.ID == -e.summaries.figuresSeq && sm.Count == len(e.work.Run.Results) && sm.Tradeoff != "" {
				e.set.tradeoffSVG, e.set.mapSVG, e.summaries.figuresFor = sm.Tradeoff, sm.Map, sm.Count
			}
		case r.ID == e.summaries.seq && sm.Count <= len(e.work.Run.Results):
			timed("apply summary", func() { e.applySummary(*sm) })
		}
		if e.summaries.figuresWanted {
			e.requestFigures()
		}
	default: // the worker failed: the page summarises on its own thread from now on
		s.close()
		e.set.summarised = 0
		e.summarise()
	}
	if e.summaries.finishing {
		e.maybeFinish(ctx)
		return
	}
	if s.again && e.summaryInWorker() {
		s.again = false
		e.requestSummary()
	}
	e.scheduleRedraw()
	e.publish()
}

// applySummary takes the summary worker's summary: the marks onto the page's results, the cards, the sentence
// and the figures, when they came with it.
func (e *Explainer) applySummary(sm searchworker.Summarized) {
	// Both lists are in restart order (the worker's marks as it summarised, the results sorted here): a merge
	// marks them, where a map of 1000 marks took the page's thread several ms.
	marks := sm.Marks
	if !sort.SliceIsSorted(marks, func(a, b int) bool { return marks[a].Restart < marks[b].Restart }) {
		marks = append([]searchworker.Mark(nil), marks...)
		sort.Slice(marks, func(a, b int) bool { return marks[a].Restart < marks[b].Restart })
	}
	e.work.Run.SortResults()
	covered := e.work.Run.Results
	partial := sm.Count < len(e.work.Run.Results) // the summary of the restarts it was sent; the cards count those
	if partial {
		covered = make([]clue.Explanation, 0, sm.Count)
	}
	j := 0
	for i := range e.work.Run.Results {
		x := &e.work.Run.Results[i]
		x.Mode, x.DuplicateOf = -1, -1
		for j < len(marks) && marks[j].Restart < x.Restart {
			j++
		}
		if j < len(marks) && marks[j].Restart == x.Restart {
			x.Mode, x.DuplicateOf = marks[j].Mode, marks[j].DuplicateOf
			if partial {
				covered = append(covered, *x)
			}
		}
	}
	s := sm.Summary
	e.set.summary, e.set.summarised = &s, sm.Count
	c := sm.CARLA // the worker's: over 1000 restarts it took the page's thread 6–7 ms
	e.set.carlaOf = &c
	e.set.setCards(clue.ModeCards(covered, s))
	e.set.sentence = served().input().Describe(served().words(), e.in.X0, e.in.Inspect.Prediction, covered, s, e.work.Run.Params)
	if sm.Tradeoff != "" {
		e.set.tradeoffSVG, e.set.mapSVG, e.summaries.figuresFor = sm.Tradeoff, sm.Map, sm.Count
	}
}

// smallSetFiguresOwed says whether a finished small set (one the page summarises) still waits for its figures
// from a summary worker that can make them.
func (e *Explainer) smallSetFiguresOwed() bool {
	s := e.summaries.worker
	return !e.summaryInWorker() && !e.work.Run.Preview && !e.embed.on && s != nil && s.ready && !s.failed &&
		e.in.Inspect != nil && len(e.work.Run.Results) > 0 && e.summaries.figuresFor != len(e.work.Run.Results)
}
