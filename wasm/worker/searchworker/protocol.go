// Package searchworker is the search worker's protocol and logic, free of JavaScript so that it is tested
// natively: the page sends Requests, the worker answers with Responses, each one binary message (wire.go) in a
// postMessage.
//
//	page → worker: inspect  x0                          the model's view of x0
//	               explain  x0, params, restarts        a share of a search's restarts (none: all)
//	               trace    x0, params, restart         one restart's path, rerun recorded
//	               cancel                               stop the search with this ID
//	               summarize x0, z0, classes, params, explanations   a set's summary (summary.go)
//	worker → page: ready    version, fingerprint        once, when the models are loaded
//	               inspected inspection
//	               results  explanations                restarts as they finish, batched (every ResultsEvery)
//	               traced   trajectory
//	               alive                                a search's heartbeat, every AliveEvery without other news
//	               warm                                 the warm-up's time and restart-steps (WarmUp)
//	               done     seconds, error              the end of an explain (error if it failed or was
//	                                                    cancelled: "cancelled")
//	               error    error                       the models failed to load, or a bad message
//	               summarized count, summary, marks
//
// Floats travel as their IEEE bits, so a page that merges the workers' results holds the same bits the native
// engine computes.
package searchworker

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/weights"
)

// Request is a message from the page.
type Request struct {
	Type     string       `json:"type"`
	ID       int          `json:"id"`
	X0       []float32    `json:"x0,omitempty"`
	Params   *clue.Params `json:"params,omitempty"`
	Restarts []int        `json:"restarts,omitempty"`
	Restart  int          `json:"restart,omitempty"` // the restart a trace asks for
	// A summary request's latent point of x0, classes and the run's restarts not sent before (summary.go); a
	// "results" request's restarts for the summary of the run it names, forwarded as a search worker sent them.
	Z0           []float32          `json:"z0,omitempty"`
	Classes      int                `json:"classes,omitempty"`
	Label0       int                `json:"label0,omitempty"` // the model's label of x0, for CARLA's measures
	Explanations []clue.Explanation `json:"explanations,omitempty"`
	Figures      bool               `json:"figures,omitempty"` // the set's figures too, with this traced path
	Path         [][]float32        `json:"path,omitempty"`
	Names        []string           `json:"names,omitempty"` // the classes' names, for the figures' legends (nil: numbers)
}

// ResultsEvery is how often, at most, a search sends the restarts finished since its last batch.
const ResultsEvery = 15 * time.Millisecond

// AliveEvery is how long a search stays silent at most: with no batch to send for this long it sends "alive",
// so that the page can tell a worker that computes from one that died (it restarts a worker silent for
// several of these).
const AliveEvery = 500 * time.Millisecond

// TraceFrames is how many points of a traced path the worker decodes.
const TraceFrames = 8

// Response is a message to the page.
type Response struct {
	Type         string             `json:"type"`
	ID           int                `json:"id,omitempty"`
	Version      string             `json:"version,omitempty"`
	Fingerprint  uint32             `json:"fingerprint,omitempty"`
	Models       string             `json:"models,omitempty"` // ready: the models' name (their description's)
	Error        string             `json:"error,omitempty"`
	Inspection   *Inspection        `json:"inspection,omitempty"`
	Explanations []clue.Explanation `json:"explanations,omitempty"` // a batch of finished restarts
	Trajectory   *clue.Trajectory   `json:"trajectory,omitempty"`
	Seconds      float64            `json:"seconds,omitempty"`
	// RestartSteps, in a warm message (the worker's warm-up search, done or cut short), is how many restart-steps
	// took its Seconds: what a step costs on this device, before any search of the visitor's.
	RestartSteps int `json:"restart_steps,omitempty"`
	// At, in a ready message, is when the worker said it on its own clock: ms since the Unix epoch
	// (performance.timeOrigin + performance.now() in a worker), 0 where there is none. The page's thread may
	// be busy when it is sent, and hear it hundreds of ms later, while the worker is already at work.
	At         float64     `json:"at,omitempty"`
	Summarized *Summarized `json:"summarized,omitempty"` // a summary worker's answer (summary.go)
	// Memory, in a done message: the worker's live Go heap after a collection, and all the memory Go holds
	// (in WebAssembly, about its linear memory), for a page that watches for leaks.
	HeapBytes, SysBytes uint64
}

// Inspection is the models' view of an image: the BNN's prediction, the latent code and the VAE's
// reconstruction with the BNN's prediction on it.
type Inspection struct {
	Prediction      engine.Uncertainty `json:"prediction"`
	Z0              []float32          `json:"z0"`
	Reconstruction  []float32          `json:"reconstruction"`
	Reconstructed   engine.Uncertainty `json:"reconstructed"`
	MultiplyAddsPer int                `json:"multiply_adds_per_point_step"`
	// Amortised are GLAM-CLUE's answers for the labels the model finds plausible (engine/glam), made in
	// AmortisedMs; none when the models came without translations.
	Amortised   []Amortised `json:"amortised,omitempty"`
	AmortisedMs float64     `json:"amortised_ms,omitempty"`
}

// Amortised is one amortised answer: x0's code moved along the translation from the label read towards To, by
// the smallest scale K of the ladder that makes the model sure of To (Sure), or its last.
type Amortised struct {
	To       int       `json:"to"`
	Label    int       `json:"label"` // the model's label on Image
	Sure     bool      `json:"sure"`
	K        float32   `json:"k"`
	Shift    float32   `json:"shift"` // ‖K·t‖, the latent distance from z0
	HTotal   float32   `json:"h_total"`
	Distance float32   `json:"distance"` // L1 distance from x0
	Image    []float32 `json:"image"`
}

// Cancelled is the error of a done message whose search was cancelled.
const Cancelled = "cancelled"

// Worker answers requests with the shipped models.
type Worker struct {
	version      string
	models       *clue.Models
	translations []glam.Translation // GLAM-CLUE's, when the bundle has them
	fingerprint  uint32
	modelsName   string // the models' name, their description's: a share link names the models it was made for
	// Yield, if set, is called between the steps of a search: the browser worker gives its event loop a turn
	// there (spaced by a Pacer), which is what lets a "cancel" message in while Go computes.
	Yield func()

	mu      sync.Mutex
	cancels map[int]func()
	// cancelled holds the IDs of searches cancelled before they started: a page that queued several (a δ
	// sweep) and cancels them all must not wait for the queued ones to run.
	cancelled map[int]bool

	// The run a summary worker holds: its ID and the restarts sent so far: those summarised (and checked), and
	// those forwarded since ("results"), checked at the next summary, which is when it knows the input's sizes.
	sumID      int
	sumExps    []clue.Explanation
	sumPending []clue.Explanation
	sumLast    *Summarized // the summary of sumExps
	sumShape   [3]int      // the lengths of x0 and z0 and the classes sumExps were checked against
}

// New loads the shipped models (natively: the worker in the browser gets them from the page, NewFromBundle)
// and returns the worker with its first message: "ready", or "error" if the models could not be loaded.
func New(version string) (*Worker, Response) {
	return NewFromBundle(version, weights.ShippedBundle())
}

// NewFromBundle loads the models of a bundle (package weights) and returns the worker with its first message:
// "ready" with the models' fingerprint, or "error" saying why they could not be loaded (the page shows it).
func NewFromBundle(version string, bundle []byte) (*Worker, Response) {
	return newFromBundle(version, bundle, false)
}

// NewFromHashedBundle is NewFromBundle for a bundle whose SHA-256 the caller matched against the build's
// (weights.OpenHashedBundle): the files' payload hashes are not worked out again.
func NewFromHashedBundle(version string, bundle []byte) (*Worker, Response) {
	return newFromBundle(version, bundle, true)
}

func newFromBundle(version string, bundle []byte, hashed bool) (*Worker, Response) {
	w := &Worker{version: version, cancels: map[int]func(){}, cancelled: map[int]bool{}}
	b, err := weights.OpenBundleFiles(bundle, hashed)
	if err == nil {
		w.models, err = clue.LoadBundle(b)
	}
	if err == nil && b.Global != nil {
		if latent := b.Global.Manifest.Architecture.Latent; latent != w.models.VAE.Latent {
			err = fmt.Errorf("%s: translations of dimension %d for a latent space of %d", b.Global.Name, latent, w.models.VAE.Latent)
		} else {
			w.translations, err = glam.Decode(b.Global)
			glam.Attach(w.models, w.translations) // scheme S6 starts from the amortised answers
		}
	}
	if err != nil {
		w.models, w.translations = nil, nil
		return w, Response{Type: "error", Version: version, Error: "the models failed to load: " + err.Error()}
	}
	w.fingerprint, w.modelsName = b.Fingerprint(), b.Description.Name
	return w, Response{Type: "ready", Version: version, Fingerprint: w.fingerprint, Models: w.modelsName}
}

// amortise adds GLAM-CLUE's answers to an inspection: towards each plausible label with a translation from the
// label read, decoded and classified (a few ms: the page shows them before any search has a result).
func (w *Worker) amortise(in *Inspection, prob *clue.Problem) {
	if len(w.translations) == 0 {
		return
	}
	start := time.Now()
	for _, a := range glam.Explain(w.models, w.translations, prob.X0, prob.Z0, prob.Pred0.Label(),
		glam.Plausible(prob.Pred0.Probs, glam.PlausibleMin), w.models.Defaults().HThreshold) {
		in.Amortised = append(in.Amortised, Amortised{To: a.To, Label: a.Label, Sure: a.Sure, K: a.K, Shift: a.Shift,
			HTotal: a.HTotal, Distance: a.Distance, Image: a.Image})
	}
	in.AmortisedMs = float64(time.Since(start).Microseconds()) / 1000
}

// Handle answers one request, calling send for every response. "cancel" returns at once; "inspect" and
// "explain" return when they are done (explain streams a "result" per restart, then "done").
func (w *Worker) Handle(req Request, send func(Response)) {
	defer func() { // a bug must reach the page as a message, not kill the worker behind its back
		if p := recover(); p != nil {
			send(Response{Type: "error", ID: req.ID, Error: fmt.Sprintf("the search worker failed: %v", p)})
		}
	}()
	switch req.Type { // a summary needs no models
	case "summarize":
		w.summarize(req, send)
		return
	case "results":
		w.hold(req, send)
		return
	}
	if w.models == nil {
		send(Response{Type: "error", ID: req.ID, Error: "the models are not loaded"})
		return
	}
	switch req.Type {
	case "cancel":
		w.mu.Lock()
		if cancel := w.cancels[req.ID]; cancel != nil {
			cancel()
		} else if len(w.cancelled) < 10000 { // bounded: a stray cancel must not grow it for ever
			w.cancelled[req.ID] = true
		}
		w.mu.Unlock()
	case "inspect":
		prob, err := clue.NewProblem(w.models, req.X0)
		if err != nil {
			send(Response{Type: "error", ID: req.ID, Error: err.Error()})
			return
		}
		recon := w.models.VAE.DecodeImages(prob.Z0)
		in := &Inspection{Prediction: prob.Pred0, Z0: prob.Z0, Reconstruction: recon, Reconstructed: w.models.BNN.Classify(recon)[0],
			MultiplyAddsPer: engine.PointStepMultiplyAdds(w.models.VAE, w.models.BNN)}
		w.amortise(in, prob)
		send(Response{Type: "inspected", ID: req.ID, Inspection: in})
	case "trace":
		// Only when asked: an ordinary search records no paths, so it costs nothing extra.
		if req.Params == nil {
			send(Response{Type: "error", ID: req.ID, Error: "the trace request has no parameters"})
			return
		}
		prob, err := clue.NewProblem(w.models, req.X0)
		if err != nil {
			send(Response{Type: "error", ID: req.ID, Error: err.Error()})
			return
		}
		t, err := clue.Trace(&stop{}, prob, *req.Params, req.Restart, TraceFrames)
		if err != nil {
			send(Response{Type: "error", ID: req.ID, Error: err.Error()})
			return
		}
		send(Response{Type: "traced", ID: req.ID, Trajectory: &t})
	case "explain":
		start := time.Now()
		done := func(err error) {
			r := Response{Type: "done", ID: req.ID, Seconds: time.Since(start).Seconds()}
			r.HeapBytes, r.SysBytes = memory()
			if errors.Is(err, errCancelled) {
				r.Error = Cancelled
			} else if err != nil {
				r.Error = err.Error()
			}
			send(r)
		}
		if req.Params == nil {
			done(errors.New("the request has no parameters"))
			return
		}
		prob, err := clue.NewProblem(w.models, req.X0)
		if err != nil {
			done(err)
			return
		}
		ctx := &stop{}
		cancel := ctx.cancel
		w.mu.Lock()
		if w.cancelled[req.ID] {
			delete(w.cancelled, req.ID)
			cancel()
		}
		w.cancels[req.ID] = cancel
		w.mu.Unlock()
		defer func() {
			w.mu.Lock()
			delete(w.cancels, req.ID)
			w.mu.Unlock()
			cancel()
		}()
		// Finished restarts go out in batches, between steps: one message per restart would cost the page more
		// than the search.
		var batch []clue.Explanation
		last := time.Now().Add(-ResultsEvery) // the first result goes out at the first step boundary after it
		flush := func() {
			if len(batch) > 0 {
				send(Response{Type: "results", ID: req.ID, Explanations: batch})
				batch, last = nil, time.Now()
			}
		}
		between := func() {
			if time.Since(last) >= ResultsEvery {
				flush()
			}
			if time.Since(last) >= AliveEvery {
				send(Response{Type: "alive", ID: req.ID})
				last = time.Now()
			}
			if w.Yield != nil {
				w.Yield()
			}
		}
		// No restarts field means all of them; a pool sends each worker its share.
		_, err = clue.Search(yielding{ctx, between}, prob, *req.Params, req.Restarts, func(e clue.Explanation) {
			batch = append(batch, e)
		})
		flush()
		done(err)
	default:
		send(Response{Type: "error", ID: req.ID, Error: fmt.Sprintf("unknown request type %q", req.Type)})
	}
}

// memory returns the live heap after a collection and the memory Go has taken from the system.
func memory() (heap, sys uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.Sys
}

// stop is a search's cancel (clue.Stopper): not a context.Context, whose package would bring time's formatting
// and parsing into the digits' worker. Its cancel may come from the message handler while the search runs.
type stop struct{ cancelled atomic.Bool }

func (s *stop) cancel() { s.cancelled.Store(true) }

// Err is errCancelled once cancel was called.
func (s *stop) Err() error {
	if s.cancelled.Load() {
		return errCancelled
	}
	return nil
}

// errCancelled is a cancelled search's error.
var errCancelled = errors.New("the search was cancelled")

// yielding is a stopper whose Err, which the search calls between steps, first gives the host a chance to run.
type yielding struct {
	*stop
	yield func()
}

func (y yielding) Err() error {
	if y.yield != nil {
		y.yield()
	}
	return y.stop.Err()
}
