package engine

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/fmath"
)

// The activations beside ReLU and the sigmoid (ops.go), elementwise on any tensor (per point or per sample):
// leaky ReLU, tanh, SiLU, GELU (exact and tanh form), clip (ReLU6), hard sigmoid, hard swish, ELU and softplus.
// Each computes in float64 with fmath's exponential, logarithm and error function (the same bits on every
// platform) and rounds once to float32; products that feed an addition are rounded on their own by an explicit
// conversion, so that no compiler may fuse them. A NaN input gives a NaN output; each backward adds into x.Grad
// (when x takes a gradient) from what its forward kept in buffers allocated when the graph was built.

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

// sigmoidParts returns σ(w) and 1 − σ(w) = σ(−w) from e = e^{−|w|}, each one division and without cancellation
// (NaN: both NaN).
func sigmoidParts(w, e float64) (s, c float64) {
	d := 1 + e
	if w < 0 {
		return e / d, 1 / d
	}
	return 1 / d, e / d
}

// ---- SiLU (swish) ----

type siluOp struct {
	x, out *Tensor
	e      []float64 // e^{−|x|}, kept for the backward pass
}

// SiLU is x·σ(x) elementwise (Swish; PyTorch's SiLU): σ from e^{−|x|}, so it neither overflows nor cancels.
// x = −Inf gives NaN (−∞·0), as in PyTorch.
func (g *Graph) SiLU(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &siluOp{x: x, out: out, e: make([]float64, len(out.Data))}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *siluOp) forward() {
	x := o.x.Live()
	out, e := o.out.Live()[:len(x)], o.e[:len(x)]
	for i, v := range x {
		w := float64(v)
		e[i] = fmath.Exp(-math.Abs(w))
		s, _ := sigmoidParts(w, e[i])
		out[i] = float32(w * s)
	}
}

// backward: (x·σ)' = σ·(1 + x·(1 − σ)), with 1 − σ from e^{−|x|} in float64: the derivative crosses zero at
// x ≈ −1.28, where a float32 σ would leave few of its digits.
func (o *siluOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, e, dx, dout := o.x.Data[:n], o.e[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, v := range x {
		w := float64(v)
		s, c := sigmoidParts(w, e[i])
		dx[i] += float32(float64(dout[i]) * (s * (1 + float64(w*c))))
	}
}

// ---- GELU ----

const (
	invSqrt2     = 0.70710678118654752440084436210484903928483593768847 // 1/√2
	invSqrt2Pi   = 0.39894228040143267793994605993438186847585863116493 // 1/√(2π)
	sqrt2OverPi  = 0.79788456080286535587989211986876373695171726232986 // √(2/π)
	geluCubic    = 0.044715                                             // the tanh form's x³ coefficient
	geluCubicDer = 3 * geluCubic                                        // its derivative's x² coefficient
)

type geluOp struct {
	x, out   *Tensor
	tanhForm bool
	p        []float64 // exact: Φ(x); tanh form: e^{−2|u|}. Kept for the backward pass.
}

// GELU is x·Φ(x) elementwise, Φ the standard normal's distribution function: exactly, 0.5·x·(1 + erf(x/√2))
// (PyTorch's GELU()), or with tanhForm 0.5·x·(1 + tanh(u)), u = √(2/π)(x + 0.044715x³) (GELU(approximate=
// 'tanh')). x = −Inf gives NaN (−∞·0), as in PyTorch. Both are computed in a form that keeps its digits where
// x is very negative, where 1 + erf and 1 + tanh cancel: Φ(x) = erfc(−x/√2)/2, and 1 + tanh(u) = 2σ(2u),
// σ from e^{−2|u|}.
func (g *Graph) GELU(x *Tensor, tanhForm bool) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &geluOp{x: x, out: out, tanhForm: tanhForm, p: make([]float64, len(out.Data))}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

// geluArg is the tanh form's u = √(2/π)(x + 0.044715x³).
func geluArg(w float64) float64 { return sqrt2OverPi * (w + float64(geluCubic*w*w*w)) }

func (o *geluOp) forward() {
	x := o.x.Live()
	out, p := o.out.Live()[:len(x)], o.p[:len(x)]
	if !o.tanhForm {
		for i, v := range x {
			w := float64(v)
			p[i] = 0.5 * fmath.Erfc(w*-invSqrt2)
			out[i] = float32(w * p[i])
		}
		return
	}
	for i, v := range x {
		w := float64(v)
		u := geluArg(w)
		p[i] = fmath.Exp(-2 * math.Abs(u))
		s, _ := sigmoidParts(u, p[i])
		out[i] = float32(w * s)
	}
}

// backward: exactly, (xΦ)' = Φ + x·φ(x), φ(x) = e^{−x²/2}/√(2π); in the tanh form, (x·σ(2u))' = σ(2u) +
// x·σ(2u)σ(−2u)·2u', u' = √(2/π)(1 + 3·0.044715x²), σ(±2u) from e^{−2|u|}. Both cross zero near x ≈ −0.75, so
// both stay in float64 until the product with ∂out.
func (o *geluOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, p, dx, dout := o.x.Data[:n], o.p[:n], o.x.Grad[:n], o.out.Grad[:n]
	if !o.tanhForm {
		for i, v := range x {
			w := float64(v)
			phi := fmath.Exp(-0.5*w*w) * invSqrt2Pi
			dx[i] += float32(float64(dout[i]) * (p[i] + float64(w*phi)))
		}
		return
	}
	for i, v := range x {
		w := float64(v)
		s, c := sigmoidParts(geluArg(w), p[i])
		du := sqrt2OverPi * (1 + float64(geluCubicDer*w*w))
		dx[i] += float32(float64(dout[i]) * (s + float64(w*(s*c*2*du))))
	}
}

// ---- clip (ReLU6) ----

type clipOp struct {
	x, out *Tensor
	lo, hi float32
}

// Clip is min(max(x, lo), hi) elementwise (PyTorch's clamp and Hardtanh, ONNX Clip; ReLU6 is Clip(x, 0, 6)):
// lo may be −Inf and hi +Inf; with lo > hi every value is hi, as in PyTorch and ONNX. NaN passes through. Its
// gradient is PyTorch's clamp's: ∂out passes where lo ≤ x ≤ hi, bounds included (both one-sided derivatives
// at a bound are taken as 1), and is 0 elsewhere and at a NaN x. It panics if a bound is NaN.
func (g *Graph) Clip(x *Tensor, lo, hi float32) *Tensor {
	if lo != lo || hi != hi {
		panic("engine: Clip bound is NaN")
	}
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &clipOp{x: x, out: out, lo: lo, hi: hi}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *clipOp) forward() {
	x := o.x.Live()
	out := o.out.Live()[:len(x)]
	for i, v := range x {
		if v < o.lo { // comparisons with NaN are false: it passes through
			v = o.lo
		}
		if v > o.hi {
			v = o.hi
		}
		out[i] = v
	}
}

func (o *clipOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, dx, dout := o.x.Data[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, v := range x {
		if v >= o.lo && v <= o.hi {
			dx[i] += dout[i]
		}
	}
}

// ---- hard sigmoid ----

type hardSigmoidOp struct {
	x, out      *Tensor
	alpha, beta float32
}

// HardSigmoid is max(0, min(1, alpha·x + beta)) elementwise (ONNX HardSigmoid; PyTorch's Hardsigmoid is
// alpha = 1/6, beta = 1/2), the affine part in float64 (alpha·x is exact there), rounded once. Its gradient is
// alpha strictly inside 0 < alpha·x + beta < 1 and 0 elsewhere, at the two kinks included (as PyTorch's
// hardsigmoid_backward, −3 < x < 3), and at a NaN x. It panics if alpha or beta is NaN.
func (g *Graph) HardSigmoid(x *Tensor, alpha, beta float32) *Tensor {
	if alpha != alpha || beta != beta {
		panic("engine: HardSigmoid parameter is NaN")
	}
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &hardSigmoidOp{x: x, out: out, alpha: alpha, beta: beta}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

// affine is alpha·x + beta in float64, the product exact and rounded on its own (never fused).
func (o *hardSigmoidOp) affine(v float32) float64 {
	return float64(float64(o.alpha)*float64(v)) + float64(o.beta)
}

func (o *hardSigmoidOp) forward() {
	x := o.x.Live()
	out := o.out.Live()[:len(x)]
	for i, v := range x {
		t := o.affine(v)
		if t < 0 {
			t = 0
		}
		if t > 1 {
			t = 1
		}
		out[i] = float32(t)
	}
}

func (o *hardSigmoidOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, dx, dout := o.x.Data[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, v := range x {
		if t := o.affine(v); t > 0 && t < 1 {
			dx[i] += float32(o.alpha * dout[i]) // the conversion rounds the product: Go may not fuse it into the add
		}
	}
}

// ---- hard swish ----

type hardSwishOp struct {
	x, out *Tensor
}

// HardSwish is x·HardSigmoid(x; 1/6, 1/2) elementwise (PyTorch's Hardswish, ONNX HardSwish), computed as
// PyTorch writes it, x·min(max(x + 3, 0), 6)/6, in float64 and rounded once. Its gradient is PyTorch's
// hardswish_backward's: 0 for x < −3, x/3 + 1/2 for −3 ≤ x ≤ 3 (so −1/2 at x = −3 and 3/2 at x = 3, the
// right-hand and left-hand limits), 1 for x > 3 and at a NaN x. x = −Inf gives NaN (−∞·0), as in PyTorch.
func (g *Graph) HardSwish(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &hardSwishOp{x: x, out: out}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *hardSwishOp) forward() {
	x := o.x.Live()
	out := o.out.Live()[:len(x)]
	for i, v := range x {
		w := float64(v)
		h := w + 3
		if h < 0 {
			h = 0
		}
		if h > 6 {
			h = 6
		}
		out[i] = float32(w * h / 6)
	}
}

func (o *hardSwishOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, dx, dout := o.x.Data[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, v := range x {
		switch {
		case v < -3:
		case v <= 3:
			dx[i] += float32(float64(dout[i]) * (float64(v)/3 + 0.5))
		default:
			dx[i] += dout[i]
		}
	}
}

// ---- ELU ----

type eluOp struct {
	x, out *Tensor
	alpha  float32
	e      []float32 // e^x where x ≤ 0, kept for the backward pass
}

// ELU is x for x > 0 and alpha·(e^x − 1) otherwise, elementwise (PyTorch's ELU(alpha), ONNX Elu), e^x − 1 by
// its Taylor series to x³ for −10⁻⁵ < x ≤ 0, where the difference would have cancelled (relative error below
// 10⁻¹⁰ either side, far below float32's). Its gradient is 1 for x > 0 and alpha·e^x for x ≤ 0 (PyTorch's:
// alpha at x = 0). NaN passes through, forward and backward. It panics if alpha is NaN.
func (g *Graph) ELU(x *Tensor, alpha float32) *Tensor {
	if alpha != alpha {
		panic("engine: ELU alpha is NaN")
	}
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &eluOp{x: x, out: out, alpha: alpha, e: make([]float32, len(out.Data))}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *eluOp) forward() {
	x := o.x.Live()
	out, e := o.out.Live()[:len(x)], o.e[:len(x)]
	for i, v := range x {
		if v > 0 {
			out[i] = v
			continue
		}
		w := float64(v)
		ex := fmath.Exp(w)
		em1 := ex - 1
		if w > -1e-5 {
			em1 = w + float64(w*w*(0.5+w/6))
		}
		out[i], e[i] = float32(float64(o.alpha)*em1), float32(ex)
	}
}

func (o *eluOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, e, dx, dout := o.x.Data[:n], o.e[:n], o.x.Grad[:n], o.out.Grad[:n]
	a := float64(o.alpha)
	for i, v := range x {
		if v > 0 {
			dx[i] += dout[i]
		} else {
			dx[i] += float32(float64(dout[i]) * (a * float64(e[i])))
		}
	}
}

// ---- softplus ----

type softplusOp struct {
	x, out *Tensor
	e      []float32 // e^{−|x|}, kept for the backward pass
}

// Softplus is log(1 + e^x) elementwise (PyTorch's Softplus with beta 1, ONNX Softplus), computed as
// max(x, 0) + log1p(e^{−|x|}) in float64: it neither overflows for large x nor loses e^x for very negative x.
// Its gradient is σ(x).
func (g *Graph) Softplus(x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &softplusOp{x: x, out: out, e: make([]float32, len(out.Data))}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

// log1p is log(1 + e) for e ≥ 0 from fmath.Log, to a few ulps: u = 1 + e rounds e, and log(u)·e/(u − 1)
// corrects for that rounding (Goldberg's trick; e where 1 + e rounds to 1).
func log1p(e float64) float64 {
	u := 1 + e
	if u == 1 {
		return e
	}
	return fmath.Log(u) * (e / (u - 1))
}

func (o *softplusOp) forward() {
	x := o.x.Live()
	out, e := o.out.Live()[:len(x)], o.e[:len(x)]
	for i, v := range x {
		w := float64(v)
		ei := fmath.Exp(-math.Abs(w))
		y := log1p(ei)
		if w > 0 {
			y += w
		}
		out[i], e[i] = float32(y), float32(ei)
	}
}

func (o *softplusOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n := o.x.Rows() * o.x.Cols
	x, e, dx, dout := o.x.Data[:n], o.e[:n], o.x.Grad[:n], o.out.Grad[:n]
	for i, v := range x {
		s, _ := sigmoidParts(float64(v), float64(e[i]))
		dx[i] += float32(float64(dout[i]) * s)
	}
}
