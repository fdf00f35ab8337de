package searchworker

import (
	"errors"
	"fmt"
	"reflect"
	"sort"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
)

// A set's summary (clue.Summarize: duplicates, modes by k-means, diversity, CARLA measures) grows with the square
// of its size and more: about 0.3 s natively for 1000 restarts, several times that in WebAssembly. The page
// hands sets larger than a few hundred to a worker of its own for it, so that its main thread never blocks:
//
//	page → worker: results    explanations                           restarts as a search worker sent them
//	page → worker: summarize  x0, z0, classes, params, explanations   the run's restarts not sent before
//	worker → page: summarized count, summary, marks                  the summary of every restart it holds
//
// The worker keeps the restarts of one run (the request's ID); a request with another positive ID starts
// afresh. A summarize request with a negative ID is a one-off, the figures of a set the page holds whole: the
// worker summarises the restarts it carries alone and keeps the run it holds (a one-off that reset it once lost
// a run's first restarts, and the page waited for ever for a summary of them all). It sorts the restarts by
// restart before Summarize, as the page and the CLI do, so the summary has the same bits.
//
// "results" is a search worker's "results" message as it came, its ID set to the summary's run: the page passes
// each batch on as it takes it, without decoding or encoding it again. Encoding the restarts not sent before
// into a summarize request (each an image of the digits' 784 floats) blocked the page's thread for up to a tenth of a second
// in a run of 1000. The worker answers nothing; it checks them at the next summarize, which brings the sizes.

// MaxSummarized bounds the restarts a summary worker holds for one run.
const MaxSummarized = 1 << 17

// Mark is what Summarize sets on one explanation: its mode within its label and the restart it duplicates
// (−1: none).
type Mark struct {
	Restart, Mode, DuplicateOf int
}

// Summarized is a summary worker's answer: the summary of the first Count restarts it was sent, and each one's
// mark, by restart.
type Summarized struct {
	Count   int
	Summary clue.Summary
	CARLA   clue.CARLA // CARLA's measures of the same restarts (but yNN, which needs the dataset)
	Marks   []Mark
	// The set's figures (figures.SetFigures), if they were asked for: the page parses them, the worker builds them.
	Tradeoff, Map string
}

// NewSummarizer returns a worker without models, which answers only "summarize", with its "ready" message.
func NewSummarizer(version string) (*Worker, Response) {
	return &Worker{version: version, cancels: map[int]func(){}, cancelled: map[int]bool{}},
		Response{Type: "ready", Version: version}
}

// summarize adds a request's explanations to its run's and answers with the summary of them all.
func (w *Worker) summarize(req Request, send func(Response)) {
	if err := checkSummarize(req); err != nil {
		send(Response{Type: "error", ID: req.ID, Error: err.Error()})
		return
	}
	if req.ID < 0 {
		w.summarizeApart(req, send)
		return
	}
	w.startRun(req.ID)
	shape := [3]int{len(req.X0), len(req.Z0), req.Classes}
	if len(w.sumExps) > 0 && shape != w.sumShape {
		send(Response{Type: "error", ID: req.ID, Error: "the summary request does not fit the restarts its run holds"})
		return
	}
	pending := w.sumPending
	w.sumPending = nil
	if err := checkExplanations(req, pending); err != nil {
		send(Response{Type: "error", ID: req.ID, Error: err.Error()})
		return
	}
	req.Explanations = append(pending, req.Explanations...)
	if r, twice := w.sentTwice(req.Explanations); twice {
		send(Response{Type: "error", ID: req.ID, Error: fmt.Sprintf("restart %d was sent twice for one summary", r)})
		return
	}
	if len(w.sumExps)+len(req.Explanations) > MaxSummarized {
		send(Response{Type: "error", ID: req.ID, Error: fmt.Sprintf("a summary of more than %d restarts", MaxSummarized)})
		return
	}
	exps := w.sumExps
	out := w.sumLast
	if len(req.Explanations) > 0 || out == nil { // nothing new: the last summary stands, only figures are asked for
		w.sumExps, w.sumShape = append(w.sumExps, req.Explanations...), shape
		exps = w.sumExps
		sort.SliceStable(exps, func(a, b int) bool { return exps[a].Restart < exps[b].Restart })
		s := clue.Summarize(req.X0, req.Z0, req.Classes, *req.Params, exps)
		marks := make([]Mark, len(exps))
		for i, x := range exps {
			marks[i] = Mark{Restart: x.Restart, Mode: x.Mode, DuplicateOf: x.DuplicateOf}
		}
		w.sumLast = &Summarized{Count: len(exps), Summary: s, CARLA: clue.CARLAOf(req.X0, req.Label0, exps), Marks: marks}
	}
	out = &Summarized{Count: w.sumLast.Count, Summary: w.sumLast.Summary, CARLA: w.sumLast.CARLA, Marks: w.sumLast.Marks}
	if req.Figures {
		out.Tradeoff, out.Map = figures.SetFigures(exps, req.Classes, req.Names, req.Z0, *req.Params, req.Path)
	}
	send(Response{Type: "summarized", ID: req.ID, Summarized: out})
}

// summarizeApart answers a one-off request (a negative ID) with the summary of its own restarts, and the
// figures if asked, leaving the run the worker holds as it is.
func (w *Worker) summarizeApart(req Request, send func(Response)) {
	held := make(map[int]bool, len(req.Explanations))
	for _, x := range req.Explanations {
		if held[x.Restart] {
			send(Response{Type: "error", ID: req.ID, Error: fmt.Sprintf("restart %d was sent twice for one summary", x.Restart)})
			return
		}
		held[x.Restart] = true
	}
	if len(req.Explanations) > MaxSummarized {
		send(Response{Type: "error", ID: req.ID, Error: fmt.Sprintf("a summary of more than %d restarts", MaxSummarized)})
		return
	}
	exps := append([]clue.Explanation(nil), req.Explanations...)
	sort.SliceStable(exps, func(a, b int) bool { return exps[a].Restart < exps[b].Restart })
	s := clue.Summarize(req.X0, req.Z0, req.Classes, *req.Params, exps)
	marks := make([]Mark, len(exps))
	for i, x := range exps {
		marks[i] = Mark{Restart: x.Restart, Mode: x.Mode, DuplicateOf: x.DuplicateOf}
	}
	out := &Summarized{Count: len(exps), Summary: s, CARLA: clue.CARLAOf(req.X0, req.Label0, exps), Marks: marks}
	if req.Figures {
		out.Tradeoff, out.Map = figures.SetFigures(exps, req.Classes, req.Names, req.Z0, *req.Params, req.Path)
	}
	send(Response{Type: "summarized", ID: req.ID, Summarized: out})
}

// sentTwice finds a restart of xs that the run holds already, or that xs holds twice: Summarize needs each
// restart once (the page sends each once; the fuzzer sent the same ones again and Summarize panicked).
func (w *Worker) sentTwice(xs []clue.Explanation) (int, bool) {
	held := make(map[int]bool, len(w.sumExps)+len(xs))
	for _, x := range w.sumExps {
		held[x.Restart] = true
	}
	for _, x := range xs {
		if held[x.Restart] {
			return x.Restart, true
		}
		held[x.Restart] = true
	}
	return 0, false
}

// startRun makes id the run the worker summarises: another run's restarts are forgotten.
func (w *Worker) startRun(id int) {
	if id != w.sumID || w.sumExps == nil {
		w.sumID, w.sumExps, w.sumPending, w.sumLast = id, []clue.Explanation{}, nil, nil
	}
}

// hold keeps a "results" request's restarts for the next summary of its run. It answers only a request that
// would make the run larger than MaxSummarized.
func (w *Worker) hold(req Request, send func(Response)) {
	w.startRun(req.ID)
	if len(w.sumExps)+len(w.sumPending)+len(req.Explanations) > MaxSummarized {
		send(Response{Type: "error", ID: req.ID, Error: fmt.Sprintf("a summary of more than %d restarts", MaxSummarized)})
		return
	}
	w.sumPending = append(w.sumPending, req.Explanations...)
}

// checkSummarize refuses what Summarize cannot take: every explanation that did not fail must have an image
// the size of x0, a latent point the size of z0, and a label and probabilities for the given classes.
func checkSummarize(req Request) error {
	if req.Params == nil {
		return errors.New("the summary request has no parameters")
	}
	if req.Classes < 2 || req.Classes > 1000 || len(req.X0) == 0 || len(req.Z0) == 0 {
		return errors.New("the summary request has no input, latent point or classes")
	}
	if req.Label0 < 0 || req.Label0 >= req.Classes {
		return errors.New("the summary request's label of the input is not one of its classes")
	}
	for _, z := range req.Path {
		if len(z) != len(req.Z0) {
			return errors.New("the summary request's path does not fit its latent point")
		}
	}
	return checkExplanations(req, req.Explanations)
}

// checkExplanations refuses, of xs, one that did not fail and does not fit the summary request's sizes.
func checkExplanations(req Request, xs []clue.Explanation) error {
	for _, x := range xs {
		if x.Failed != "" {
			continue
		}
		if len(x.Image) != len(req.X0) || len(x.Z) != len(req.Z0) || (x.Start != nil && len(x.Start) != len(req.Z0)) || len(x.Probs) != req.Classes || x.Label < 0 || x.Label >= req.Classes {
			return fmt.Errorf("restart %d does not fit the summary's input", x.Restart)
		}
	}
	return nil
}

// The summary travels field by field, in the order of its type's fields (both ends are the same build), so
// that a field added to clue.Summary travels without a change here. Numbers keep their bits.

func (w *writer) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			w.value(v.Field(i))
		}
	case reflect.Slice:
		w.u32(uint32(v.Len()))
		for i := 0; i < v.Len(); i++ {
			w.value(v.Index(i))
		}
	case reflect.Float64, reflect.Float32:
		w.f64(v.Float())
	case reflect.Int, reflect.Int32, reflect.Int64:
		w.u64(uint64(v.Int()))
	case reflect.Uint64, reflect.Uint32:
		w.u64(v.Uint())
	case reflect.Bool:
		w.flag(v.Bool())
	case reflect.String:
		w.str(v.String())
	case reflect.Pointer: // an optional part (a row's sparsity): present or not, then its value
		w.flag(!v.IsNil())
		if !v.IsNil() {
			w.value(v.Elem())
		}
	default:
		panic("searchworker: cannot send a " + v.Type().String())
	}
}

func (r *reader) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField() && r.err == nil; i++ {
			r.value(v.Field(i))
		}
	case reflect.Slice:
		n := r.count(1) // an empty list comes back empty, not nil: Summarize makes its lists
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n && r.err == nil; i++ {
			r.value(s.Index(i))
		}
		v.Set(s)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(r.f64())
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.u64()))
	case reflect.Uint64, reflect.Uint32:
		v.SetUint(r.u64())
	case reflect.Bool:
		v.SetBool(r.flag())
	case reflect.String:
		v.SetString(r.str())
	case reflect.Pointer:
		v.SetZero()
		if r.flag() {
			p := reflect.New(v.Type().Elem())
			r.value(p.Elem())
			v.Set(p)
		}
	}
}

func (w *writer) summarized(s *Summarized) {
	if s == nil {
		s = &Summarized{}
	}
	w.i32(s.Count)
	w.value(reflect.ValueOf(s.Summary))
	w.value(reflect.ValueOf(s.CARLA))
	w.u32(uint32(len(s.Marks)))
	for _, m := range s.Marks {
		w.i32(m.Restart)
		w.i32(m.Mode)
		w.i32(m.DuplicateOf)
	}
	w.str(s.Tradeoff)
	w.str(s.Map)
}

func (r *reader) summarized() *Summarized {
	s := &Summarized{Count: r.i32()}
	r.value(reflect.ValueOf(&s.Summary).Elem())
	r.value(reflect.ValueOf(&s.CARLA).Elem())
	n := r.count(12)
	for i := 0; i < n && r.err == nil; i++ {
		s.Marks = append(s.Marks, Mark{Restart: r.i32(), Mode: r.i32(), DuplicateOf: r.i32()})
	}
	s.Tradeoff, s.Map = r.str(), r.str()
	return s
}

func (w *writer) explanations(v []clue.Explanation) {
	w.u32(uint32(len(v)))
	for _, e := range v {
		w.explanation(e)
	}
}

func (r *reader) explanations() []clue.Explanation {
	n := r.count(4)
	var out []clue.Explanation
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.explanation())
	}
	return out
}
