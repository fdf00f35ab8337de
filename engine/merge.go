package engine

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine/kernel"
)

// Ops that merge or spread tensors: a residual block's sum, squeeze-and-excitation's product, channel
// concatenation, and the passage from per-point to per-sample rows (a per-point tensor copied to the K MC
// samples, and MC dropout where it cannot be folded into the next layer's weights). Rows are images, channel
// major, so a channel is a run of columns. Products that feed a sum are written float32(x*y): the conversion
// rounds, so Go may not fuse them into the add (an FMA natively, none in WASM).

// ---- elementwise sum ----

type addOp struct {
	xs  []*Tensor
	out *Tensor
}

// Add is x0 + x1 + … elementwise, summed in argument order ((x0 + x1) + x2 …), for two or more tensors of one
// width and one PerPoint: a residual block's skip. The same tensor may come more than once; it then gets ∂out
// once for each time.
func (g *Graph) Add(xs ...*Tensor) *Tensor {
	if len(xs) < 2 {
		panic("engine: Add takes two or more tensors")
	}
	grad := false
	for _, x := range xs {
		if x.Cols != xs[0].Cols || x.PerPoint != xs[0].PerPoint {
			panic(fmt.Sprintf("engine: Add of tensors [%d per point, %d] and [%d per point, %d]", xs[0].PerPoint, xs[0].Cols, x.PerPoint, x.Cols))
		}
		grad = grad || x.Grad != nil
	}
	out := g.newTensor(xs[0].Cols, xs[0].PerPoint, grad)
	o := &addOp{xs: append([]*Tensor(nil), xs...), out: out}
	out.producer = o
	for _, x := range xs {
		g.use(x, o)
	}
	g.add(o)
	return out
}

func (o *addOp) forward() {
	out := o.out.Live()
	kernel.AddTo(out, o.xs[0].Data[:len(out)], o.xs[1].Data[:len(out)])
	for _, x := range o.xs[2:] {
		addInto(out, x.Data[:len(out)])
	}
}

// backward: ∂out into each input's gradient, in argument order (twice into a tensor that came twice).
func (o *addOp) backward() {
	dout := o.out.Grad[:o.out.Rows()*o.out.Cols]
	for _, x := range o.xs {
		if x.Grad != nil {
			addInto(x.Grad, dout)
		}
	}
}

// ---- elementwise product, or a product by one value per channel ----

type mulOp struct {
	a, b, out *Tensor
	pixels    int // a's values per value of b: 1 elementwise, a channel's H·W for one value per channel
}

// Mul is a ⊙ b: elementwise when b has a's width, else b holds one value per channel of a, b.Cols =
// a.Cols/pixels, each multiplying its channel's pixels values (squeeze-and-excitation's x·s, with pixels =
// H·W). a and b have one PerPoint.
func (g *Graph) Mul(a, b *Tensor, pixels int) *Tensor {
	switch {
	case a.PerPoint != b.PerPoint:
		panic(fmt.Sprintf("engine: Mul of tensors of %d and %d rows per point", a.PerPoint, b.PerPoint))
	case b.Cols == a.Cols:
		pixels = 1
	case pixels < 1 || b.Cols*pixels != a.Cols:
		panic(fmt.Sprintf("engine: Mul of widths %d and %d, with %d pixels per channel", a.Cols, b.Cols, pixels))
	}
	out := g.newTensor(a.Cols, a.PerPoint, a.Grad != nil || b.Grad != nil)
	o := &mulOp{a: a, b: b, out: out, pixels: pixels}
	out.producer = o
	g.use(a, o)
	g.use(b, o)
	g.add(o)
	return out
}

func (o *mulOp) forward() {
	if o.pixels == 1 {
		out := o.out.Live()
		a, b := o.a.Data[:len(out)], o.b.Data[:len(out)]
		for i := range out {
			out[i] = a[i] * b[i]
		}
		return
	}
	for r := 0; r < o.a.Rows(); r++ {
		a, out := o.a.Row(r), o.out.Row(r)
		for c, s := range o.b.Row(r) {
			lo, hi := c*o.pixels, (c+1)*o.pixels
			src, dst := a[lo:hi], out[lo:hi]
			for i, v := range src {
				dst[i] = v * s
			}
		}
	}
}

// backward: ∂a += ∂out·b; ∂b += ∂out·a, for one value per channel summed over the channel's pixels in
// increasing order in float64 (each product of two float32 is exact there, fused or not) and rounded once.
func (o *mulOp) backward() {
	n := o.out.Rows() * o.out.Cols
	dout := o.out.Grad[:n]
	if o.a.Grad != nil {
		da := o.a.Grad[:n]
		if o.pixels == 1 {
			b := o.b.Data[:n]
			for i, d := range dout {
				da[i] += float32(d * b[i])
			}
		} else {
			for r := 0; r < o.a.Rows(); r++ {
				dy, dx := dout[r*o.a.Cols:(r+1)*o.a.Cols], da[r*o.a.Cols:(r+1)*o.a.Cols]
				for c, s := range o.b.Row(r) {
					lo, hi := c*o.pixels, (c+1)*o.pixels
					src, dst := dy[lo:hi], dx[lo:hi]
					for i, d := range src {
						dst[i] += float32(d * s)
					}
				}
			}
		}
	}
	if o.b.Grad == nil {
		return
	}
	if o.pixels == 1 {
		a, db := o.a.Data[:n], o.b.Grad[:n]
		for i, d := range dout {
			db[i] += float32(d * a[i])
		}
		return
	}
	for r := 0; r < o.a.Rows(); r++ {
		a, dy := o.a.Row(r), dout[r*o.a.Cols:(r+1)*o.a.Cols]
		db := o.b.Grad[r*o.b.Cols : (r+1)*o.b.Cols]
		for c := range db {
			lo, hi := c*o.pixels, (c+1)*o.pixels
			var s float64
			for i, d := range dy[lo:hi] {
				s += float64(float64(d) * float64(a[lo+i])) // exact: fused or not, the same bits
			}
			db[c] += float32(s)
		}
	}
}

// ---- channel concatenation ----

type concatOp struct {
	xs  []*Tensor
	out *Tensor
}

// Concat joins the rows of tensors of one PerPoint: each output row is the inputs' rows one after another,
// which, as rows are channel major, concatenates images of one height and width along their channels.
func (g *Graph) Concat(xs ...*Tensor) *Tensor {
	if len(xs) == 0 {
		panic("engine: Concat of no tensor")
	}
	cols, grad := 0, false
	for _, x := range xs {
		if x.PerPoint != xs[0].PerPoint {
			panic(fmt.Sprintf("engine: Concat of tensors of %d and %d rows per point", xs[0].PerPoint, x.PerPoint))
		}
		cols += x.Cols
		grad = grad || x.Grad != nil
	}
	out := g.newTensor(cols, xs[0].PerPoint, grad)
	o := &concatOp{xs: append([]*Tensor(nil), xs...), out: out}
	out.producer = o
	for _, x := range xs {
		g.use(x, o)
	}
	g.add(o)
	return out
}

func (o *concatOp) forward() {
	for r := 0; r < o.out.Rows(); r++ {
		dst := o.out.Row(r)
		for _, x := range o.xs {
			dst = dst[copy(dst, x.Row(r)):]
		}
	}
}

// backward: each input's slice of ∂out, added into its gradient (a tensor may have other readers, or come twice).
func (o *concatOp) backward() {
	for r := 0; r < o.out.Rows(); r++ {
		src := o.out.Grad[r*o.out.Cols : (r+1)*o.out.Cols]
		for _, x := range o.xs {
			if x.Grad != nil {
				addInto(x.Grad[r*x.Cols:(r+1)*x.Cols], src[:x.Cols])
			}
			src = src[x.Cols:]
		}
	}
}

// ---- a per-point tensor as a per-sample one ----

type broadcastOp struct {
	x, out *Tensor
}

// Broadcast makes a per-point tensor (PerPoint 1) a per-sample one of k samples: k copies of its rows,
// sample-major (row s·batch + i is point i's row, for every sample s).
func (g *Graph) Broadcast(x *Tensor, k int) *Tensor {
	if x.PerPoint != 1 || k < 1 {
		panic(fmt.Sprintf("engine: Broadcast of a tensor of %d rows per point to %d samples: it takes a per-point tensor", x.PerPoint, k))
	}
	out := g.newTensor(x.Cols, k, x.Grad != nil)
	o := &broadcastOp{x: x, out: out}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *broadcastOp) forward() {
	for k := 0; k < o.out.PerPoint; k++ {
		copy(block(o.out, k, false), o.x.Live())
	}
}

// backward: the samples' gradients summed into ∂x in order k = 0, 1, … (as DenseSamples sums them for a shared x).
func (o *broadcastOp) backward() {
	if o.x.Grad == nil {
		return
	}
	for k := 0; k < o.out.PerPoint; k++ {
		addInto(o.x.Grad, block(o.out, k, true))
	}
}

// ---- MC dropout on the activations ----

type maskSamplesOp struct {
	x, out *Tensor
	masks  []float32 // K·x.Cols: mask k at masks[k·Cols:]
}

// MaskSamples applies MC dropout where it cannot be folded into the next layer's weights (before an add, a
// product, a pooling): the output has one sample per mask, sample k's row for point i being x's row ⊙ masks[k]
// (x's row i when x is per point, its row k·batch + i when x is per sample, with PerPoint = len(masks)). Each
// mask has x.Cols values, 0 or 1/(1 − rate); they are copied.
func (g *Graph) MaskSamples(x *Tensor, masks [][]float32) *Tensor {
	k := len(masks)
	if k == 0 || (x.PerPoint != 1 && x.PerPoint != k) {
		panic(fmt.Sprintf("engine: MaskSamples of a tensor of %d rows per point with %d masks", x.PerPoint, k))
	}
	flat := make([]float32, 0, k*x.Cols)
	for _, m := range masks {
		if len(m) != x.Cols {
			panic(fmt.Sprintf("engine: MaskSamples of width %d with a mask of %d values", x.Cols, len(m)))
		}
		flat = append(flat, m...)
	}
	out := g.newTensor(x.Cols, k, x.Grad != nil)
	o := &maskSamplesOp{x: x, out: out, masks: flat}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *maskSamplesOp) forward() {
	c := o.x.Cols
	for k := 0; k < o.out.PerPoint; k++ {
		m := o.masks[k*c : (k+1)*c]
		x, out := block(o.x, k, false), block(o.out, k, false)
		for r := 0; r < len(out); r += c {
			src, dst := x[r:r+c], out[r:r+c]
			for j, v := range src {
				dst[j] = v * m[j]
			}
		}
	}
}

// backward: ∂x += ∂out ⊙ mask, sample by sample in order k = 0, 1, … (into the same rows for a per-point x).
func (o *maskSamplesOp) backward() {
	if o.x.Grad == nil {
		return
	}
	c := o.x.Cols
	for k := 0; k < o.out.PerPoint; k++ {
		m := o.masks[k*c : (k+1)*c]
		dx, dout := block(o.x, k, true), block(o.out, k, true)
		for r := 0; r < len(dout); r += c {
			src, dst := dout[r:r+c], dx[r:r+c]
			for j, d := range src {
				dst[j] += float32(d * m[j])
			}
		}
	}
}
