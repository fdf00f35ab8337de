package engine

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/kernel"
)

// Every op below: the forward rule, then the backward rule beside it. Backward rules add (+=) into input
// gradients, because a tensor may feed several ops; Graph.Backward clears them first.

// ---- dense: out = x·W + b ----

// Layer is a dense layer y = x·W + B with W [In, Out] row-major, and W transposed [Out, In] for the backward
// pass (so both directions use the same row-major kernel).
type Layer struct {
	In, Out int
	W, WT   []float32
	B       []float32
	nzRows  []int32 // the rows of W that are not entirely ±0 (nil: all); compaction may skip the others
}

// NewLayer prepares a dense layer from its weights [in·out] and biases [out]. Biases of -0 become +0: the
// matmul kernels may skip zero products, which is invisible only while no accumulator holds -0.
func NewLayer(in, out int, w, b []float32) Layer {
	l := Layer{In: in, Out: out, W: w, WT: make([]float32, in*out), B: make([]float32, out)}
	kernel.Transpose(l.WT, w, in, out)
	for j, v := range b {
		l.B[j] = v + 0 // -0 + 0 = +0
	}
	l.nzRows = nonzeroRows(w, in, out)
	return l
}

type denseOp struct {
	x, out *Tensor
	l      *Layer
	fw, bw *prod          // compaction: the products x·W and ∂out·Wᵀ (bw nil without a gradient)
	ag, cg []float32      // gather scratch
	sp     *kernel.Sparse // row-sparse products' scratch (nil: never sparse)
}

// Dense applies layer l to every row of x.
func (g *Graph) Dense(x *Tensor, l *Layer) *Tensor {
	if x.Cols != l.In {
		panic("engine: Dense input width does not match the layer")
	}
	out := g.newTensor(l.Out, x.PerPoint, x.Grad != nil)
	g.weights += len(l.W) + len(l.B)
	if x.Grad != nil {
		g.weights += len(l.WT)
	}
	// The forward product gathers only if x can come packed (a ReLU's output, ...) or W has zero rows.
	o := &denseOp{x: x, out: out, l: l, fw: newProd(l.W, l.In, l.Out, l.nzRows, nil, x.pk != nil)}
	rows := g.capacity * x.PerPoint
	o.ag = make([]float32, rows*max(l.In, l.Out))
	if sparseProducts && !DenseOnly {
		o.sp = kernel.NewSparse(rows, max(l.In, l.Out))
	}
	if x.Grad != nil {
		o.bw = newProd(l.WT, l.Out, l.In, nil, l.nzRows, true)
		o.cg = make([]float32, rows*l.In)
	}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *denseOp) forward() {
	rows := o.x.Rows()
	for r := 0; r < rows; r++ {
		copy(o.out.Row(r), o.l.B)
	}
	if !o.x.g.compact {
		kernel.MatMulAdd(o.x.Live(), o.l.W, o.out.Live(), rows, o.l.In, o.l.Out)
		return
	}
	a := operand{data: o.x.Live()}
	if o.x.PerPoint == 1 && o.x.dataPacked() {
		a.data, a.cols = o.x.pk.block(o.x, 0)
	}
	o.fw.run(rows, a, operand{data: o.out.Live()}, nil, false, o.ag, o.cg, o.sp)
}

func (o *denseOp) backward() {
	if o.x.Grad == nil {
		return
	}
	rows := o.x.Rows()
	dy, dx := o.out.Grad[:rows*o.l.Out], o.x.Grad[:rows*o.l.In]
	if !o.x.g.compact {
		kernel.MatMulAdd(dy, o.l.WT, dx, rows, o.l.Out, o.l.In)
		return
	}
	a := operand{data: dy}
	if o.out.gradPacked() { // ∂out, packed by the ReLU that reads out: only its active columns
		a.data, a.cols = o.out.gpk.block(o.out, 0)
	}
	c := operand{data: dx}
	var wanted []int32
	hasWanted := false
	switch {
	case o.x.gradPacked(): // ∂x, packed for the ReLU that produced x: only its active columns, from +0
		c.data, c.cols = o.x.gpk.block(o.x, 0)
		clear(c.data)
	case o.x.PerPoint == 1 && o.x.dataPacked() && o.x.nz != nil: // x's ReLU reads ∂x only in its active columns
		wanted, hasWanted = o.x.nz.list(0), true
	}
	o.bw.run(rows, a, c, wanted, hasWanted, o.ag, o.cg, o.sp)
}

// ---- ReLU ----

type reluOp struct {
	x, out *Tensor
	acc    []uint32 // per input column: the OR of the output's bits over a block's rows
	pos    []int32  // the kept columns' positions in the input's rows
	// full: nothing around the ReLU reads or writes packed (an image's, between convolutions), so it runs at full
	// width even with compaction on: packing would only cost a pass over the rows and a gathered backward. (Never
	// in a DenseOnly build, which has no such ReLU and so leaves that code out.)
	full   bool
	masked []float32 // a row of packed ∂out masked, for a full-width ∂x (not in a DenseOnly build)
}

// ReLU is max(x, 0) elementwise; NaN passes through (so a bad input shows in the result instead of vanishing).
//
// With compaction on, its forward pass also finds, per block, the output columns that are nonzero in some live
// row (Tensor.nz) and writes the output packed to them (to all of them when at least 7/8 are: then moving the
// rows costs more than the zeros), and reads its input packed when that is how it comes.
func (g *Graph) ReLU(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	out.nz = newColSet(x.Cols, x.PerPoint)
	out.pk = newPack(out.nz, len(out.Data))
	if x.Grad != nil {
		out.gpk = newPack(out.nz, len(out.Data))
		if x.gpk == nil {
			x.gpk = newPack(out.nz, len(x.Data))
		}
	}
	o := &reluOp{x: x, out: out, acc: make([]uint32, x.Cols), pos: make([]int32, x.Cols)}
	if !DenseOnly {
		o.masked = make([]float32, x.Cols)
	}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *reluOp) forward() {
	if !DenseOnly && o.full {
		o.out.pk.on = false
		kernel.Relu(o.out.Live(), o.x.Live()) // (no columns' OR: nothing packs the output)
		return
	}
	if !o.x.g.compact {
		o.out.pk.on = false
		x, out := o.x.Live(), o.out.Live()
		out = out[:len(x)]
		for i, v := range x {
			out[i] = math.Float32frombits(kernel.ReluBits(math.Float32bits(v)))
		}
		return
	}
	c, b := o.x.Cols, o.x.g.batch
	for k := 0; k < o.x.PerPoint; k++ {
		// The input block: full-width rows, or packed ones holding the columns cols.
		var in []float32
		var cols []int32
		w := c
		if o.x.dataPacked() {
			in, cols = o.x.pk.block(o.x, k)
			w = len(cols)
		} else {
			in = o.x.Data[k*b*c : (k+1)*b*c]
		}
		// One pass: ReLU(x) into the pack, in the input's columns, and per column the OR of the results' bits
		// (nonzero iff some row is > 0 or NaN).
		pk := o.out.pk.data[k*b*c : k*b*c+b*w]
		acc := o.acc[:w]
		clear(acc)
		// (In the SIMD module beside the kernel where there is one: JavaScriptCore ran this loop, compiled from
		// Go, slower than the matrix products; docs/engines.md.)
		kernel.ReluRows(in, pk, acc, b, w)
		if o.out.needFull {
			out := o.out.Data[k*b*c : (k+1)*b*c]
			if cols == nil {
				copy(out, pk)
			} else {
				clear(out)
				scatterCols(out, pk, b, c, cols)
			}
		}
		idx, pos, n := o.out.nz.idx[k*c:(k+1)*c], o.pos[:c], 0
		for j, a := range acc {
			if a != 0 {
				pos[n] = int32(j)
				n++
			}
		}
		if 8*n >= 7*w { // nearly every column is active: keep them all (some +0 throughout) rather than move rows
			n = w
			for j := range pos[:w] {
				pos[j] = int32(j)
			}
		} else { // pack the active columns, in place: row i moves to i·n ≤ i·w, column t to t ≤ pos[t]
			kernel.PackCols(pk, pk, b, w, pos[:n])
		}
		for t, j := range pos[:n] {
			idx[t] = j
			if cols != nil {
				idx[t] = cols[j]
			}
		}
		o.out.nz.n[k] = n
	}
	o.out.pk.on = true
}

// backward: ∂x += ∂out where x > 0. Packed (compaction), only the active columns exist: the output's values
// there (ReLU(x) > 0 exactly when x > 0) mask ∂out, which comes packed when the reader of the output wrote it
// so, into ∂x, packed when x's producer reads it so. That packed ∂x is written, not added to +0 (the ReLU is its
// only writer), so a ∂out of -0 stays -0 where the sum would give +0: invisible, as the packed ∂x only ever
// meets the kernel as its a operand, where a zero's products are ±0 or skipped.
// setsGrad reports whether the ReLU's backward sets x's gradient rather than adding into it: at full width, as
// x's only reader. Backward then leaves that gradient uncleared (Graph.wireClears), and kernel.SetWherePositive
// writes the bits adding onto +0 gives.
func (o *reluOp) setsGrad() bool {
	return !DenseOnly && o.full && len(o.x.users) == 1 && o.x.Grad != nil
}

func (o *reluOp) backward() {
	if o.x.Grad == nil {
		return
	}
	if !DenseOnly && o.full { // (the same bits as the loop below, in the SIMD module where there is one)
		n := o.x.Rows() * o.x.Cols
		if o.setsGrad() { // ∂x left uncleared by Backward: what adding onto +0 gives
			kernel.SetWherePositive(o.x.Grad[:n], o.out.Grad[:n], o.x.Data[:n])
			return
		}
		kernel.AddWherePositive(o.x.Grad[:n], o.out.Grad[:n], o.x.Data[:n])
		return
	}
	if !o.x.g.compact {
		n := o.x.Rows() * o.x.Cols
		x, dx, dout := o.x.Data[:n], o.x.Grad[:n], o.out.Grad[:n]
		for i, v := range x {
			if v > 0 {
				dx[i] += dout[i]
			}
		}
		return
	}
	c, b := o.x.Cols, o.x.g.batch
	for k := 0; k < o.x.PerPoint; k++ {
		h, idx := o.out.pk.block(o.out, k)
		n := len(idx)
		var dout []float32
		if o.out.gradPacked() {
			dout, _ = o.out.gpk.block(o.out, k)
		}
		var dxp []float32
		if o.x.gradPacked() {
			dxp, _ = o.x.gpk.block(o.x, k)
		}
		if dout != nil && dxp != nil { // every row packed alike: one call (the SIMD module's, where there is one)
			kernel.MaskPositive(dxp[:b*n], dout[:b*n], h[:b*n])
			continue
		}
		if !DenseOnly && dxp != nil { // ∂out at full width (an image layer wrote it): gather its active columns, mask
			cols := kernel.NewIndex(idx)
			for i := 0; i < b; i++ {
				r, dx := k*b+i, dxp[i*n:(i+1)*n]
				kernel.GatherIdx(dx, o.out.Grad[r*c:(r+1)*c], cols)
				kernel.MaskPositive(dx, dx, h[i*n:(i+1)*n])
			}
			continue
		}
		if !DenseOnly && dout != nil { // ∂x at full width (an image layer reads it): mask ∂out, add it into ∂x's active columns
			cols, m := kernel.NewIndex(idx), o.masked[:n]
			for i := 0; i < b; i++ {
				r := k*b + i
				kernel.MaskPositive(m, dout[i*n:(i+1)*n], h[i*n:(i+1)*n])
				kernel.ScatterAddIdx(o.x.Grad[r*c:(r+1)*c], m, cols)
			}
			continue
		}
		for i := 0; i < b; i++ {
			hr := h[i*n : (i+1)*n]
			r := k*b + i
			switch {
			case dxp != nil:
				d, dx := o.out.Grad[r*c:(r+1)*c], dxp[i*n:(i+1)*n]
				dx = dx[:len(hr)]
				for t, v := range hr {
					dx[t] = kernel.Masked(d[idx[t]], v)
				}
			default:
				dx := o.x.Grad[r*c : (r+1)*c]
				for t, v := range hr {
					var d float32
					if dout != nil {
						d = dout[i*n+t]
					} else {
						d = o.out.Grad[r*c+int(idx[t])]
					}
					dx[idx[t]] += kernel.Masked(d, v)
				}
			}
		}
	}
}

// ---- sigmoid ----

type sigmoidOp struct {
	x, out  *Tensor
	e       []float32 // e^{−|x|}, kept for the backward pass
	arg, ex []float64 // scratch: a chunk of −|x| and of e^{−|x|}
}

// sigmoidChunk is how many exponentials the sigmoid hands expTo at once.
const sigmoidChunk = 256

// Sigmoid is 1/(1+e^-x) elementwise.
func (g *Graph) Sigmoid(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &sigmoidOp{x: x, out: out, e: make([]float32, len(out.Data)),
		arg: make([]float64, sigmoidChunk), ex: make([]float64, sigmoidChunk)}
	g.use(x, o)
	g.add(o)
	return out
}

// forward: σ(x) = 1/(1+e^{−|x|}) for x ≥ 0 and e^{−|x|}/(1+e^{−|x|}) for x < 0 (NaN: the first), one division
// either way, the exponentials a chunk at a time (expTo: the bits of fmath.Exp).
func (o *sigmoidOp) forward() {
	x, out := o.x.Live(), o.out.Live()
	out, e := out[:len(x)], o.e[:len(x)]
	// The same bits in the SIMD module (TestSigmoidKeepsBits); not in a DenseOnly worker, whose kernel leaves it
	// out for the digits' first visit.
	if !DenseOnly && kernel.Sigmoid(out, e, x) {
		return
	}
	one := math.Float64bits(1)
	for start := 0; start < len(x); start += sigmoidChunk {
		xs := x[start:min(start+sigmoidChunk, len(x))]
		arg, ex := o.arg[:len(xs)], o.ex[:len(xs)]
		for i, v := range xs {
			arg[i] = -math.Abs(float64(v))
		}
		expTo(ex, arg)
		os, es := out[start:start+len(xs)], e[start:start+len(xs)]
		for i, v := range xs {
			ei := ex[i]
			num := one // the numerator's bits, chosen without a branch
			if v < 0 {
				num = math.Float64bits(ei)
			}
			os[i], es[i] = float32(math.Float64frombits(num)/(1+ei)), float32(ei)
		}
	}
}

// backward: σ'(x) = σ(x)σ(−x) = e^{−|x|}/(1+e^{−|x|})², from e^{−|x|} rather than from σ: 1−σ computed from a
// float32 σ near 1 would lose most of its digits.
func (o *sigmoidOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	e, dx, dout := o.e[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, ei := range e {
		d := float64(ei)
		dx[i] += float32(float64(dout[i]) * (d / ((1 + d) * (1 + d))))
	}
}

// ---- dense per MC sample: block k = x(k)·W_k + b ----

type denseSamplesOp struct {
	x, out  *Tensor
	layers  []Layer   // one per MC sample
	outCols [][]int32 // compaction: per sample, the output columns computed (nil: all of them)
	bias    []float32 // with outCols: sample k's biases at those columns, packed, at bias[k·Out:]
	fw, bw  []*prod   // compaction, per sample: x(k)·W_k and ∂out_k·W_kᵀ (bw nil without a gradient)
	ag, cg  []float32 // gather scratch
}

// DenseSamples applies layer k to MC sample k: out [K·batch, Out] is sample-major (row k·batch + i belongs to
// sample k of point i). x is either per point [batch, In], shared by the samples, or per sample [K·batch, In].
// With layers[k] = diag(mask_k)·W, this is how the K MC-dropout networks differ: a dropout mask on a layer's
// input is folded into that layer's weights, so no masked copy of the activations is ever made.
func (g *Graph) DenseSamples(x *Tensor, layers []Layer) *Tensor {
	return g.denseSamples(x, layers, nil)
}

// denseSamples is DenseSamples that, with compaction on, computes only the output columns outCols[k] of sample
// k (all of them if outCols or outCols[k] is nil), writes them packed (Tensor.pk) and takes the others as +0.
// The caller promises that whatever reads the output ignores those columns (the BNN: the next layer's weights
// are zero in those rows).
func (g *Graph) denseSamples(x *Tensor, layers []Layer, outCols [][]int32) *Tensor {
	if x.PerPoint != 1 && x.PerPoint != len(layers) {
		panic("engine: DenseSamples input is neither per point nor per sample")
	}
	for i := range layers {
		if layers[i].In != x.Cols || layers[i].Out != layers[0].Out {
			panic("engine: DenseSamples layers do not match the input")
		}
	}
	out := g.newTensor(layers[0].Out, len(layers), x.Grad != nil)
	for i := range layers {
		g.weights += len(layers[i].W) + len(layers[i].B)
		if x.Grad != nil {
			g.weights += len(layers[i].WT)
		}
	}
	o := &denseSamplesOp{x: x, out: out, layers: layers}
	in, n := layers[0].In, layers[0].Out
	if outCols != nil {
		o.outCols = make([][]int32, len(layers))
		cs := newColSet(n, len(layers))
		o.bias = make([]float32, len(layers)*n)
		for k := range layers {
			oc := outCols[k]
			if oc == nil {
				oc = make([]int32, n)
				for j := range oc {
					oc[j] = int32(j)
				}
			}
			o.outCols[k] = oc
			cs.n[k] = copy(cs.idx[k*n:(k+1)*n], oc)
			for t, j := range oc {
				o.bias[k*n+t] = layers[k].B[j]
			}
		}
		out.pk = newPack(cs, len(out.Data))
	}
	for k := range layers {
		l := &layers[k]
		var oc []int32
		if o.outCols != nil {
			oc = o.outCols[k]
		}
		o.fw = append(o.fw, newProd(l.W, in, n, l.nzRows, oc, x.pk != nil))
		if x.Grad != nil {
			o.bw = append(o.bw, newProd(l.WT, n, in, oc, l.nzRows, true))
		}
	}
	o.ag = make([]float32, g.capacity*max(in, n))
	o.cg = make([]float32, g.capacity*max(in, n))
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

// block returns sample k's rows of t (all of t when it is per point).
func block(t *Tensor, k int, grad bool) []float32 {
	b := t.g.batch
	s := t.Data
	if grad {
		s = t.Grad
	}
	if t.PerPoint == 1 {
		return s[:b*t.Cols]
	}
	return s[k*b*t.Cols : (k+1)*b*t.Cols]
}

func (o *denseSamplesOp) forward() {
	b := o.x.g.batch
	compact := o.x.g.compact
	if o.out.pk != nil {
		o.out.pk.on = compact
	}
	for k := range o.layers {
		l := &o.layers[k]
		out := block(o.out, k, false)
		if !compact {
			for r := 0; r < b; r++ {
				copy(out[r*l.Out:(r+1)*l.Out], l.B)
			}
			kernel.MatMulAdd(block(o.x, k, false), l.W, out, b, l.In, l.Out)
			continue
		}
		a := operand{data: block(o.x, k, false)}
		if o.x.dataPacked() {
			a.data, a.cols = o.x.pk.block(o.x, k)
		}
		c := operand{data: out}
		if o.outCols != nil { // packed: only the units the next layer keeps, from their biases
			c.data, c.cols = o.out.pk.block(o.out, k)
			n := len(c.cols)
			for r := 0; r < b; r++ {
				copy(c.data[r*n:(r+1)*n], o.bias[k*l.Out:k*l.Out+n])
			}
		} else {
			for r := 0; r < b; r++ {
				copy(out[r*l.Out:(r+1)*l.Out], l.B)
			}
		}
		o.fw[k].run(b, a, c, nil, false, o.ag, o.cg, nil)
		if o.outCols != nil && o.out.needFull {
			clear(out)
			scatterCols(out, c.data, b, l.Out, c.cols)
		}
	}
}

// backward: ∂/∂x(k) += ∂/∂out_k · W_kᵀ; a shared x sums the samples' contributions in order k = 0, 1, ….
func (o *denseSamplesOp) backward() {
	if o.x.Grad == nil {
		return
	}
	b := o.x.g.batch
	for k := range o.layers {
		l := &o.layers[k]
		dy, dx := block(o.out, k, true), block(o.x, k, true)
		if !o.x.g.compact {
			kernel.MatMulAdd(dy, l.WT, dx, b, l.Out, l.In)
			continue
		}
		a := operand{data: dy}
		if o.out.gradPacked() {
			a.data, a.cols = o.out.gpk.block(o.out, k)
		}
		c := operand{data: dx}
		var wanted []int32
		hasWanted := false
		switch {
		case o.x.gradPacked():
			c.data, c.cols = o.x.gpk.block(o.x, k)
			if k == 0 || o.x.PerPoint != 1 { // a shared x sums the samples in order k = 0, 1, …, from +0
				clear(c.data)
			}
		case o.x.dataPacked() && o.x.nz != nil:
			wanted, hasWanted = o.x.nz.list(0), true
			if o.x.PerPoint != 1 {
				wanted = o.x.nz.list(k)
			}
		}
		o.bw[k].run(b, a, c, wanted, hasWanted, o.ag, o.cg, nil)
	}
}

// ---- L1 distance to a constant row ----

type l1Op struct {
	x, out *Tensor
	target []float32
	stride int // between rows' targets: 0, one target for every row; x.Cols, a row of its own each (L1Rows)
}

// L1 is Σ_j |x_j − target_j| for each row of x, as a column [rows, 1].
func (g *Graph) L1(x *Tensor, target []float32) *Tensor {
	if len(target) != x.Cols {
		panic("engine: L1 target width does not match")
	}
	out := g.newTensor(1, x.PerPoint, x.Grad != nil)
	o := &l1Op{x: x, out: out, target: target}
	g.use(x, o)
	g.add(o)
	return out
}

func (o *l1Op) forward() {
	// (matmul.wasm's l1_rows in a wasmsimd build: the same sums, two rows at a time)
	kernel.L1Rows(o.out.Data, o.x.Data, o.target, o.x.Rows(), o.x.Cols, o.stride)
}

// backward: ∂/∂x_j = sign(x_j − target_j), with sign(0) = 0.
func (o *l1Op) backward() {
	if o.x.Grad == nil {
		return
	}
	kernel.L1Grad(o.x.Grad, o.x.Data, o.target, o.out.Grad, o.x.Rows(), o.x.Cols, o.stride)
}

// ---- weighted sum of columns ----

// Term is one weighted input of Sum.
type Term struct {
	Coef float32
	X    *Tensor
}

type sumOp struct {
	terms []Term
	out   *Tensor
}

// Sum returns Σ_t coef_t · x_t for columns x_t [rows, 1] of equal shape.
func (g *Graph) Sum(terms ...Term) *Tensor {
	grad := false
	for _, t := range terms {
		if t.X.Cols != 1 || t.X.PerPoint != terms[0].X.PerPoint {
			panic("engine: Sum needs columns of equal shape")
		}
		grad = grad || t.X.Grad != nil
	}
	out := g.newTensor(1, terms[0].X.PerPoint, grad)
	o := &sumOp{append([]Term(nil), terms...), out}
	for _, t := range terms {
		g.use(t.X, o)
	}
	g.add(o)
	return out
}

func (o *sumOp) forward() {
	out := o.out.Live()
	clear(out)
	for _, t := range o.terms {
		for i, v := range t.X.Data[:len(out)] {
			out[i] += t.Coef * v
		}
	}
}

func (o *sumOp) backward() {
	dout := o.out.Grad[:o.out.Rows()]
	for _, t := range o.terms {
		if t.X.Grad == nil {
			continue
		}
		for i, d := range dout {
			t.X.Grad[i] += t.Coef * d
		}
	}
}
