package engine

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/fmath"
)

// The activations beside ReLU and the sigmoid (ops.go): leaky ReLU and tanh, elementwise on any tensor.

// ---- leaky ReLU ----

type leakyReluOp struct {
	x, out *Tensor
	slope  float32
}

// LeakyReLU is x for x > 0 and slope·x otherwise (NaN passes through), as PyTorch's LeakyReLU(negative_slope).
func (g *Graph) LeakyReLU(x *Tensor, slope float32) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &leakyReluOp{x: x, out: out, slope: slope}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *leakyReluOp) forward() {
	x := o.x.Live()
	out := o.out.Live()[:len(x)]
	for i, v := range x {
		if v > 0 {
			out[i] = v
		} else {
			out[i] = o.slope * v
		}
	}
}

func (o *leakyReluOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, dx, dout := o.x.Data[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, v := range x {
		if v > 0 {
			dx[i] += dout[i]
		} else {
			dx[i] += float32(o.slope * dout[i]) // the conversion rounds the product: Go may not fuse it into the add
		}
	}
}

// ---- tanh ----

type tanhOp struct {
	x, out *Tensor
	e      []float32 // e^{−2|x|}, kept for the backward pass
}

// Tanh is the hyperbolic tangent elementwise: sign(x)·(1 − e^{−2|x|})/(1 + e^{−2|x|}), with fmath's
// exponential in float64 (the same bits on every platform) and one rounding to float32.
func (g *Graph) Tanh(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &tanhOp{x: x, out: out, e: make([]float32, len(out.Data))}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *tanhOp) forward() {
	x := o.x.Live()
	out, e := o.out.Live()[:len(x)], o.e[:len(x)]
	for i, v := range x {
		a := math.Abs(float64(v))
		ei := fmath.Exp(-2 * a)
		t := (1 - ei) / (1 + ei)
		if v < 0 {
			t = -t
		}
		if v != v {
			t = float64(v)
		}
		out[i], e[i] = float32(t), float32(ei)
	}
}

// backward: tanh'(x) = 1 − tanh²(x) = 4e/(1+e)² with e = e^{−2|x|}: from e rather than from a float32 tanh near
// ±1, whose 1 − t² would have lost most of its digits.
func (o *tanhOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	e, dx, dout := o.e[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, ei := range e {
		d := float64(ei)
		dx[i] += float32(float64(dout[i]) * (4 * d / ((1 + d) * (1 + d))))
	}
}
