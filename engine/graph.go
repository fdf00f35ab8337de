// Package engine is a small reverse-mode automatic differentiation engine for the δ-CLUE search, and the
// project's models on it: the VAE's encoder and decoder and the MC-dropout BNN.
//
// It is built for one job: differentiate a per-point loss L(z) with respect to a batch of latent points z,
// thousands of times, natively and inside a browser worker (WASM), with bit-identical results on both. So:
//
//   - Tensors are float32 matrices [rows, cols] whose row count follows the graph's active batch: a point
//     that leaves the batch (it converged) stops costing compute (Graph.SetBatch).
//   - A graph is built once for a batch capacity; Forward and Backward then run on buffers allocated at build
//     time and allocate nothing.
//   - Weights are constants: gradients flow only into tensors that depend on a graph input that asked for
//     them (the latent points), never into weights.
//   - Each op's backward rule sits beside its forward rule (ops.go); matrix products go through
//     engine/kernel, whose pure-Go and WASM SIMD kernels give the same bits; exp and log come from
//     engine/fmath, which gives the same bits on every platform.
//
// The graph runs on one goroutine; use one graph per goroutine.
package engine

import "fmt"

// Tensor is a float32 matrix [Rows(), Cols] in row-major order, living in a Graph. Its row count is the
// graph's batch size times PerPoint (1 for most tensors, K for the BNN's MC-expanded activations, laid out
// sample-major: row k·batch + i belongs to sample k of point i).
//
// With compaction on (compact.go), a hidden tensor that only dense ops and ReLUs read travels packed, and its
// Data and Grad are then not written: inputs, and tensors that an op other than those reads (every output of
// the models), always are.
type Tensor struct {
	Cols     int
	PerPoint int
	Data     []float32 // capacity·PerPoint·Cols values; the first Rows()·Cols are live
	Grad     []float32 // ∂loss/∂Data, same size; nil when no gradient flows into this tensor
	g        *Graph

	// Compaction (compact.go): nz lists, on a ReLU's output, the columns it keeps (every column nonzero in some
	// live row, perhaps more); pk is Data packed to some columns (a ReLU's output: nz; denseSamples' outCols),
	// gpk Grad packed to a ReLU's nz. needFull is false when every reader reads pk: then Data is not written.
	nz       *colSet
	pk, gpk  *pack
	needFull bool
	producer op
	users    []op

	clearedBy op // the op before whose backward Backward clears Grad, its last reader (wireClears); nil: another
}

// Rows is the tensor's live row count for the graph's current batch.
func (t *Tensor) Rows() int { return t.PerPoint * t.g.batch }

// Live returns the live part of Data.
func (t *Tensor) Live() []float32 { return t.Data[:t.Rows()*t.Cols] }

// Row returns row r of Data.
func (t *Tensor) Row(r int) []float32 { return t.Data[r*t.Cols : (r+1)*t.Cols] }

// op is one differentiable operation: forward computes its output from its inputs for the live rows;
// backward adds ∂loss/∂input to the inputs' Grad (those that have one) given ∂loss/∂output.
type op interface {
	forward()
	backward()
}

// Graph is a computation on a batch of up to Capacity points, recorded op by op in the order it is built
// (a valid topological order), run forward in that order and backward in reverse.
type Graph struct {
	capacity int
	batch    int
	ops      []op
	tensors  []*Tensor
	weights  int // the float32 weights its ops read a pass (WeightFloats)

	compact bool    // compaction on for this Forward and the Backward after it (compact.go)
	wired   int     // len(ops) when wire last ran
	loss    *Tensor // the tensor the last Backward seeded

	// Where Backward clears each gradient (wireClears, for the ops up to cleared): clearAt[i] holds the tensors
	// whose gradient op i's backward is the first to touch (op i is their last reader), cleared right before it
	// runs, while the op's own reads and writes of it follow; clearFirst those no op reads, cleared up front.
	clearAt    [][]*Tensor
	clearFirst []*Tensor
	cleared    int
}

// NewGraph starts a graph for batches of up to capacity points.
func NewGraph(capacity int) *Graph {
	if capacity < 1 {
		panic(fmt.Sprintf("engine: graph capacity %d < 1", capacity))
	}
	return &Graph{capacity: capacity, batch: capacity}
}

// Capacity is the largest batch the graph was built for.
func (g *Graph) Capacity() int { return g.capacity }

// Batch is the current number of live points.
func (g *Graph) Batch() int { return g.batch }

// PointFloats is how many float32 values a point's rows hold across the graph's tensors, their gradients included:
// about what a pass over a batch of n points reads and writes, n times over (the ops' own scratch aside).
func (g *Graph) PointFloats() int {
	n := 0
	for _, t := range g.tensors {
		f := t.PerPoint * t.Cols
		if t.Grad != nil {
			f *= 2
		}
		n += f
	}
	return n
}

// WeightFloats is how many float32 weights a pass over the graph reads, whatever the batch: its dense and
// convolution layers' matrices and biases, and a dense layer's transposed matrix again where its backward reads it.
func (g *Graph) WeightFloats() int { return g.weights }

// SetBatch sets the number of live points (rows 0..n-1 of every per-point tensor) for the next Forward and
// Backward. Shrinking it is how converged points leave the computation.
func (g *Graph) SetBatch(n int) error {
	if n < 1 || n > g.capacity {
		return fmt.Errorf("batch %d outside 1..%d", n, g.capacity)
	}
	g.batch = n
	return nil
}

// newTensor allocates a tensor of cols columns and perPoint rows per point, with a gradient buffer if grad.
func (g *Graph) newTensor(cols, perPoint int, grad bool) *Tensor {
	t := &Tensor{Cols: cols, PerPoint: perPoint, Data: make([]float32, g.capacity*perPoint*cols), g: g}
	if grad {
		t.Grad = make([]float32, len(t.Data))
	}
	g.tensors = append(g.tensors, t)
	return t
}

// Input adds a per-point input of cols columns, to be filled by the caller before Forward. If grad, Backward
// computes ∂loss/∂input into its Grad.
func (g *Graph) Input(cols int, grad bool) *Tensor { return g.newTensor(cols, 1, grad) }

func (g *Graph) add(o op) { g.ops = append(g.ops, o) }

// use records that op o reads tensor t.
func (g *Graph) use(t *Tensor, o op) { t.users = append(t.users, o) }

// readsPacked reports whether op o reads its input t packed when it can.
func readsPacked(o op, t *Tensor) bool {
	switch o := o.(type) {
	case *denseOp:
		return o.x == t && t.PerPoint == 1
	case *denseSamplesOp:
		return o.x == t
	case *reluOp:
		return o.x == t
	}
	return false
}

// convolution is an op that multiplies its windows and may do it sparse (conv.go).
type convolution interface{ wireSparse() }

// wire works out, once the graph is built, where compaction may pass tensors packed (compact.go): a tensor's
// Data is needed at full width unless every reader reads it packed; a ReLU's output gradient travels packed
// when its only reader is a dense op, and its input gradient when the ReLU is its only reader and a dense op
// produced it; a ReLU with none of that around it runs at full width (reluOp.full); and which of a
// convolution's passes multiply sparse.
func (g *Graph) wire() {
	for _, t := range g.tensors {
		t.needFull = t.pk == nil || len(t.users) == 0
		for _, u := range t.users {
			t.needFull = t.needFull || !readsPacked(u, t)
		}
		if t.gpk != nil {
			t.gpk.on = false
		}
	}
	for _, o := range g.ops {
		if c, ok := o.(convolution); ok {
			c.wireSparse()
		}
		r, ok := o.(*reluOp)
		if !ok {
			continue
		}
		if h := r.out; h.gpk != nil && len(h.users) == 1 && readsPacked(h.users[0], h) {
			_, relu := h.users[0].(*reluOp)
			h.gpk.on = !relu
		}
		if x := r.x; x.gpk != nil && len(x.users) == 1 {
			switch p := x.producer.(type) {
			case *denseOp:
				x.gpk.on = p.x.PerPoint == 1
			case *denseSamplesOp:
				x.gpk.on = true
			}
		}
		if !DenseOnly {
			r.full = r.x.pk == nil && (r.x.gpk == nil || !r.x.gpk.on) && (r.out.gpk == nil || !r.out.gpk.on)
			for _, u := range r.out.users {
				r.full = r.full && !readsPacked(u, r.out)
			}
		}
	}
	g.wired = len(g.ops)
}

// Forward runs every op for the live rows.
func (g *Graph) Forward() {
	g.compact = compaction
	if g.wired != len(g.ops) {
		g.wire()
	}
	for _, o := range g.ops {
		o.forward()
	}
}

// Backward computes the gradient of Σ_i loss[i] (a per-point scalar, [batch, 1]) with respect to every tensor
// that takes a gradient, after a Forward: ∂/∂loss[i] = 1 for each live point, and each point's gradient is
// its own loss's, since points never mix. (weights scales point i's loss instead, when non-nil.)
func (g *Graph) Backward(loss *Tensor, weights []float32) {
	if loss.Grad == nil || loss.Cols != 1 || loss.PerPoint != 1 {
		panic("engine: Backward needs a per-point scalar loss that depends on a gradient input")
	}
	g.loss = loss
	if g.cleared != len(g.ops) {
		g.wireClears()
	}
	// Every gradient is +0 before the first op that touches it: its last reader, whose backward runs first
	// (in reverse order, after every op that does not touch it). Cleared there rather than all up front, it is
	// still in the cache when that op adds into it. The seeded loss is cleared here, before its seed.
	for _, t := range g.clearFirst {
		if !t.gradPacked() { // a packed gradient's writer starts it from +0
			clear(t.Grad[:t.Rows()*t.Cols])
		}
	}
	clear(loss.Grad[:loss.Rows()*loss.Cols])
	seed := loss.Grad[:g.batch]
	for i := range seed {
		seed[i] = 1
		if weights != nil {
			seed[i] = weights[i]
		}
	}
	for i := len(g.ops) - 1; i >= 0; i-- {
		for _, t := range g.clearAt[i] {
			if t != loss && !t.gradPacked() {
				clear(t.Grad[:t.Rows()*t.Cols])
			}
		}
		g.ops[i].backward()
	}
}

// wireClears works out where Backward clears each gradient: before its last reader's backward (clearAt), up
// front where no op of the graph reads the tensor (clearFirst), or nowhere where its only reader sets it (a ReLU
// at full width: reluOp.setsGrad; wire, which runs first, decides that). Only an op's inputs' gradients (which it
// registered with use) and its outputs' are touched by its backward, and the outputs' only after every reader's.
func (g *Graph) wireClears() {
	at := make(map[op]int, len(g.ops))
	for i, o := range g.ops {
		at[o] = i
	}
	g.clearAt, g.clearFirst = make([][]*Tensor, len(g.ops)), nil
	for _, t := range g.tensors {
		if t.Grad == nil {
			continue
		}
		last := -1
		for _, u := range t.users {
			i, ok := at[u]
			if !ok { // a reader outside the graph's ops: up front, to be safe
				last = -1
				break
			}
			last = max(last, i)
		}
		t.clearedBy = nil
		if last < 0 {
			g.clearFirst = append(g.clearFirst, t)
			continue
		}
		if r, ok := g.ops[last].(*reluOp); ok && r.x == t && r.setsGrad() {
			continue // its only reader sets it
		}
		g.clearAt[last] = append(g.clearAt[last], t)
		t.clearedBy = g.ops[last]
	}
	g.cleared = len(g.ops)
}
