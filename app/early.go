package app

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// earlyRun is the search of the address's link that web/loader.js started in the workers before the page ran
// (searchworker.Early). Its messages are held until the page opens the link: then the page either adopts the
// run, as if it had started it, or cancels it and runs the link itself.
type earlyRun struct {
	link string // the fragment the loader gave the workers
	id   int    // the run's request ID; worker 0's inspection answers to −id
	held []heldMessage
}

type heldMessage struct {
	k  int
	r  searchworker.Response
	at float64 // when the browser delivered it, ms since navigation
}

// holdEarly keeps a message of the early run until the page decides about it.
func (w *searchWorkers) holdEarly(k int, r searchworker.Response, at float64) bool {
	if w.early == nil || (r.ID != w.early.id && r.ID != -w.early.id) {
		return false
	}
	w.early.held = append(w.early.held, heldMessage{k, r, at})
	return true
}

// dropEarly cancels the early run, if there is one, and forgets what it sent.
func (w *searchWorkers) dropEarly() {
	if w.early == nil {
		return
	}
	if w.pool != nil {
		all := map[int]bool{}
		for k := range w.pool.workers {
			all[k] = true
		}
		w.pool.cancel(w.early.id, all)
	}
	w.early = nil
}

// openEarly opens link with the early run if that run is this link's, as the page would have started it: the
// same link (read the same way), one the workers run on their own (searchworker.OpensEarly, which the workers
// applied too), and every worker still the one the loader started. It sets the input, takes over the run and
// replays what the workers sent meanwhile. Otherwise it cancels the early run and reports false.
func (e *Explainer) openEarly(ctx app.Context, link sharelink.State) bool {
	r := e.workers.early
	if r == nil {
		return false
	}
	s, err := sharelink.Decode(r.link)
	if err != nil || sharelink.Encode(s) != sharelink.Encode(link) || !searchworker.OpensEarly(link, e.models.name, e.models.fingerprint, served().defaults()) ||
		e.workers.pool == nil || !e.work.AllEarly() || e.work.ReadyCount() != len(e.work.Workers) || e.running() || e.sweep.run.running() {
		e.workers.dropEarly()
		return false
	}
	e.workers.early = nil
	if e.models.timing != nil {
		e.models.timing["adopted"] = now() // when the page took the loader's run over
	}
	e.takeInput(ctx, link.Image, "the shared link")
	e.showInEntry()                           // the link's input, where it is entered
	e.in.InspectSeq, e.in.InspectAt = r.id, 0 // worker 0 answered, or will answer, the inspection −id
	e.links.Restore = &link
	e.work.HoldPreviews()
	e.links.Err = ""
	// The search started when the first worker was ready; its messages may have waited for the page since.
	first, _ := e.work.ReadySpan()
	started := time.Now().Add(-time.Duration((now() - first) * float64(time.Millisecond)))
	e.exec(ctx, e.work.Adopt(r.id, e.in.X0, link.Params, started, time.Now()))
	e.updateLink()
	e.scheduleRedraw()
	for _, m := range r.held {
		e.onWorker(ctx, m.k, m.r, m.at, nil)
	}
	e.publish()
	return true
}
