package engine

import "fmt"

// ---- per-channel affine map: batch normalisation in eval mode ----

type channelAffineOp struct {
	x, out       *Tensor
	pixels       int       // values per channel: H·W
	scale, shift []float32 // one per channel
}

// ChannelAffine is out = x·scale[c] + shift[c] over each channel c of images of shape s (a vector of C values is
// s = {C, 1, 1}): batch normalisation in eval mode, its running statistics and affine parameters folded into
// scale = γ/√(σ² + ε) and shift = β − μ·scale. The product is rounded before the add (no fused multiply-add),
// scale and shift are copied, and a shift of -0 becomes +0 (as NewLayer does with biases).
func (g *Graph) ChannelAffine(x *Tensor, s Shape, scale, shift []float32) *Tensor {
	if x.Cols != s.Size() || len(scale) != s.C || len(shift) != s.C {
		panic(fmt.Sprintf("engine: ChannelAffine of width %d, images of %v, %d scales and %d shifts", x.Cols, s, len(scale), len(shift)))
	}
	out := g.newTensor(x.Cols, x.PerPoint, x.Grad != nil)
	o := &channelAffineOp{x: x, out: out, pixels: s.H * s.W, scale: append([]float32(nil), scale...), shift: make([]float32, s.C)}
	for c, v := range shift {
		o.shift[c] = v + 0 // -0 + 0 = +0
	}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *channelAffineOp) forward() {
	p := o.pixels
	for r := 0; r < o.x.Rows(); r++ {
		x, y := o.x.Row(r), o.out.Row(r)
		for c, a := range o.scale {
			b := o.shift[c]
			src, dst := x[c*p:(c+1)*p], y[c*p:(c+1)*p]
			for i, v := range src {
				dst[i] = float32(v*a) + b
			}
		}
	}
}

// backward: ∂x += ∂out·scale[c].
func (o *channelAffineOp) backward() {
	if o.x.Grad == nil {
		return
	}
	p, n := o.pixels, o.x.Cols
	for r := 0; r < o.x.Rows(); r++ {
		dx, dy := o.x.Grad[r*n:(r+1)*n], o.out.Grad[r*n:(r+1)*n]
		for c, a := range o.scale {
			src, dst := dy[c*p:(c+1)*p], dx[c*p:(c+1)*p]
			for i, d := range src {
				dst[i] += float32(d * a)
			}
		}
	}
}
