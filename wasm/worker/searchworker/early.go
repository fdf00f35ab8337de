package searchworker

import (
	"math"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/weights"
)

// Early is a shared link that web/loader.js hands each search worker it starts before the page's own program
// has loaded: worker Worker of Workers runs its share of the link's search at once, under request ID, so that
// the answer is ready, or nearly, when the page is. The page adopts the run if its own view of the link agrees
// (OpensEarly), and cancels it otherwise.
type Early struct {
	Link            string // the address's fragment, without the #
	Worker, Workers int
	ID              int // the run's request ID; the inspection of worker 0 answers to -ID
}

// OpensEarly says whether a link is run by the workers on their own as the page loads: it must be for these
// models (their name and fingerprint), not costly against their defaults (the page asks first), and not
// coupled by the diversity term (λd > 0 runs every restart on one worker). The page and the worker both decide
// with it, each with the defaults of the one description, so they agree.
func OpensEarly(s sharelink.State, models string, fingerprint uint32, defaults clue.Params) bool {
	return sharelink.CheckModel(s, models, fingerprint) == nil && !s.Costly(defaults) && s.Params.LambdaD == 0
}

// Share is worker k's share of a search's restarts when n workers split it, as the page splits it: restart i
// goes to worker i mod n.
func Share(restarts, k, n int) []int {
	var out []int
	for i := k; i < restarts; i += n {
		out = append(out, i)
	}
	return out
}

// EarlyLink runs worker e.Worker's share of the link's search, as an explain request with ID e.ID (worker 0
// first answers an inspection, ID -e.ID, so that the page can show the models' view at once). It reports
// whether it ran: a link that cannot be read, or that OpensEarly declines, is left to the page.
func (w *Worker) EarlyLink(e Early, send func(Response)) bool {
	if w.models == nil || e.Workers < 1 || e.Worker < 0 || e.Worker >= e.Workers || e.ID <= 0 {
		return false
	}
	s, err := sharelink.Decode(e.Link)
	if err != nil || !OpensEarly(s, w.modelsName, w.fingerprint, w.models.Defaults()) {
		return false
	}
	x0 := s.Float()
	if !engine.DenseOnly && w.models.Columns() != nil { // a row, carried column by column
		var err error
		if x0, err = weights.CarriedRow(w.models.Columns(), s.Image); err != nil {
			return false // not a row of this table: the page says why
		}
	}
	if e.Worker == 0 {
		w.Handle(Request{Type: "inspect", ID: -e.ID, X0: x0}, send)
	}
	share := Share(s.Params.Restarts(), e.Worker, e.Workers)
	if len(share) == 0 {
		return true // fewer restarts than workers: the page expects nothing of this one, as when it splits a run
	}
	p := s.Params
	w.Handle(Request{Type: "explain", ID: e.ID, X0: x0, Params: &p, Restarts: share}, send)
	return true
}

// WarmUp runs a small search that nobody asked for, on an image the models themselves make (the decoded anchor
// of class 4, or the decoded origin of the latent space when the bundle has no anchors), so that the browser optimises the search's code while
// the worker would be idle anyway: its first real search then runs at the speed of its later ones. It takes the
// path a real search takes (an inspection, the results in batches, every message encoded for the wire) and
// drops what it would send, so that all of that code is optimised too, not only the steps. It returns at once
// for a worker without models (the page's summary worker). Then it sends a "warm" message: its time and
// restart-steps, what a step of these models costs on this device (the page asks before a search that would take
// long).
func (w *Worker) WarmUp(restarts, steps int, send func(Response)) {
	if w.models == nil || restarts <= 0 || steps <= 0 {
		return
	}
	centre := make([]float32, w.models.VAE.Latent) // the latent space's origin, where there are no anchors
	if a, d := w.models.Anchors, w.models.VAE.Latent; len(a) > 4 && len(a[4]) >= d {
		centre = a[4][:d]
	}
	x0 := w.models.VAE.DecodeImages(centre)
	p := w.models.Defaults()
	p.N, p.MaxSteps, p.MinSteps, p.RelTol, p.AbsTol = restarts, steps, min(p.MinSteps, steps), 0, 0
	taken, seconds := 0, 0.0
	drop := func(r Response) {
		MarshalResponse(r)
		for _, e := range r.Explanations {
			taken += e.Steps
		}
		if r.Type == "done" {
			seconds = r.Seconds
		}
	}
	w.Handle(Request{Type: "inspect", ID: warmUpID, X0: x0}, drop)
	w.Handle(Request{Type: "explain", ID: warmUpID, X0: x0, Params: &p}, drop)
	if taken > 0 && seconds > 0 {
		send(Response{Type: "warm", Seconds: seconds, RestartSteps: taken})
	}
}

// StopWarmUp ends a warm-up under way at its next step: a request has come, and the visitor waits for it, not
// for the warm-up (the first live preview after a load came 0.15 s later while a warm-up ran to its end). It is
// safe to call from the worker's message handler while WarmUp runs, and does nothing when none does.
func (w *Worker) StopWarmUp() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cancel := w.cancels[warmUpID]; cancel != nil {
		cancel()
	}
}

// warmUpID is the warm-up's request ID: the page numbers its requests from 1 (and their inspections −1, −2, …),
// so no cancel of the page's ever names it.
const warmUpID = math.MinInt32
