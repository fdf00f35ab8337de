package searchworker

import (
	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/weights"
)

func (w *writer) params(p clue.Params) {
	for _, v := range []float64{p.Delta, p.WTotal, p.WAleatoric, p.WEpistemic, p.LambdaX, p.LambdaY, p.LambdaD,
		p.LearningRate, p.RelTol, p.AbsTol, p.HThreshold, p.DedupL1} {
		w.f64(v)
	}
	for _, v := range []int{p.N, int(p.Scheme), int(p.Rho), int(p.Constraint), p.MaxSteps, p.Window, p.MinSteps, int(p.Convergence)} {
		w.i32(v)
	}
	w.flag(p.DistanceMean)
	w.flag(p.Sparse)
	w.u64(p.Seed)
	w.str(string(p.Lock))
}

func (r *reader) params() clue.Params {
	var p clue.Params
	for _, v := range []*float64{&p.Delta, &p.WTotal, &p.WAleatoric, &p.WEpistemic, &p.LambdaX, &p.LambdaY, &p.LambdaD,
		&p.LearningRate, &p.RelTol, &p.AbsTol, &p.HThreshold, &p.DedupL1} {
		*v = r.f64()
	}
	var scheme, rho, constraint, convergence int
	for _, v := range []*int{&p.N, &scheme, &rho, &constraint, &p.MaxSteps, &p.Window, &p.MinSteps, &convergence} {
		*v = r.i32()
	}
	p.Scheme, p.Rho, p.Constraint = clue.Scheme(scheme), clue.Norm(rho), clue.Constraint(constraint)
	p.Convergence = clue.Convergence(convergence)
	p.DistanceMean = r.flag()
	p.Sparse = r.flag()
	p.Seed = r.u64()
	p.Lock = clue.ColumnList(r.str())
	return p
}

func (w *writer) uncertainty(u engine.Uncertainty) {
	w.floats(u.Probs)
	w.f32(u.Total)
	w.f32(u.Aleatoric)
	w.f32(u.Epistemic)
	w.mean(u.Mean)
}

func (r *reader) uncertainty() engine.Uncertainty {
	u := engine.Uncertainty{Probs: r.floats(), Total: r.f32(), Aleatoric: r.f32(), Epistemic: r.f32()}
	u.Mean = r.mean()
	return u
}

// mean writes a regression's predictive mean: a flag, then the value when there is one (a classifier's is nil).
// Every build writes the flag, whether or not it reads regressions, so that any page reads any worker.
func (w *writer) mean(m *float32) {
	w.flag(m != nil)
	if m != nil {
		w.f32(*m)
	}
}

func (r *reader) mean() *float32 {
	if !r.flag() {
		return nil
	}
	m := r.f32()
	return &m
}

func (w *writer) explanation(e clue.Explanation) {
	w.i32(e.Restart)
	w.floats(e.Start)
	w.floats(e.Z)
	w.floats(e.Image)
	w.i32(e.Label)
	w.floats(e.Probs)
	for _, v := range []float32{e.HTotal, e.HAleatoric, e.HEpistemic, e.Distance, e.Rho, e.Cost, e.YNN} {
		w.f32(v)
	}
	w.flag(e.OnShell)
	w.flag(e.Converged)
	w.flag(e.Accepted)
	w.i32(e.Steps)
	w.str(e.Failed)
	w.i32(e.Mode)
	w.i32(e.DuplicateOf)
	w.names(e.Changed)  // a row's changed columns (none for an image)
	w.names(e.Reverted) // and those Params.Sparse gave back
	w.mean(e.Mean)
}

// names writes a list of column names.
func (w *writer) names(ns []string) {
	w.u16(uint16(len(ns)))
	for _, c := range ns {
		w.str(c)
	}
}

// names reads a list of column names (nil when empty).
func (r *reader) names() []string {
	var ns []string
	if n := int(r.u16()); n > 0 {
		ns = make([]string, 0, min(n, weights.MaxColumns))
		for i := 0; i < n && r.err == nil; i++ {
			ns = append(ns, r.str())
		}
	}
	return ns
}

func (r *reader) explanation() clue.Explanation {
	e := clue.Explanation{Restart: r.i32(), Start: r.floats(), Z: r.floats(), Image: r.floats(), Label: r.i32(), Probs: r.floats()}
	for _, v := range []*float32{&e.HTotal, &e.HAleatoric, &e.HEpistemic, &e.Distance, &e.Rho, &e.Cost, &e.YNN} {
		*v = r.f32()
	}
	e.OnShell, e.Converged, e.Accepted = r.flag(), r.flag(), r.flag()
	e.Steps, e.Failed, e.Mode, e.DuplicateOf = r.i32(), r.str(), r.i32(), r.i32()
	e.Changed, e.Reverted = r.names(), r.names()
	e.Mean = r.mean()
	return e
}

// results writes a batch of restarts as a "results" message's body, which a request of the same type shares.
func (w *writer) results(xs []clue.Explanation) {
	w.u16(uint16(len(xs)))
	for _, e := range xs {
		w.explanation(e)
	}
}

// results reads a "results" body.
func (r *reader) results() []clue.Explanation {
	var xs []clue.Explanation
	n := int(r.u16())
	for i := 0; i < n && r.err == nil; i++ {
		xs = append(xs, r.explanation())
	}
	return xs
}
