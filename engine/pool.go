package engine

import (
	"fmt"
	"math"

	"github.com/deltaclue/deltaclue/engine/kernel"
)

// Pooling and upsampling over images (rows channel-major, as conv.go lays them out). None has weights; each
// works channel by channel.

// Pool is a 2-D pooling window over images of shape In (PyTorch's MaxPool2d and AvgPool2d with ceil_mode=False,
// dilation 1; an average counts the padding, count_include_pad=True, PyTorch's default).
type Pool struct {
	In, Out Shape
	Window  Window
}

// NewPool prepares a pooling window over images of shape in. PyTorch's rule for its padding holds: at most
// half the kernel.
func NewPool(in Shape, win Window) (Pool, error) {
	if err := win.check(in); err != nil {
		return Pool{}, fmt.Errorf("pool: %w", err)
	}
	oh, ow := windowOut(in.H, win.KH, win.StrideH, win.PadH), windowOut(in.W, win.KW, win.StrideW, win.PadW)
	switch {
	case 2*win.PadH > win.KH || 2*win.PadW > win.KW:
		return Pool{}, fmt.Errorf("pool: padding %d×%d is more than half the %d×%d kernel", win.PadH, win.PadW, win.KH, win.KW)
	case win.OutPadH != 0 || win.OutPadW != 0:
		return Pool{}, fmt.Errorf("pool: output padding is a transposed convolution's")
	case win.DilH > 1 || win.DilW > 1:
		return Pool{}, fmt.Errorf("pool: dilation is a convolution's")
	case oh < 1 || ow < 1:
		return Pool{}, fmt.Errorf("pool: a %d×%d window does not fit a %v input", win.KH, win.KW, in)
	}
	return Pool{In: in, Out: Shape{in.C, oh, ow}, Window: win}, nil
}

// window is the part of output position (oy, ox)'s window that lies in the image: input rows y0..y1−1 and
// columns x0..x1−1 (padding holds no values).
func (p *Pool) window(oy, ox int) (y0, y1, x0, x1 int) {
	w := p.Window
	y0, x0 = oy*w.StrideH-w.PadH, ox*w.StrideW-w.PadW
	y1, x1 = min(y0+w.KH, p.In.H), min(x0+w.KW, p.In.W)
	return max(y0, 0), y1, max(x0, 0), x1
}

// ---- max pooling ----

type maxPoolOp struct {
	x, out *Tensor
	p      *Pool
	arg    []int32 // per output value of every row: the index in its input row of the value it took
}

// MaxPool2D is the maximum over each window of each channel (padding never wins; a NaN in a window is its
// maximum, as in PyTorch).
func (g *Graph) MaxPool2D(x *Tensor, p *Pool) *Tensor {
	if x.Cols != p.In.Size() {
		panic(fmt.Sprintf("engine: MaxPool2D input width %d, the pool takes %v", x.Cols, p.In))
	}
	out := g.newTensor(p.Out.Size(), x.PerPoint, x.Grad != nil)
	o := &maxPoolOp{x: x, out: out, p: p, arg: make([]int32, g.capacity*x.PerPoint*p.Out.Size())}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *maxPoolOp) forward() {
	in, out := o.p.In, o.p.Out
	for r := 0; r < o.x.Rows(); r++ {
		x, y, arg := o.x.Row(r), o.out.Row(r), o.arg[r*out.Size():(r+1)*out.Size()]
		for c := 0; c < in.C; c++ {
			base := c * in.H * in.W
			for oy := 0; oy < out.H; oy++ {
				for ox := 0; ox < out.W; ox++ {
					y0, y1, x0, x1 := o.p.window(oy, ox)
					best, at := float32(math.Inf(-1)), y0*in.W+x0
				scan:
					for iy := y0; iy < y1; iy++ {
						for ix := x0; ix < x1; ix++ {
							v := x[base+iy*in.W+ix]
							if v > best || v != v {
								best, at = v, iy*in.W+ix
								if v != v {
									break scan
								}
							}
						}
					}
					i := (c*out.H+oy)*out.W + ox
					y[i], arg[i] = best, int32(base+at)
				}
			}
		}
	}
}

// backward: each output's gradient goes to the input value it took.
func (o *maxPoolOp) backward() {
	if o.x.Grad == nil {
		return
	}
	n, m := o.p.In.Size(), o.p.Out.Size()
	for r := 0; r < o.x.Rows(); r++ {
		dx, dy, arg := o.x.Grad[r*n:(r+1)*n], o.out.Grad[r*m:(r+1)*m], o.arg[r*m:(r+1)*m]
		for i, d := range dy {
			dx[arg[i]] += d
		}
	}
}

// ---- average pooling ----

type avgPoolOp struct {
	x, out *Tensor
	p      *Pool
}

// AvgPool2D is the mean over each window of each channel, the padding counted as zeros (the sum over the
// window's values in the image, in row order, divided by KH·KW).
func (g *Graph) AvgPool2D(x *Tensor, p *Pool) *Tensor {
	if x.Cols != p.In.Size() {
		panic(fmt.Sprintf("engine: AvgPool2D input width %d, the pool takes %v", x.Cols, p.In))
	}
	out := g.newTensor(p.Out.Size(), x.PerPoint, x.Grad != nil)
	o := &avgPoolOp{x: x, out: out, p: p}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *avgPoolOp) forward() {
	in, out := o.p.In, o.p.Out
	n := float32(o.p.Window.KH * o.p.Window.KW)
	if !DenseOnly && o.global() { // each plane's one window: its sum in order (matmul.wasm's mean_planes in a wasmsimd build)
		planes := o.x.Rows() * in.C
		kernel.MeanPlanes(o.out.Data[:planes], o.x.Data[:planes*in.H*in.W], in.H*in.W, n)
		return
	}
	for r := 0; r < o.x.Rows(); r++ {
		x, y := o.x.Row(r), o.out.Row(r)
		for c := 0; c < in.C; c++ {
			plane := x[c*in.H*in.W : (c+1)*in.H*in.W]
			for oy := 0; oy < out.H; oy++ {
				for ox := 0; ox < out.W; ox++ {
					y0, y1, x0, x1 := o.p.window(oy, ox)
					var s float32
					for iy := y0; iy < y1; iy++ {
						for _, v := range plane[iy*in.W+x0 : iy*in.W+x1] {
							s += v
						}
					}
					y[(c*out.H+oy)*out.W+ox] = s / n
				}
			}
		}
	}
}

// global reports whether the pool has one window a plane, the whole plane: a global average pool, whose planes'
// sums and gradients run as one call each (kernel.MeanPlanes, kernel.AddPlanes: the same additions in the same
// order as the loops; matmul.wasm's image layers, left out of a DenseOnly build).
func (o *avgPoolOp) global() bool {
	y0, y1, x0, x1 := o.p.window(0, 0)
	return o.p.Out.H == 1 && o.p.Out.W == 1 && y0 == 0 && x0 == 0 && y1 == o.p.In.H && x1 == o.p.In.W
}

// backward: each output's gradient, divided by KH·KW, to every input value of its window.
func (o *avgPoolOp) backward() {
	if o.x.Grad == nil {
		return
	}
	in, out := o.p.In, o.p.Out
	n := float32(o.p.Window.KH * o.p.Window.KW)
	if !DenseOnly && o.global() {
		planes := o.x.Rows() * in.C
		kernel.AddPlanes(o.x.Grad[:planes*in.H*in.W], o.out.Grad[:planes], in.H*in.W, n)
		return
	}
	for r := 0; r < o.x.Rows(); r++ {
		dx, dy := o.x.Grad[r*in.Size():(r+1)*in.Size()], o.out.Grad[r*out.Size():(r+1)*out.Size()]
		for c := 0; c < in.C; c++ {
			plane := dx[c*in.H*in.W : (c+1)*in.H*in.W]
			for oy := 0; oy < out.H; oy++ {
				for ox := 0; ox < out.W; ox++ {
					d := dy[(c*out.H+oy)*out.W+ox] / n
					y0, y1, x0, x1 := o.p.window(oy, ox)
					for iy := y0; iy < y1; iy++ {
						row := plane[iy*in.W+x0 : iy*in.W+x1]
						for i := range row {
							row[i] += d
						}
					}
				}
			}
		}
	}
}

// ---- nearest upsampling ----

// Upsample is nearest-neighbour upsampling of images of shape In by whole factors (PyTorch's Upsample and
// interpolate with mode="nearest" and an integer scale factor).
type Upsample struct {
	In, Out        Shape
	ScaleH, ScaleW int
}

// NewUpsample prepares upsampling of images of shape in by sh × sw.
func NewUpsample(in Shape, sh, sw int) (Upsample, error) {
	if in.C < 1 || in.H < 1 || in.W < 1 || sh < 1 || sw < 1 {
		return Upsample{}, fmt.Errorf("upsample: input %v by %d×%d: each must be at least 1", in, sh, sw)
	}
	return Upsample{In: in, Out: Shape{in.C, in.H * sh, in.W * sw}, ScaleH: sh, ScaleW: sw}, nil
}

type upsampleOp struct {
	x, out *Tensor
	u      *Upsample
}

// Upsample2D repeats each value of each row of x (an image of shape u.In) over a ScaleH × ScaleW block.
func (g *Graph) Upsample2D(x *Tensor, u *Upsample) *Tensor {
	if x.Cols != u.In.Size() {
		panic(fmt.Sprintf("engine: Upsample2D input width %d, the layer takes %v", x.Cols, u.In))
	}
	out := g.newTensor(u.Out.Size(), x.PerPoint, x.Grad != nil)
	o := &upsampleOp{x: x, out: out, u: u}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *upsampleOp) forward() {
	in, out := o.u.In, o.u.Out
	for r := 0; r < o.x.Rows(); r++ {
		x, y := o.x.Row(r), o.out.Row(r)
		for c := 0; c < in.C; c++ {
			for oy := 0; oy < out.H; oy++ {
				src := x[(c*in.H+oy/o.u.ScaleH)*in.W:]
				dst := y[(c*out.H+oy)*out.W : (c*out.H+oy+1)*out.W]
				for ox := range dst {
					dst[ox] = src[ox/o.u.ScaleW]
				}
			}
		}
	}
}

// backward: each input value's gradient is the sum over its block, row by row.
func (o *upsampleOp) backward() {
	if o.x.Grad == nil {
		return
	}
	in, out := o.u.In, o.u.Out
	for r := 0; r < o.x.Rows(); r++ {
		dx, dy := o.x.Grad[r*in.Size():(r+1)*in.Size()], o.out.Grad[r*out.Size():(r+1)*out.Size()]
		for c := 0; c < in.C; c++ {
			for oy := 0; oy < out.H; oy++ {
				dst := dx[(c*in.H+oy/o.u.ScaleH)*in.W:]
				src := dy[(c*out.H+oy)*out.W : (c*out.H+oy+1)*out.W]
				for ox, d := range src {
					dst[ox/o.u.ScaleW] += d
				}
			}
		}
	}
}

// ---- global pooling: one value per channel ----

type globalAvgPoolOp struct {
	x, out *Tensor
	s      Shape
}

// GlobalAvgPool is each channel's mean over its H·W pixels (images of shape s in, s.C columns out: a C×1×1
// image): the pixels summed in increasing order in float64, then divided once and rounded once to float32.
// (float64 so that a large map's sum loses nothing to the order; the mean's bits are the same everywhere.)
func (g *Graph) GlobalAvgPool(x *Tensor, s Shape) *Tensor {
	if x.Cols != s.Size() || s.H*s.W < 1 {
		panic(fmt.Sprintf("engine: GlobalAvgPool input width %d, images of %v", x.Cols, s))
	}
	out := g.newTensor(s.C, x.PerPoint, x.Grad != nil)
	o := &globalAvgPoolOp{x: x, out: out, s: s}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *globalAvgPoolOp) forward() {
	p := o.s.H * o.s.W
	n := float64(p)
	for r := 0; r < o.x.Rows(); r++ {
		x, y := o.x.Row(r), o.out.Row(r)
		for c := range y {
			var s float64
			for _, v := range x[c*p : (c+1)*p] {
				s += float64(v)
			}
			y[c] = float32(s / n)
		}
	}
}

// backward: each channel's ∂out/(H·W) to each of its pixels (one float32 division, as exact as float64's
// rounded: H·W is exact in float32).
func (o *globalAvgPoolOp) backward() {
	if o.x.Grad == nil {
		return
	}
	p := o.s.H * o.s.W
	n := float32(p)
	for r := 0; r < o.x.Rows(); r++ {
		dx, dy := o.x.Grad[r*o.x.Cols:(r+1)*o.x.Cols], o.out.Grad[r*o.out.Cols:(r+1)*o.out.Cols]
		for c, d := range dy {
			d /= n
			plane := dx[c*p : (c+1)*p]
			for i := range plane {
				plane[i] += d
			}
		}
	}
}

type globalMaxPoolOp struct {
	x, out *Tensor
	s      Shape
	arg    []int32 // per output value of every row: the index in its input row of the value it took
}

// GlobalMaxPool is each channel's maximum over its H·W pixels (images of shape s in, s.C columns out). As in
// MaxPool2D, the first maximal pixel in row order takes the value and the gradient, and a NaN is the maximum
// (the first NaN).
func (g *Graph) GlobalMaxPool(x *Tensor, s Shape) *Tensor {
	if x.Cols != s.Size() || s.H*s.W < 1 {
		panic(fmt.Sprintf("engine: GlobalMaxPool input width %d, images of %v", x.Cols, s))
	}
	out := g.newTensor(s.C, x.PerPoint, x.Grad != nil)
	o := &globalMaxPoolOp{x: x, out: out, s: s, arg: make([]int32, g.capacity*x.PerPoint*s.C)}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *globalMaxPoolOp) forward() {
	p := o.s.H * o.s.W
	for r := 0; r < o.x.Rows(); r++ {
		x, y, arg := o.x.Row(r), o.out.Row(r), o.arg[r*o.s.C:(r+1)*o.s.C]
		for c := range y {
			base := c * p
			best, at := float32(math.Inf(-1)), base
			for i, v := range x[base : base+p] {
				if v > best || v != v {
					best, at = v, base+i
					if v != v {
						break
					}
				}
			}
			y[c], arg[c] = best, int32(at)
		}
	}
}

// backward: each channel's gradient to the pixel it took.
func (o *globalMaxPoolOp) backward() {
	if o.x.Grad == nil {
		return
	}
	for r := 0; r < o.x.Rows(); r++ {
		dx, dy, arg := o.x.Grad[r*o.x.Cols:(r+1)*o.x.Cols], o.out.Grad[r*o.s.C:(r+1)*o.s.C], o.arg[r*o.s.C:(r+1)*o.s.C]
		for c, d := range dy {
			dx[arg[c]] += d
		}
	}
}
