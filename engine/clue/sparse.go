package clue

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"sync"

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
// A pass bisects the remaining changes (smallest first) for a prefix the model stays sure without and the change
// after it, which it needs on top of that prefix: the prefix is given back, the change set aside, and the pass
// goes on with the rest (a round tries all of them first: often the drift goes at once). When a pass has set
// every change aside or given it back, one more round gives back each change left alone; if the model is sure
// without any of them, another pass. So no change an explanation keeps can be given back on its own
// (TestSparseExplanations). The explanations a pass of the search ends go through their rounds side by side,
// each round's rows scored in batches.

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
	key        string // rowObjectiveKey, once the scorer is taken
	offs       []int
}

// pruning is one explanation's state between rounds: its row so far (cur, with the first lo changes of order
// given back), the changes of this pass, the bisection's bounds, and those given back; or, with check, the changes
// left, to try alone.
type pruning struct {
	e      *Explanation
	cur    []float32
	order  []int
	lo, hi int // the model is sure with the first lo of order given back, not with the first hi (−1: not known)
	check  bool
	back   []int
	first  int // its row's first index in the scorer's batch
}

// next is the prefix of order the bisection tries: all of it while hi is not known, else halfway.
func (q *pruning) next() int {
	if q.hi < 0 {
		return len(q.order)
	}
	return (q.lo + q.hi) / 2
}

// rows is how many candidate rows q scores this round.
func (q *pruning) rows() int {
	if q.check {
		return len(q.order)
	}
	return 1
}

// scorerRows is how many rows the scorer scores at once (or a row's columns, if more): a round's explanations go
// in batches of whole explanations (each row scores the same bits in any batch).
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
		offs: cols.Offsets(), weights: lossWeights(p), y0: y0,
		capacity: max(len(cols), min(scorerRows, p.Restarts()*len(cols)))}, nil
}

// GiveBack is Params.Sparse after a search without it: it gives back the needless changes of the explanations
// (of a model of rows) whose H is below p.HThreshold (σ at most it, a regression's), the model sure without them,
// and rescores them, as a search with Sparse would have. The experiment uses it: it accepts every restart (the
// paper measures all n results) and makes those sure at the models' threshold sparse. Images are left as they are.
func GiveBack(prob *Problem, p Params, exps []Explanation) error {
	r, err := prob.newPruner(p)
	if err != nil || r == nil {
		return err
	}
	defer r.release()
	var sure []*Explanation
	for k := range exps {
		e := &exps[k]
		if h := float64(e.HTotal); e.Failed == "" && (h < p.HThreshold || r.regression && h <= p.HThreshold) {
			sure = append(sure, e)
		}
	}
	r.prune(sure)
	return nil
}

// scorer is the pruner's scorer, built when first needed (a search with no sure explanation needs none), or the
// one an earlier search of the same row and parameters left (idleObjectives).
func (r *pruner) scorer() *engine.Objective {
	if r.score == nil {
		r.key = rowObjectiveKey('s', r.head, r.y0, r.weights, r.capacity)
		if r.score = idleObjectives.take(r.prob.models, r.key); r.score == nil {
			var err error
			if r.score, err = engine.NewRowScorer(r.prob.models.BNN, r.capacity, r.weights, r.head, r.y0); err != nil {
				panic(err) // the search's objective was built from the same models, weights and y0
			}
		}
	}
	return r.score
}

// release leaves the pruner's scorer for the next search of the same row and parameters.
func (r *pruner) release() {
	if r != nil && r.score != nil {
		idleObjectives.put(r.prob.models, r.key, r.score)
		r.score = nil
	}
}

// rowObjectiveKey is what an objective of rows of kind ('o' the search's, 's' the pruner's scorer) is built from
// besides the models, as bytes: x0's row, the locks (the row head), y0, the loss's weights and the capacity.
func rowObjectiveKey(kind byte, head *engine.RowHead, y0 []float32, w engine.LossWeights, capacity int) string {
	b := make([]byte, 0, 1+4*(len(head.X0)+len(y0)+8)+len(head.Locked))
	b = append(b, kind)
	f32 := func(v float32) { b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v)) }
	for _, v := range head.X0 {
		f32(v)
	}
	for _, l := range head.Locked {
		b = append(b, flagByte(l))
	}
	b = append(b, '|')
	for _, v := range y0 {
		f32(v)
	}
	for _, v := range []float32{w.Total, w.Aleatoric, w.Epistemic, w.LambdaX, w.LambdaY} {
		f32(v)
	}
	b = append(b, flagByte(w.DistanceMean))
	b = binary.LittleEndian.AppendUint32(b, uint32(capacity))
	return string(b)
}

func flagByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// objectiveCache keeps the idle objectives of rows (the search's and the pruner's scorer) for the next search of
// the same row and parameters: building one allocates its buffers, a few per cent of a warm search of a row (the
// page's worker builds each search's problem anew). An objective is taken by one search at a time, and gives the
// same bits whatever it computed before (TestRowObjectivesReused); the cache holds at most maxIdleObjectives, the
// newest. (A row's objective is small; an image's, far larger and a smaller part of its search, is not kept.)
type objectiveCache struct {
	mu   sync.Mutex
	idle []idleObjective
}

type idleObjective struct {
	models *Models
	key    string
	obj    *engine.Objective
}

const maxIdleObjectives = 8

var idleObjectives objectiveCache

func (c *objectiveCache) take(m *Models, key string) *engine.Objective {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, s := range c.idle {
		if s.models == m && s.key == key {
			c.idle = slices.Delete(c.idle, i, i+1)
			return s.obj
		}
	}
	return nil
}

// clear forgets every idle objective.
func (c *objectiveCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.idle = nil
}

func (c *objectiveCache) put(m *Models, key string, obj *engine.Objective) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idle) == maxIdleObjectives {
		c.idle = slices.Delete(c.idle, 0, 1)
	}
	c.idle = append(c.idle, idleObjective{m, key, obj})
}

// prune gives back the needless changes of es (sure explanations of a model of rows), each as if alone, and
// rescores them; Reverted names what each gave back. The explanations go through their rounds side by side, a
// round's candidate rows scored in batches.
func (r *pruner) prune(es []*Explanation) {
	var live []*pruning
	for _, e := range es {
		q := &pruning{e: e, cur: slices.Clone(e.Image), hi: -1}
		if q.order = r.changes(q.cur); len(q.order) > 0 {
			live = append(live, q)
		}
	}
	for len(live) > 0 {
		next := live[:0]
		for from := 0; from < len(live); {
			// A batch of whole explanations' rows, scored, then each explanation takes its scores.
			s, rows, to := r.scorer(), 0, from
			for ; to < len(live); to++ {
				n := live[to].rows()
				if rows+n > r.capacity {
					break
				}
				live[to].first = rows
				rows += n
			}
			if err := s.Graph.SetBatch(rows); err != nil {
				panic(err) // rows ≤ its capacity
			}
			for _, q := range live[from:to] {
				r.candidates(q)
			}
			s.Graph.Forward()
			for _, q := range live[from:to] {
				if r.advance(q) {
					next = append(next, q)
				}
			}
			from = to
		}
		live = next
	}
}

// candidates sets q's rows of the scorer's batch: cur with order's changes from lo to next given back, or
// (check) with each of order given back alone.
func (r *pruner) candidates(q *pruning) {
	img := r.score.Image
	if q.check {
		for k, c := range q.order {
			row := img.Row(q.first + k)
			copy(row, q.cur)
			r.revert(row, c)
		}
		return
	}
	row := img.Row(q.first)
	copy(row, q.cur)
	for _, c := range q.order[q.lo:q.next()] {
		r.revert(row, c)
	}
}

// sure says whether the scorer's row k is sure of label: H below the threshold (σ at most τ for a regression),
// and then (a regression's ranges' probabilities cost more than the rest of its scores) the label.
func (r *pruner) sure(k, label int) bool {
	p := r.score.Pred
	if h := float64(p.Total.Data[k]); !(h < r.threshold || r.regression && h <= r.threshold) {
		return false
	}
	return engine.Uncertainty{Probs: p.ProbsRow(k)}.Label() == label
}

// advance takes q's round's scores. A pass bisects for a prefix of order (smallest first) the model is sure
// with, given back, while the next change is needed on top of it, and sets that change aside; at the pass's end,
// the check of each change left alone starts another pass if any is needless. It says whether q has rounds left;
// when it has none, its explanation holds what it gave back.
func (r *pruner) advance(q *pruning) bool {
	if q.check {
		for k := range q.order {
			if r.sure(q.first+k, q.e.Label) {
				q.order, q.check, q.lo, q.hi = r.changes(q.cur), false, 0, -1
				return true
			}
		}
		return r.done(q)
	}
	if tried := q.next(); r.sure(q.first, q.e.Label) {
		copy(q.cur, r.score.Image.Row(q.first))
		q.back = append(q.back, q.order[q.lo:tried]...)
		r.take(q.e, q.first, q.cur)
		if q.lo = tried; q.hi < 0 { // all of it
			q.order = nil
		}
	} else {
		q.hi = tried
	}
	switch {
	case q.order == nil:
	case q.hi-q.lo > 1:
		return true
	default: // the change after the prefix is needed on it: set aside
		q.order, q.lo, q.hi = q.order[q.hi:], 0, -1
		if len(q.order) > 0 {
			return true
		}
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
	order := r.prob.changedIndices(x, r.offs)
	sort.SliceStable(order, func(a, b int) bool { return r.head.Part(x, order[a]) < r.head.Part(x, order[b]) })
	return order
}

// revert sets column i of x to x0's values.
func (r *pruner) revert(x []float32, i int) {
	copy(x[r.offs[i]:r.offs[i+1]], r.prob.X0[r.offs[i]:r.offs[i+1]])
}

// take sets e to the row cur, scored as the scorer's row k.
func (r *pruner) take(e *Explanation, k int, cur []float32) {
	p := r.score.Pred
	e.Image = slices.Clone(cur)
	e.Changed = r.prob.changedColumns(cur)
	e.Probs = slices.Clone(p.ProbsRow(k))
	e.HTotal, e.HAleatoric, e.HEpistemic = p.Total.Data[k], p.Aleatoric.Data[k], p.Epistemic.Data[k]
	if r.regression {
		m := p.Mean.Data[k]
		e.Mean = &m
	}
	e.Distance, e.Cost = r.score.Distance.Data[k], r.score.Cost.Data[k]
}
