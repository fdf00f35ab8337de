package clue

import (
	"math"
	"slices"
	"sort"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/weights"
)

// Sparse explanations of rows (Params.Sparse). The search moves a latent point, and the decoder changes every
// column a little as it goes: of the 8 or so features a credit explanation changed, a few carried it and the rest
// were the decoder's drift (Income 140 → 135 beside Records yes → no). An analyst reads each change as a reason.
// So, once a restart's result is sure, the pruner gives its changes back to x0's values, the smallest first (by
// the column's part of d), keeping each one the model stays sure without: the same label, H below the threshold
// (a regression: σ at most τ). Giving back keeps the row valid and every constraint (x0's value is in range and
// never moves a column against its rule), and only lowers d; it is the row head's x = m⊙x0 + (1−m)⊙dec(z) with
// more of m set, so z, ρ and the shell are the search's. The row it gives is scored by the objective's own ops
// (engine.NewRowScorer): its H, d and cost are the bits the search would give that row.
//
// Each round scores, in one batch, the current row with the first 1, 2, … of the remaining changes given back,
// keeps the longest prefix the model stays sure of, and sets aside the change after it (given back too, the model
// was not sure). When a pass has set every change aside or given it back, one more batch gives back each change
// left alone; if the model is sure without any of them, another pass. So no change an explanation keeps can be
// given back on its own (TestSparseExplanations). The explanations a pass of the search ends go through their
// rounds side by side, each round's rows scored in batches (on the concrete models' least sure mix, 81 sure
// explanations of 100 took 11 rounds of 1,173 rows in all, 14.5 an explanation).

// pruner gives back the needless changes of one search's sure explanations; one per search (its graph is not
// shared), nil for images.
type pruner struct {
	prob       *Problem
	threshold  float64
	regression bool
	head       *engine.RowHead
	score      *engine.Objective // built when first needed (scorer)
	weights    engine.LossWeights
	y0         []float32
	capacity   int
	offs       []int
	width      int

	batch  []float32 // a round's candidate rows, one after another
	scores []score   // their scores
}

// score is a candidate row's scores, as the scorer gives them.
type score struct {
	sure                        bool // of the explanation's label
	probs                       []float32
	total, aleatoric, epistemic float32
	mean, distance, cost        float32
}

// pruning is one explanation's state between rounds: its row so far, the changes of this pass still to try (or,
// with check, the changes left to try alone), and those given back.
type pruning struct {
	e     *Explanation
	cur   []float32
	order []int
	check bool
	back  []int
	first int // its rows' first index in the round's batch
}

// scorerRows is how many rows the scorer scores at once: a round's batch goes in parts of this size (each row
// scores the same bits in any batch).
const scorerRows = 64

// newPruner makes the pruner of a search with parameters p, or nil when the models read images.
func (prob *Problem) newPruner(p Params) (*pruner, error) {
	if engine.DenseOnly { // the dense-only worker reads no rows: its code is left out
		return nil, nil
	}
	head, err := prob.rowHead(p)
	if err != nil || head == nil {
		return nil, err
	}
	y0 := prob.Pred0.Probs
	regression := !weights.RegressionLeftOut && prob.Pred0.Mean != nil
	if regression {
		y0 = []float32{*prob.Pred0.Mean}
	}
	cols := prob.models.Columns()
	return &pruner{prob: prob, threshold: p.HThreshold, regression: regression, head: head,
		offs: cols.Offsets(), width: len(prob.X0), weights: lossWeights(p), y0: y0,
		capacity: min(scorerRows, p.Restarts()*len(cols))}, nil
}

// scorer is the pruner's scorer, built when first needed (a search with no sure explanation needs none).
func (r *pruner) scorer() *engine.Objective {
	if r.score == nil {
		var err error
		if r.score, err = engine.NewRowScorer(r.prob.models.BNN, r.capacity, r.weights, r.head, r.y0); err != nil {
			panic(err) // the search's objective was built from the same models, weights and y0
		}
	}
	return r.score
}

// prune gives back the needless changes of es (sure explanations of a model of rows), each as if alone, and
// rescores them; Reverted names what each gave back. The explanations go through their rounds side by side, a
// round's candidate rows scored in one batch.
func (r *pruner) prune(es []*Explanation) {
	var live []*pruning
	for _, e := range es {
		q := &pruning{e: e, cur: slices.Clone(e.Image)}
		if q.order = r.changes(q.cur); len(q.order) > 0 {
			live = append(live, q)
		}
	}
	for len(live) > 0 {
		r.batch, r.scores = r.batch[:0], r.scores[:0]
		for _, q := range live {
			q.first = len(r.scores)
			r.candidates(q)
		}
		r.scoreBatch(live)
		next := live[:0]
		for _, q := range live {
			if r.advance(q) {
				next = append(next, q)
			}
		}
		live = next
	}
}

// candidates adds q's rows of this round to the batch: cur with the first 1, 2, … of order given back, or (check)
// with each of order given back alone.
func (r *pruner) candidates(q *pruning) {
	for k, c := range q.order {
		if at := len(r.batch); q.check || k == 0 {
			r.batch = append(r.batch, q.cur...)
		} else {
			r.batch = append(r.batch, r.batch[at-r.width:at]...) // the previous prefix
		}
		r.revert(r.batch[len(r.batch)-r.width:], c)
		r.scores = append(r.scores, score{})
	}
}

// scoreBatch scores the batch's rows, in parts of at most the scorer's capacity, each against its explanation's
// label.
func (r *pruner) scoreBatch(live []*pruning) {
	labels := make([]int, len(r.scores))
	for _, q := range live {
		for k := range q.order {
			labels[q.first+k] = q.e.Label
		}
	}
	capacity := r.scorer().Graph.Capacity()
	for from := 0; from < len(r.scores); from += capacity {
		n := min(capacity, len(r.scores)-from)
		if err := r.score.Graph.SetBatch(n); err != nil {
			panic(err) // n ≤ its capacity
		}
		copy(r.score.Image.Data, r.batch[from*r.width:(from+n)*r.width])
		r.score.Graph.Forward()
		p := r.score.Pred
		for k := range n {
			s := score{total: p.Total.Data[k], aleatoric: p.Aleatoric.Data[k], epistemic: p.Epistemic.Data[k],
				distance: r.score.Distance.Data[k], cost: r.score.Cost.Data[k]}
			if r.regression {
				s.mean = p.Mean.Data[k]
			}
			// The label only where H is below the threshold: a regression's ranges' probabilities cost more
			// than the rest of the row's scores.
			if h := float64(s.total); h < r.threshold || r.regression && h <= r.threshold {
				s.probs = slices.Clone(p.ProbsRow(k))
				s.sure = engine.Uncertainty{Probs: s.probs}.Label() == labels[from+k]
			}
			r.scores[from+k] = s
		}
	}
}

// advance takes q's round's scores: the longest prefix the model stays sure with, setting aside the change after
// it; at a pass's end, the check of each change left alone, which starts another pass if any is needless. It says
// whether q has rounds left; when it has none, its explanation holds what it gave back.
func (r *pruner) advance(q *pruning) bool {
	n := len(q.order)
	scores := r.scores[q.first : q.first+n]
	if q.check {
		if !slices.ContainsFunc(scores, func(s score) bool { return s.sure }) {
			return r.done(q)
		}
		q.order, q.check = r.changes(q.cur), false
		return true
	}
	best := -1
	for k := n - 1; k >= 0; k-- {
		if scores[k].sure {
			best = k
			break
		}
	}
	if best >= 0 {
		copy(q.cur, r.batch[(q.first+best)*r.width:(q.first+best+1)*r.width])
		q.back = append(q.back, q.order[:best+1]...)
		r.take(q.e, scores[best], q.cur)
	}
	if q.order = q.order[min(best+2, n):]; len(q.order) > 0 {
		return true
	}
	if q.order = r.changes(q.cur); len(q.order) == 0 {
		return r.done(q)
	}
	q.check = true
	return true
}

// done names what q gave back in its explanation, and says q has no rounds left.
func (r *pruner) done(q *pruning) bool {
	if len(q.back) > 0 {
		slices.Sort(q.back)
		cols := r.prob.models.Columns()
		q.e.Reverted = make([]string, len(q.back))
		for k, i := range q.back {
			q.e.Reverted[k] = cols[i].Name
		}
	}
	return false
}

// changes lists the columns x changes (bit for bit), by their part of d, smallest first (ties in the columns'
// order).
func (r *pruner) changes(x []float32) []int {
	x0, off := r.prob.X0, r.offs
	var order []int
	for i := range len(off) - 1 {
		if !sameBits(x[off[i]:off[i+1]], x0[off[i]:off[i+1]]) {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return r.head.Part(x, order[a]) < r.head.Part(x, order[b]) })
	return order
}

// revert sets column i of x to x0's values.
func (r *pruner) revert(x []float32, i int) {
	copy(x[r.offs[i]:r.offs[i+1]], r.prob.X0[r.offs[i]:r.offs[i+1]])
}

// take sets e to the row cur, with its scores s.
func (r *pruner) take(e *Explanation, s score, cur []float32) {
	e.Image = slices.Clone(cur)
	e.Changed = r.prob.changedColumns(cur)
	e.Probs = s.probs
	e.HTotal, e.HAleatoric, e.HEpistemic = s.total, s.aleatoric, s.epistemic
	if r.regression {
		m := s.mean
		e.Mean = &m
	}
	e.Distance, e.Cost = s.distance, s.cost
}

// sameBits says whether a and b hold the same bits.
func sameBits(a, b []float32) bool {
	for i, v := range a {
		if math.Float32bits(v) != math.Float32bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}
