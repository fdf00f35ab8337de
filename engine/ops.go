package engine

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/fmath"
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
}

// NewLayer prepares a dense layer from its weights [in·out] and biases [out]. Biases of -0 become +0: the
// matmul kernels may skip zero products, which is invisible only while no accumulator holds -0.
func NewLayer(in, out int, w, b []float32) Layer {
	l := Layer{In: in, Out: out, W: w, WT: make([]float32, in*out), B: make([]float32, out)}
	for i := 0; i < in; i++ {
		for j := 0; j < out; j++ {
			l.WT[j*in+i] = w[i*out+j]
		}
	}
	for j, v := range b {
		l.B[j] = v + 0 // -0 + 0 = +0
	}
	return l
}

type denseOp struct {
	x, out *Tensor
	l      *Layer
}

// Dense applies layer l to every row of x.
func (g *Graph) Dense(x *Tensor, l *Layer) *Tensor {
	if x.Cols != l.In {
		panic("engine: Dense input width does not match the layer")
	}
	out := g.newTensor(l.Out, x.PerPoint, x.Grad != nil)
	g.add(&denseOp{x, out, l})
	return out
}

func (o *denseOp) forward() {
	rows := o.x.Rows()
	for r := 0; r < rows; r++ {
		copy(o.out.Row(r), o.l.B)
	}
	kernel.MatMulAdd(o.x.Live(), o.l.W, o.out.Live(), rows, o.l.In, o.l.Out)
}

func (o *denseOp) backward() {
	if o.x.Grad == nil {
		return
	}
	rows := o.x.Rows()
	kernel.MatMulAdd(o.out.Grad[:rows*o.l.Out], o.l.WT, o.x.Grad[:rows*o.l.In], rows, o.l.Out, o.l.In)
}

// ---- ReLU ----

type reluOp struct{ x, out *Tensor }

// ReLU is max(x, 0) elementwise; NaN passes through (so a bad input shows in the result instead of vanishing).
func (g *Graph) ReLU(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	g.add(&reluOp{x, out})
	return out
}

func (o *reluOp) forward() {
	x, out := o.x.Live(), o.out.Live()
	out = out[:len(x)]
	for i, v := range x {
		if v <= 0 {
			v = 0
		}
		out[i] = v
	}
}

func (o *reluOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, dx, dout := o.x.Data[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, v := range x {
		if v > 0 {
			dx[i] += dout[i]
		}
	}
}

// ---- sigmoid ----

type sigmoidOp struct {
	x, out *Tensor
	e      []float32 // e^{−|x|}, kept for the backward pass
}

// Sigmoid is 1/(1+e^-x) elementwise.
func (g *Graph) Sigmoid(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	g.add(&sigmoidOp{x, out, make([]float32, len(out.Data))})
	return out
}

func (o *sigmoidOp) forward() {
	x, out := o.x.Live(), o.out.Live()
	out, e := out[:len(x)], o.e[:len(x)]
	for i, v := range x {
		ei := fmath.Exp(-math.Abs(float64(v)))
		s := 1 / (1 + ei)
		if v < 0 {
			s = ei / (1 + ei)
		}
		out[i], e[i] = float32(s), float32(ei)
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
	x, out *Tensor
	layers []Layer // one per MC sample
}

// DenseSamples applies layer k to MC sample k: out [K·batch, Out] is sample-major (row k·batch + i belongs to
// sample k of point i). x is either per point [batch, In], shared by the samples, or per sample [K·batch, In].
// With layers[k] = diag(mask_k)·W, this is how the K MC-dropout networks differ: a dropout mask on a layer's
// input is folded into that layer's weights, so no masked copy of the activations is ever made.
func (g *Graph) DenseSamples(x *Tensor, layers []Layer) *Tensor {
	if x.PerPoint != 1 && x.PerPoint != len(layers) {
		panic("engine: DenseSamples input is neither per point nor per sample")
	}
	for i := range layers {
		if layers[i].In != x.Cols || layers[i].Out != layers[0].Out {
			panic("engine: DenseSamples layers do not match the input")
		}
	}
	out := g.newTensor(layers[0].Out, len(layers), x.Grad != nil)
	g.add(&denseSamplesOp{x, out, layers})
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
	for k := range o.layers {
		l := &o.layers[k]
		out := block(o.out, k, false)
		for r := 0; r < b; r++ {
			copy(out[r*l.Out:(r+1)*l.Out], l.B)
		}
		kernel.MatMulAdd(block(o.x, k, false), l.W, out, b, l.In, l.Out)
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
		kernel.MatMulAdd(block(o.out, k, true), l.WT, block(o.x, k, true), b, l.Out, l.In)
	}
}

// ---- L1 distance to a constant row ----

type l1Op struct {
	x, out *Tensor
	target []float32
}

// L1 is Σ_j |x_j − target_j| for each row of x, as a column [rows, 1].
func (g *Graph) L1(x *Tensor, target []float32) *Tensor {
	if len(target) != x.Cols {
		panic("engine: L1 target width does not match")
	}
	out := g.newTensor(1, x.PerPoint, x.Grad != nil)
	g.add(&l1Op{x, out, target})
	return out
}

func (o *l1Op) forward() {
	for r := 0; r < o.x.Rows(); r++ {
		var d float64
		t := o.target
		for j, v := range o.x.Row(r) {
			e := v - t[j]
			if e < 0 {
				e = -e
			}
			d += float64(e)
		}
		o.out.Data[r] = float32(d)
	}
}

// backward: ∂/∂x_j = sign(x_j − target_j), with sign(0) = 0.
func (o *l1Op) backward() {
	if o.x.Grad == nil {
		return
	}
	c := o.x.Cols
	for r := 0; r < o.x.Rows(); r++ {
		gr := o.out.Grad[r]
		x, dx, t := o.x.Row(r), o.x.Grad[r*c:(r+1)*c], o.target
		for j, v := range x {
			switch {
			case v > t[j]:
				dx[j] += gr
			case v < t[j]:
				dx[j] -= gr
			}
		}
	}
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
	g.add(&sumOp{append([]Term(nil), terms...), out})
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
