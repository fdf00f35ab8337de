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

type sigmoidOp struct{ x, out *Tensor }

// Sigmoid is 1/(1+e^-x) elementwise.
func (g *Graph) Sigmoid(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	g.add(&sigmoidOp{x, out})
	return out
}

func (o *sigmoidOp) forward() {
	x, out := o.x.Live(), o.out.Live()
	out = out[:len(x)]
	for i, v := range x {
		out[i] = fmath.Sigmoid32(v)
	}
}

// backward: σ'(x) = σ(x)σ(−x) = e^{−|x|}/(1+e^{−|x|})², from the logit in float64: 1−σ computed from a
// float32 σ near 1 would lose most of its digits.
func (o *sigmoidOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, dx, dout := o.x.Data[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, v := range x {
		e := fmath.Exp(-math.Abs(float64(v)))
		dx[i] += float32(float64(dout[i]) * (e / ((1 + e) * (1 + e))))
	}
}

// ---- MC dropout: expand to K masked copies, and mask ----

type expandOp struct {
	x, out *Tensor
	masks  [][]float32 // [K][cols]
}

// Expand turns per-point rows [batch, C] into K masked copies [K·batch, C], sample-major: row k·batch + i is
// x's row i times masks[k]. It is how the K MC-dropout networks share the layers before the first dropout.
func (g *Graph) Expand(x *Tensor, masks [][]float32) *Tensor {
	if x.PerPoint != 1 {
		panic("engine: Expand needs per-point rows")
	}
	out := g.newTensor(x.Cols, len(masks), x.Grad != nil)
	g.add(&expandOp{x, out, masks})
	return out
}

func (o *expandOp) forward() {
	b, c := o.x.g.batch, o.x.Cols
	for k, m := range o.masks {
		for i := 0; i < b; i++ {
			src, dst := o.x.Data[i*c:(i+1)*c], o.out.Data[(k*b+i)*c:(k*b+i+1)*c]
			m := m[:len(src)]
			for j, v := range src {
				dst[j] = v * m[j]
			}
		}
	}
}

func (o *expandOp) backward() {
	if o.x.Grad == nil {
		return
	}
	b, c := o.x.g.batch, o.x.Cols
	for k, m := range o.masks {
		for i := 0; i < b; i++ {
			dx, dout := o.x.Grad[i*c:(i+1)*c], o.out.Grad[(k*b+i)*c:(k*b+i+1)*c]
			m := m[:len(dx)]
			for j, d := range dout[:len(dx)] {
				dx[j] += d * m[j]
			}
		}
	}
}

type maskOp struct {
	x, out *Tensor
	masks  [][]float32
}

// Mask multiplies sample k's rows of an expanded tensor [K·batch, C] by masks[k].
func (g *Graph) Mask(x *Tensor, masks [][]float32) *Tensor {
	if x.PerPoint != len(masks) {
		panic("engine: Mask needs one mask per MC sample")
	}
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	g.add(&maskOp{x, out, masks})
	return out
}

func (o *maskOp) forward() {
	b, c := o.x.g.batch, o.x.Cols
	for k, m := range o.masks {
		lo, hi := k*b*c, (k+1)*b*c
		src, dst := o.x.Data[lo:hi], o.out.Data[lo:hi]
		for i, v := range src {
			dst[i] = v * m[i%c]
		}
	}
}

func (o *maskOp) backward() {
	if o.x.Grad == nil {
		return
	}
	b, c := o.x.g.batch, o.x.Cols
	for k, m := range o.masks {
		lo, hi := k*b*c, (k+1)*b*c
		dx, dout := o.x.Grad[lo:hi], o.out.Grad[lo:hi]
		for i, d := range dout {
			dx[i] += d * m[i%c]
		}
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
