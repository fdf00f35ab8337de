package clue

import (
	"fmt"
	"math"
	"sort"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// Models are what a search runs on.
type Models struct {
	VAE *engine.VAE
	BNN *engine.BNN
	// Anchors are, per class, the latent codes of low-uncertainty training inputs (scheme S2): nil without an
	// anchors file, and a class the classifier is never sure of has none (an empty slice).
	Anchors [][]float32
	// Amortised gives scheme S6 its centres: GLAM-CLUE's amortised points for x0 (code z0, read as label from),
	// one per target label with a learned translation from that label. Package glam sets it (glam.Attach);
	// nil when the models have no translations, and then S6 is unavailable.
	Amortised func(x0, z0 []float32, from int) [][]float32
	// desc is the description the models were built from (LoadBundle), whose search defaults Defaults gives;
	// nil for models built from files alone (the digits').
	desc *weights.Description
}

// Defaults are the default parameters for these models: DefaultsFor their description.
func (m *Models) Defaults() Params { return DefaultsFor(m.desc) }

// LoadModels builds the models from weights files; anchors may be nil (then scheme S2 is unavailable).
func LoadModels(vae, bnn, anchors *weights.File) (*Models, error) {
	v, err := engine.LoadVAE(vae)
	if err != nil {
		return nil, err
	}
	b, err := engine.LoadBNN(bnn)
	if err != nil {
		return nil, err
	}
	m := &Models{VAE: v, BNN: b}
	if anchors != nil {
		if m.Anchors, err = anchors.Anchors(b.Classes); err != nil {
			return nil, err
		}
		if anchors.Manifest.Architecture.Latent != v.Latent {
			return nil, fmt.Errorf("%s: anchors of dimension %d for a latent space of %d", anchors.Name, anchors.Manifest.Architecture.Latent, v.Latent)
		}
	}
	return m, nil
}

// LoadBundle builds the models of an opened bundle from its description; without anchors S2 is unavailable.
func LoadBundle(b *weights.Bundle) (*Models, error) {
	v, c, err := engine.Load(b.Description, b.Files)
	if err != nil {
		return nil, err
	}
	m := &Models{VAE: v, BNN: c, desc: b.Description}
	if b.Anchors != nil {
		if m.Anchors, err = b.Anchors.Anchors(c.Classes); err != nil {
			return nil, err
		}
		if b.Anchors.Manifest.Architecture.Latent != v.Latent {
			return nil, fmt.Errorf("%s: anchors of dimension %d for a latent space of %d", b.Anchors.Name, b.Anchors.Manifest.Architecture.Latent, v.Latent)
		}
	}
	return m, nil
}

// AnchoredClasses lists, in order, the classes that have anchors: those scheme S2 starts toward.
func (m *Models) AnchoredClasses() []int {
	var out []int
	for c, z := range m.Anchors {
		if len(z) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// UnanchoredClasses lists, in order, the classes of the models' anchors that have none: those S2 starts no
// restart toward (none when the models have no anchors file at all).
func (m *Models) UnanchoredClasses() []int {
	var out []int
	for c, z := range m.Anchors {
		if len(z) == 0 {
			out = append(out, c)
		}
	}
	return out
}

// ShippedModels loads the models the project ships (package weights).
func ShippedModels() (*Models, error) {
	vae, err := weights.ShippedVAE()
	if err != nil {
		return nil, err
	}
	bnn, err := weights.ShippedBNN()
	if err != nil {
		return nil, err
	}
	anchors, err := weights.ShippedAnchors()
	if err != nil {
		return nil, err
	}
	return LoadModels(vae, bnn, anchors)
}

// Problem is an image to explain, with what every search around it shares.
type Problem struct {
	models *Models
	X0     []float32          // the image, the classifier's input, intensities in [0, 1]
	Z0     []float32          // its latent code μφ(x0), the centre of the ball
	Pred0  engine.Uncertainty // the BNN on x0
	// Row is x0 in natural units when the models read rows (one value per column, a category its level's
	// index; X0 is it flattened), nil for images.
	Row []float64
	z0  []float64
}

// NewProblem checks x0 (the classifier's input: finite intensities in [0, 1], not blank; for a model of rows, a
// flattened row, as NewRowProblem flattens it) and encodes and classifies it.
func NewProblem(m *Models, x0 []float32) (*Problem, error) {
	if !engine.DenseOnly && m.Columns() != nil { // the dense-only worker reads no rows: its code is left out
		return newFlatRowProblem(m, x0)
	}
	if in := m.BNN.Input; len(x0) != in.Size() {
		return nil, fmt.Errorf("the image has %d values, want %d (%d×%d, %d channels)", len(x0), in.Size(), in.H, in.W, in.C)
	}
	var ink float64
	for i, v := range x0 {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("pixel %d is %v, want an intensity in [0, 1]", i, v)
		}
		ink += float64(v)
	}
	if ink < 1 {
		return nil, fmt.Errorf("the image is empty: there is nothing to explain")
	}
	p := &Problem{models: m, X0: append([]float32(nil), x0...)}
	p.Z0 = m.VAE.Encode(p.X0)
	p.Pred0 = m.BNN.Classify(p.X0)[0]
	p.z0 = make([]float64, len(p.Z0))
	for i, v := range p.Z0 {
		p.z0[i] = float64(v)
	}
	return p, nil
}

// Models returns the models the problem runs on.
func (prob *Problem) Models() *Models { return prob.models }

// Explanation is one restart's result: a δ-CLUE if Accepted.
type Explanation struct {
	Restart    int       `json:"restart"`
	Start      []float32 `json:"start"` // latent starting point
	Z          []float32 `json:"z"`     // latent result
	Image      []float32 `json:"image"` // μθ(z), an image of the classifier's input
	Label      int       `json:"label"` // the BNN's most probable class on Image
	Probs      []float32 `json:"probs"` // the BNN's p̄ on Image
	HTotal     float32   `json:"h_total"`
	HAleatoric float32   `json:"h_aleatoric"`
	HEpistemic float32   `json:"h_epistemic"`
	// Mean is a regression's predictive mean on Image (nil for a classifier): its HTotal, HAleatoric and HEpistemic
	// are then the predictive standard deviations in the target's unit, and Label and Probs its range's.
	Mean      *float32 `json:"mean,omitempty"`
	Distance  float32  `json:"distance"` // summed L1 distance from x0 in input space
	Rho       float32  `json:"rho"`      // latent distance ρ(z, z0)
	OnShell   bool     `json:"on_shell"` // ρ = δ (within 1e-4 relative)
	Cost      float32  `json:"cost"`     // L(z): the objective's terms at Image (after Sparse's reverts, at the row they leave)
	Steps     int      `json:"steps"`    // updates taken to reach Z (under CLUERule, Window−1 fewer than the search computed)
	Converged bool     `json:"converged"`
	Accepted  bool     `json:"accepted"`
	Failed    string   `json:"failed,omitempty"` // why the restart produced nothing (a NaN), if it did
	// Changed names, for a model of rows, the columns whose value differs from x0's, in the columns' order: its
	// length is the explanation's sparsity (features changed), and none changed leaves it out. Images have none.
	Changed []string `json:"changed,omitempty"`
	// Reverted names, in the columns' order, the columns the search changed and Params.Sparse gave back to x0's
	// value, the model sure without them; none leaves it out.
	Reverted []string `json:"reverted,omitempty"`
	// YNN is CARLA's plausibility: the fraction of the NeighboursK training codes nearest to Z (among the
	// anchors) that have this explanation's label; −1 when the models have no anchors.
	YNN float32 `json:"ynn"`
	// Set by Summarize: the mode (cluster) within its label, and the earlier explanation it duplicates.
	Mode        int `json:"mode"`
	DuplicateOf int `json:"duplicate_of"`
}

// restart is a running restart's optimiser state.
type restart struct {
	index       int
	z, m, v     []float64
	steps       int
	initialCost float64
	recent      []float64   // the last Window+1 costs, oldest first
	points      [][]float64 // CLUERule only: the last Window points z, oldest first
	b1t, b2t    float64     // β1^t, β2^t
	converged   bool        // the convergence rule fired
	rewound     bool        // CLUERule fired: z is the earlier point it returns, evaluated in the next pass
}

const (
	adamBeta1, adamBeta2, adamEps = 0.9, 0.999, 1e-8
	shellTolerance                = 1e-4
)

// Stopper is what a search asks between its steps whether to stop: a context.Context is one (its Err), and so
// is the worker's own cancel, which keeps package context out of the digits' worker (with it came every method of
// time.Time that an interface might call, time's formatting and parsing: a first visit's 12 KB gzipped).
type Stopper interface {
	Err() error
}

// Search runs the restarts with the given indices (nil: all, 0..Restarts()-1) as one batch on the engine and
// returns their explanations sorted by restart. onResult, if non-nil, receives each explanation as soon as its
// restart stops (converged, out of steps, or failed), in the order they stop. The search checks ctx between
// steps and, when it is cancelled, returns what it has with ctx's error.
func Search(ctx Stopper, prob *Problem, p Params, restarts []int, onResult func(Explanation)) ([]Explanation, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	total := p.Restarts()
	if restarts == nil {
		restarts = make([]int, total)
		for i := range restarts {
			restarts[i] = i
		}
	}
	seen := map[int]bool{}
	for _, i := range restarts {
		if i < 0 || i >= total || seen[i] {
			return nil, fmt.Errorf("restart %d is outside 0..%d or repeated", i, total-1)
		}
		seen[i] = true
	}
	if p.LambdaD > 0 && len(restarts) != total {
		return nil, fmt.Errorf("the diversity term couples all %d restarts, so they must run in one search", total)
	}
	if len(restarts) == 0 {
		return nil, nil
	}
	starts, err := Starts(prob, p)
	if err != nil {
		return nil, err
	}
	return run(ctx, prob, p, restarts, starts, onResult, nil)
}

// run is Search from given starting points (indexed by restart). If paths is non-nil, it records every point
// at which each restart's objective was evaluated, by restart: paths[i][0] is its start, the last its result.
func run(ctx Stopper, prob *Problem, p Params, restarts []int, starts [][]float64, onResult func(Explanation), paths map[int][][]float32) ([]Explanation, error) {
	m := prob.models
	obj, release, err := prob.objective(p, len(restarts))
	if err != nil {
		return nil, err
	}
	defer release()
	d := m.VAE.Latent
	states := make([]*restart, len(restarts))
	for k, i := range restarts {
		z := append([]float64(nil), starts[i]...)
		if p.Constraint == Project {
			p.project(z, prob.z0) // starts lie in the ball already; this only guards rounding
		}
		states[k] = &restart{index: i, z: z, m: make([]float64, d), v: make([]float64, d), b1t: 1, b2t: 1}
	}
	var div *diversity
	if p.LambdaD > 0 {
		div = newDiversity(len(states), d)
	}
	active := append([]*restart(nil), states...)
	var prune *pruner
	if p.Sparse && !engine.DenseOnly { // (the dense-only worker reads no rows: the pruner's code is left out)
		if prune, err = prob.newPruner(p); err != nil {
			return nil, err
		}
		defer prune.release()
	}
	results := make([]Explanation, 0, len(states))
	var done []Explanation // the pass's results, pruned together at its end
	finish := func(s *restart, row int, failed string) {
		done = append(done, prob.explanation(obj, row, s, p, starts[s.index], failed))
	}
	flush := func() {
		if !engine.DenseOnly && prune != nil {
			var sure []*Explanation
			for k := range done {
				if done[k].Accepted {
					sure = append(sure, &done[k])
				}
			}
			prune.prune(sure)
		}
		for _, e := range done {
			results = append(results, e)
			if onResult != nil {
				onResult(e)
			}
		}
		done = done[:0]
	}
	grad := make([]float64, d)
	per, weights := obj.Graph.PointFloats(), obj.Graph.WeightFloats() // (passRows' sizes: the graph's, fixed)
	for len(active) > 0 {
		if err := ctx.Err(); err != nil {
			sort.Slice(results, func(a, b int) bool { return results[a].Restart < results[b].Restart })
			return results, err
		}
		rows := len(active)
		if div == nil { // (the diversity term couples every restart: one pass)
			rows = passRows(per, weights, len(active))
		}
		next := active[:0] // (it overwrites only restarts already read)
		for p0 := 0; p0 < len(active); p0 += rows {
			pass := active[p0:min(p0+rows, len(active))]
			if err := obj.Graph.SetBatch(len(pass)); err != nil {
				return nil, err
			}
			for r, s := range pass {
				for k, v := range s.z {
					obj.Z.Data[r*d+k] = float32(v)
				}
				if paths != nil && !s.rewound {
					paths[s.index] = append(paths[s.index], append([]float32(nil), obj.Z.Row(r)...))
				}
			}
			obj.Forward()
			obj.Backward()
			if div != nil {
				div.update(states, p)
			}
			for r, s := range pass {
				if s.rewound { // this pass evaluated the earlier point CLUE's rule returns: it is the result
					finish(s, r, "")
					continue
				}
				cost := float64(obj.Cost.Data[r])
				bad := !finite(cost)
				for k := 0; k < d; k++ {
					grad[k] = float64(obj.Z.Grad[r*d+k])
					if div != nil {
						grad[k] -= p.LambdaD * div.grad[s.index][k]
					}
					bad = bad || !finite(grad[k])
				}
				if bad {
					finish(s, r, fmt.Sprintf("the cost or its gradient became NaN or infinite after %s", plural.Count(s.steps, "step")))
					continue
				}
				if stop, back := s.observe(cost, p); back > 0 {
					// CLUE's rule returns the point back updates before this one: evaluate it once more in the next
					// pass (the same float32 point gives the same bits) rather than keep every pass's outputs.
					s.rewound = true
					s.z, s.steps = s.points[len(s.points)-1-back], s.steps-back
					if paths != nil { // the path ends at the result, as CLUE's frozen vectors do
						paths[s.index] = paths[s.index][:s.steps+1]
					}
					next = append(next, s)
					continue
				} else if stop {
					finish(s, r, "")
					continue
				}
				s.adam(grad, p)
				if p.Constraint == Project {
					p.project(s.z, prob.z0)
				}
				next = append(next, s)
			}
		}
		flush()
		active = next
	}
	sort.Slice(results, func(a, b int) bool { return results[a].Restart < results[b].Restart })
	return results, nil
}

// passFloats is about the most values a pass of the objective's graph holds (its weights, and its points'
// PointFloats): a batch of points larger than that runs in several passes, each a smaller batch whose layers'
// outputs stay nearer the cache, where the weights, read again each pass, are at most half of it (passWeights).
// Every point's values are its own in any batch, so the bits do not change (TestPassesKeepBits). Measured natively
// (docs/layers.md): the example's small ResNet (167 k values a point, 67 k weights) steps 50 points 17 % faster in
// passes of 10, Fashion's (61 k, 0.9 M) as fast in passes of 17 (5–7 % faster in the page); torchvision's
// ResNet-18 (11 M weights) would be 50 % slower in passes of 8, and the digits' (2.8 M) 10 %: they run in one.
var passFloats = 1 << 21

// passWeights is how many times the weights passFloats must hold for a batch to be cut (TestPassesKeepBits sets
// it to 0, to cut the digits' batches, whose 2.8 M weights hold more than their points).
var passWeights = 2

// minPassRows is the fewest points a pass takes where a batch is cut: fewer lose the products' speed (the digits'
// dense layers run 10 % slower at 8 points than at 25).
const minPassRows = 8

// passRows is how many of n points a pass takes, of a graph holding per values a point and w weights
// (Graph.PointFloats, Graph.WeightFloats): all of them, or, where they and the weights would hold more than
// passFloats values and passFloats holds the weights passWeights times, as few passes as keep each under it (or
// at minPassRows points), of nearly equal sizes.
func passRows(per, w, n int) int {
	if n*per+w <= passFloats || passWeights*w > passFloats {
		return n
	}
	rows := max(minPassRows, (passFloats-w)/per)
	passes := (n + rows - 1) / rows
	return (n + passes - 1) / passes
}

// lossWeights are the objective's weights for the parameters.
func lossWeights(p Params) engine.LossWeights {
	return engine.LossWeights{Total: float32(p.WTotal), Aleatoric: float32(p.WAleatoric), Epistemic: float32(p.WEpistemic),
		LambdaX: float32(p.LambdaX), DistanceMean: p.DistanceMean, LambdaY: float32(p.LambdaY)}
}

// observe records the cost of z_t, the restart's current point (t = s.steps updates), and applies p's
// convergence rule: stop says the restart ends here (the rule fired, or t = MaxSteps), and back how many
// updates before z_t its result lies (CLUERule: Window−1; otherwise 0).
func (s *restart) observe(cost float64, p Params) (stop bool, back int) {
	if s.steps == 0 {
		s.initialCost = cost
	}
	s.recent = append(s.recent, cost)
	if len(s.recent) > p.Window+1 {
		s.recent = s.recent[1:]
	}
	if p.Convergence == CLUERule {
		s.points = append(s.points, append([]float64(nil), s.z...))
		if len(s.points) > p.Window {
			s.points = s.points[1:]
		}
		if s.clueConverged(p) {
			s.converged = true
			return true, p.Window - 1
		}
	} else if s.spreadConverged(p) {
		s.converged = true
	}
	return s.converged || s.steps == p.MaxSteps, 0
}

// spreadConverged applies the Spread rule: after MinSteps updates, the cost moved less than
// max(RelTol·|initial cost|, AbsTol) over the last Window updates (max − min of the last Window+1 costs).
func (s *restart) spreadConverged(p Params) bool {
	if s.steps < p.MinSteps || len(s.recent) < p.Window+1 {
		return false
	}
	lo, hi := s.recent[0], s.recent[0]
	for _, c := range s.recent {
		lo, hi = math.Min(lo, c), math.Max(hi, c)
	}
	return hi-lo < math.Max(p.RelTol*math.Abs(s.initialCost), p.AbsTol)
}

// clueConverged applies CLUERule at step t = s.steps: t > MinSteps, t ≥ Window and t < MaxSteps, and
// |c[t−Window] − c[t]| < RelTol·c[0] or < AbsTol (CLUE.update_stopvec; c[0] without an absolute value, as there).
func (s *restart) clueConverged(p Params) bool {
	t := s.steps
	if t <= p.MinSteps || t < p.Window || t >= p.MaxSteps || len(s.recent) < p.Window+1 {
		return false
	}
	moved := math.Abs(s.recent[0] - s.recent[p.Window])
	return moved < p.RelTol*s.initialCost || moved < p.AbsTol
}

// adam takes one Adam step on z.
func (s *restart) adam(grad []float64, p Params) {
	s.steps++
	s.b1t *= adamBeta1
	s.b2t *= adamBeta2
	for k, g := range grad {
		s.m[k] = adamBeta1*s.m[k] + (1-adamBeta1)*g
		s.v[k] = adamBeta2*s.v[k] + (1-adamBeta2)*g*g
		mHat := s.m[k] / (1 - s.b1t)
		vHat := s.v[k] / (1 - s.b2t)
		s.z[k] -= p.LearningRate * mHat / (math.Sqrt(vHat) + adamEps)
	}
}

// explanation reads restart s's result from row r of the objective's last forward pass.
func (prob *Problem) explanation(obj *engine.Objective, r int, s *restart, p Params, start []float64, failed string) Explanation {
	d := len(prob.z0)
	e := Explanation{Restart: s.index, Steps: s.steps, Mode: -1, DuplicateOf: -1, YNN: -1, Start: make([]float32, d)}
	for k, v := range start {
		if !finite(v) { // only a failed restart can have had such a start; keep the result encodable
			e.Start = nil
			break
		}
		e.Start[k] = float32(v)
	}
	if failed != "" {
		e.Failed = failed
		return e
	}
	e.Z = append([]float32(nil), obj.Z.Row(r)...)
	e.Image = append([]float32(nil), obj.Image.Row(r)...)
	e.Changed = prob.changedColumns(e.Image)
	e.Probs = append([]float32(nil), obj.Pred.ProbsRow(r)...)
	e.Label = engine.Uncertainty{Probs: e.Probs}.Label()
	e.HTotal, e.HAleatoric, e.HEpistemic = obj.Pred.Total.Data[r], obj.Pred.Aleatoric.Data[r], obj.Pred.Epistemic.Data[r]
	e.Distance, e.Cost = obj.Distance.Data[r], obj.Cost.Data[r]
	off := make([]float64, d)
	for k, v := range e.Z {
		off[k] = float64(v) - prob.z0[k]
	}
	rho := p.norm(off)
	e.Rho = float32(rho)
	e.OnShell = rho >= p.Delta*(1-shellTolerance)
	e.Converged = s.converged
	e.Accepted = float64(e.HTotal) < p.HThreshold && rho <= p.Delta*(1+shellTolerance)
	if !weights.RegressionLeftOut && obj.Pred.Mean != nil { // a regression: sure when σ ≤ τ
		m := obj.Pred.Mean.Data[r]
		e.Mean = &m
		e.Accepted = float64(e.HTotal) <= p.HThreshold && rho <= p.Delta*(1+shellTolerance)
	}
	e.YNN = neighbourAgreement(e.Z, e.Label, prob.models.Anchors, NeighboursK)
	return e
}

// MostUncertain returns the indices of the k images (of the classifier's input, one after another) on which the BNN's predictive entropy H_total is
// highest, most uncertain first (ties by index).
func MostUncertain(b *engine.BNN, images []float32, k int) []int {
	preds := b.Classify(images)
	idx := make([]int, len(preds))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, c int) bool { return preds[idx[a]].Total > preds[idx[c]].Total })
	return idx[:min(k, len(idx))]
}
