package engine

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine/kernel"
)

// Images in a tensor: each row is one image, channel-major (C, then H, then W: PyTorch's NCHW without the N), so
// a flatten or a reshape moves no data, and a dense layer reads the image as it lies.

// Shape is the geometry of an image: channels, height, width.
type Shape struct{ C, H, W int }

// Size is the number of values of an image of shape s (a tensor row's width).
func (s Shape) Size() int { return s.C * s.H * s.W }

func (s Shape) String() string { return fmt.Sprintf("%d×%d×%d", s.C, s.H, s.W) }

// Window is a 2-D sliding window: kernel size, stride and zero padding on each side, per axis.
type Window struct {
	KH, KW           int
	StrideH, StrideW int
	PadH, PadW       int
	OutPadH, OutPadW int // a transposed convolution's extra rows and columns at the bottom and right (output_padding)
}

// out is the output length along one axis of a window sliding over n values (floor: PyTorch's ceil_mode=False).
func windowOut(n, k, stride, pad int) int { return (n+2*pad-k)/stride + 1 }

// check says what is wrong with a window over an input of in, or nil.
func (w Window) check(in Shape) error {
	switch {
	case in.C < 1 || in.H < 1 || in.W < 1:
		return fmt.Errorf("input %v: every dimension must be at least 1", in)
	case w.KH < 1 || w.KW < 1 || w.StrideH < 1 || w.StrideW < 1:
		return fmt.Errorf("kernel %d×%d with stride %d×%d: each must be at least 1", w.KH, w.KW, w.StrideH, w.StrideW)
	case w.PadH < 0 || w.PadW < 0:
		return fmt.Errorf("padding %d×%d: must not be negative", w.PadH, w.PadW)
	case w.OutPadH < 0 || w.OutPadW < 0 || w.OutPadH >= max(w.StrideH, 1) || w.OutPadW >= max(w.StrideW, 1):
		return fmt.Errorf("output padding %d×%d with stride %d×%d: need 0 ≤ output padding < stride", w.OutPadH, w.OutPadW, w.StrideH, w.StrideW)
	}
	return nil
}

// ---- the window's gather (im2col) and scatter (col2im) ----

// geometry is one image's window positions: for a window over an image of shape in with outH × outW
// positions, column p = oy·outW + ox of the gathered matrix [in.C·KH·KW, outH·outW] holds, in row
// (c·KH + ky)·KW + kx, the input value at (c, oy·sH − pH + ky, ox·sW − pW + kx), or 0 outside the image.
type geometry struct {
	in         Shape
	w          Window
	outH, outW int
}

func (g geometry) rows() int { return g.in.C * g.w.KH * g.w.KW }
func (g geometry) cols() int { return g.outH * g.outW }

// gather fills col [rows·cols] from the image x (im2col), with +0 outside the image.
func (g geometry) gather(col, x []float32) {
	in, w, P := g.in, g.w, g.cols()
	r := 0
	for c := 0; c < in.C; c++ {
		plane := x[c*in.H*in.W : (c+1)*in.H*in.W]
		for ky := 0; ky < w.KH; ky++ {
			for kx := 0; kx < w.KW; kx++ {
				row := col[r*P : (r+1)*P]
				r++
				for oy := 0; oy < g.outH; oy++ {
					dst := row[oy*g.outW : (oy+1)*g.outW]
					iy := oy*w.StrideH - w.PadH + ky
					if iy < 0 || iy >= in.H {
						clear(dst)
						continue
					}
					src := plane[iy*in.W : (iy+1)*in.W]
					for ox := range dst {
						ix := ox*w.StrideW - w.PadW + kx
						if ix >= 0 && ix < in.W {
							dst[ox] = src[ix]
						} else {
							dst[ox] = 0
						}
					}
				}
			}
		}
	}
}

// scatter adds col [rows·cols] into the image x (col2im), the adjoint of gather: each value to the input
// position it was gathered from, in the order of col's rows and then columns (a fixed order: the same bits on
// every platform).
func (g geometry) scatter(x, col []float32) {
	in, w, P := g.in, g.w, g.cols()
	r := 0
	for c := 0; c < in.C; c++ {
		plane := x[c*in.H*in.W : (c+1)*in.H*in.W]
		for ky := 0; ky < w.KH; ky++ {
			for kx := 0; kx < w.KW; kx++ {
				row := col[r*P : (r+1)*P]
				r++
				for oy := 0; oy < g.outH; oy++ {
					iy := oy*w.StrideH - w.PadH + ky
					if iy < 0 || iy >= in.H {
						continue
					}
					src := row[oy*g.outW : (oy+1)*g.outW]
					dst := plane[iy*in.W : (iy+1)*in.W]
					for ox, v := range src {
						if ix := ox*w.StrideW - w.PadW + kx; ix >= 0 && ix < in.W {
							dst[ix] += v
						}
					}
				}
			}
		}
	}
}

// index is gather's map: for each value of the windows' matrix [rows·cols], in gather's order, the input
// position it is read from, or −1 outside the image. The layers gather and scatter through it
// (kernel.GatherIdx, kernel.ScatterAddIdx: in WebAssembly a loop of matmul.wasm, where Go's own loops took a
// conv's gather and scatter longer than its two matrix products); gather and scatter are its reference
// (TestWindowIndexKeepsBits).
func (g geometry) index() kernel.Index {
	in, w, P := g.in, g.w, g.cols()
	idx := make([]int32, g.rows()*P)
	r := 0
	for c := 0; c < in.C; c++ {
		for ky := 0; ky < w.KH; ky++ {
			for kx := 0; kx < w.KW; kx++ {
				for oy := 0; oy < g.outH; oy++ {
					iy := oy*w.StrideH - w.PadH + ky
					for ox := 0; ox < g.outW; ox++ {
						ix := ox*w.StrideW - w.PadW + kx
						j := int32(-1)
						if iy >= 0 && iy < in.H && ix >= 0 && ix < in.W {
							j = int32(c*in.H*in.W + iy*in.W + ix)
						}
						idx[r*P+oy*g.outW+ox] = j
					}
				}
				r++
			}
		}
	}
	return kernel.NewIndex(idx)
}

// addInto adds src to dst elementwise. (A product lands in a scratch buffer that starts at +0 and is then
// added: the matmul kernels' contract wants an accumulator free of -0, which a shared gradient may hold.)
func addInto(dst, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += v
	}
}

// ---- 2-D convolution: out = W ⋆ x + b ----

// Conv is a 2-D convolution layer (cross-correlation, as PyTorch's Conv2d with groups = 1): weights
// W [Out.C, In.C·KH·KW] (PyTorch's [out, in, kh, kw], row-major), and their transpose for the backward pass.
type Conv struct {
	In, Out Shape
	Window  Window
	W, WT   []float32
	B       []float32 // [Out.C]
}

// NewConv prepares a convolution over images of shape in with outC channels, from weights [outC·in.C·KH·KW]
// and biases [outC] (-0 biases become +0, as NewLayer's).
func NewConv(in Shape, outC int, win Window, w, b []float32) (Conv, error) {
	if err := win.check(in); err != nil {
		return Conv{}, fmt.Errorf("conv2d: %w", err)
	}
	if win.OutPadH != 0 || win.OutPadW != 0 {
		return Conv{}, fmt.Errorf("conv2d: output padding is a transposed convolution's")
	}
	oh, ow := windowOut(in.H, win.KH, win.StrideH, win.PadH), windowOut(in.W, win.KW, win.StrideW, win.PadW)
	k := in.C * win.KH * win.KW
	switch {
	case outC < 1:
		return Conv{}, fmt.Errorf("conv2d: %d output channels", outC)
	case oh < 1 || ow < 1:
		return Conv{}, fmt.Errorf("conv2d: a %d×%d kernel does not fit a %v input with padding %d×%d", win.KH, win.KW, in, win.PadH, win.PadW)
	case len(w) != outC*k || len(b) != outC:
		return Conv{}, fmt.Errorf("conv2d: %d weights and %d biases for %d×%d×%d×%d and %d", len(w), len(b), outC, in.C, win.KH, win.KW, outC)
	}
	c := Conv{In: in, Out: Shape{outC, oh, ow}, Window: win, W: w, WT: make([]float32, len(w)), B: make([]float32, outC)}
	kernel.Transpose(c.WT, w, outC, k)
	for j, v := range b {
		c.B[j] = v + 0
	}
	return c, nil
}

func (c *Conv) geometry() geometry {
	return geometry{in: c.In, w: c.Window, outH: c.Out.H, outW: c.Out.W}
}

// MultiplyAdds is the layer's multiply-adds per image, forward.
func (c *Conv) MultiplyAdds() int { return c.Out.Size() * c.In.C * c.Window.KH * c.Window.KW }

// convScratch is what a convolution's op keeps for its calls: its windows' geometry, one image's windows, and
// one image's input gradient before it is added (nil without a gradient); and for the sparse products
// (sparseProducts) the windows' map by position, one image's windows by position [P × K] (byPos) and its
// channels by position [P × C] (chans), and a product by position [P × max(K, C)].
type convScratch struct {
	geo geometry
	idx kernel.Index // geo.index()
	col []float32
	dx  []float32

	fwdWide, bwdWide     bool // whether each pass's sparse product would be wide enough to pay (sparseFor)
	sparseFwd, sparseBwd bool // which passes multiply sparse (wireSparse)
	byPosMap             *kernel.Windows
	fromPos              *kernel.Pairs // the scatter of the windows by position [P × K], in idx's order
	byPos, chans         *kernel.Sparse
	t                    []float32
}

// newConvScratch prepares a convolution's scratch: geo over images of in values, with a gradient if grad; chans
// is the channels of the layer's other side (a convolution's output, a transposed convolution's input), and
// fwdWidth and bwdWidth the widths of the sparse products each pass would make (see sparseFor).
func newConvScratch(geo geometry, in, chans, fwdWidth, bwdWidth int, grad bool) convScratch {
	s := convScratch{geo: geo, idx: geo.index(), col: make([]float32, geo.rows()*geo.cols())}
	if grad {
		s.dx = make([]float32, in)
	}
	s.fwdWide, s.bwdWide = sparseFor(fwdWidth), grad && sparseFor(bwdWidth)
	if s.fwdWide || s.bwdWide {
		K, P := geo.rows(), geo.cols()
		s.byPosMap = kernel.NewWindows(transposeIndex(s.idx, K, P), P, K)
		s.fromPos = scatterFromPositions(s.idx, K, P)
		s.byPos, s.chans = kernel.NewSparse(P, K), kernel.NewSparse(P, chans)
		s.t = make([]float32, P*max(K, chans))
	}
	return s
}

// wireSparse decides, once the graph is built, which passes of the convolution from x to out multiply sparse:
// forward when a ReLU made x (about half of it +0), backward when a ReLU is out's only reader (its gradient is
// +0 wherever the ReLU was inactive), each only if its product is wide enough to pay.
func (s *convScratch) wireSparse(x, out *Tensor) {
	_, fromReLU := x.producer.(*reluOp)
	s.sparseFwd = s.fwdWide && fromReLU
	s.sparseBwd = false
	if len(out.users) == 1 {
		_, toReLU := out.users[0].(*reluOp)
		s.sparseBwd = s.bwdWide && toReLU
	}
}

// scatterFromPositions is the scatter of idx [K × P] (its order, its padding left out) reading the windows by
// position [P × K].
func scatterFromPositions(idx kernel.Index, K, P int) *kernel.Pairs {
	var dst, src []int32
	for k := 0; k < K; k++ {
		for p := 0; p < P; p++ {
			if j := idx.At(k*P + p); j >= 0 {
				dst, src = append(dst, j), append(src, int32(p*K+k))
			}
		}
	}
	return kernel.NewPairs(dst, src)
}

// transposeIndex is idx [K × P] by position: [P × K].
func transposeIndex(idx kernel.Index, K, P int) kernel.Index {
	t := make([]int32, K*P)
	for k := 0; k < K; k++ {
		for p := 0; p < P; p++ {
			t[p*K+k] = idx.At(k*P + p)
		}
	}
	return kernel.NewIndex(t)
}

// sparseProducts says whether products multiply sparse (kernel.MatMulAddSparse) where that pays: the values a
// ReLU feeds a convolution or a dense layer are half or more +0, and the gradients it passes back mostly +0 (more
// than 80 % for Fashion's second convolution), and a sparse product skips them. A window's values or an image's
// channels are listed by position (conv.go), a dense layer's input by row (compact.go's multiply), and
// multiplied by the weights' rows: the same products, summed in the same order, as the dense product whose
// zeros MatMulAdd may skip, so the same bits. In WebAssembly (and with the pure-Go kernel) that is faster; the
// native AVX kernels' dense products outrun the listing. Tests flip it; compaction off (DELTACLUE_COMPACT=0)
// turns it off too, as it is skipping zero work; a DenseOnly build (the digits' worker) leaves it out.
var sparseProducts = kernel.SparsePays

// sparseMinWidth is the narrowest sparse product that pays: each row's entries run once per block of up to 32
// of the weights' columns, so a narrow one runs them for a few columns each (a first convolution's input
// gradient, 9 wide).
const sparseMinWidth = 16

// sparseFor says whether a pass whose sparse product is width wide may multiply sparse.
func sparseFor(width int) bool { return sparseProducts && width >= sparseMinWidth }

// fillRows sets each of the rows of len(v) values of t to v (a product by position starting from the biases).
func fillRows(t, v []float32, rows int) {
	t = t[:rows*len(v)]
	copy(t, v)
	for n := len(v); n < len(t); n *= 2 {
		copy(t[n:], t[:n])
	}
}

// fillBias sets each plane of P values of y to its channel's bias: where a convolution's sums start.
func fillBias(y, b []float32, P int) {
	for c, v := range b {
		plane := y[c*P : (c+1)*P]
		plane[0] = v
		for n := 1; n < len(plane); n *= 2 {
			copy(plane[n:], plane[:n])
		}
	}
}

// conv runs the convolution l on n images x (rows of l.In.Size()) into y (rows of l.Out.Size()), image by image:
// the biases, then W·gather(x); sparse, each image's windows by position times Wᵀ from the biases, transposed
// into y.
func (s *convScratch) conv(l *Conv, x, y []float32, n int, compact bool) {
	K, P, C := s.geo.rows(), s.geo.cols(), l.Out.C
	in, outW := l.In.Size(), l.Out.Size()
	for r := 0; r < n; r++ {
		yr := y[r*outW : (r+1)*outW]
		if s.sparseFwd && compact {
			s.byPos.SetGather(x[r*in:(r+1)*in], s.byPosMap)
			fillRows(s.t, l.B, P)
			kernel.MatMulAddSparse(s.byPos, l.WT, s.t, C, false)
			kernel.Transpose(yr, s.t, P, C)
			continue
		}
		fillBias(yr, l.B, P)
		kernel.GatherIdx(s.col, x[r*in:(r+1)*in], s.idx)
		kernel.MatMulAdd(l.W, s.col, yr, C, K, P)
	}
}

// convGrad adds the input gradients of n images, scatter(Wᵀ·∂out) image by image, from dy into dx. With fresh
// (dx all +0, as Backward clears it, and no other writer before), it scatters into dx itself: the same sums in
// the same order from the same +0, without a scratch image to clear and add. Sparse, Wᵀ·∂out is each image's
// ∂out channels by position times W, scattered through a map in the same order.
func (s *convScratch) convGrad(l *Conv, dy, dx []float32, n int, fresh, compact bool) {
	K, P, C := s.geo.rows(), s.geo.cols(), l.Out.C
	in, outW := l.In.Size(), l.Out.Size()
	for r := 0; r < n; r++ {
		to := dx[r*in : (r+1)*in]
		if !fresh {
			to = s.dx
			clear(to)
		}
		if s.sparseBwd && compact {
			s.chans.SetTranspose(dy[r*outW : (r+1)*outW])
			kernel.MatMulAddSparse(s.chans, l.W, s.t, K, true)
			kernel.ScatterAddPairs(to, s.t, s.fromPos)
		} else {
			clear(s.col)
			kernel.MatMulAdd(l.WT, dy[r*outW:(r+1)*outW], s.col, K, C, P)
			kernel.ScatterAddIdx(to, s.col, s.idx)
		}
		if !fresh {
			addInto(dx[r*in:(r+1)*in], s.dx)
		}
	}
}

// freshGrad reports whether x's gradient is all +0 when op o's backward runs: Backward cleared it (it is not
// packed) and o is x's only reader, so nothing else writes it.
func freshGrad(x *Tensor) bool { return len(x.users) == 1 && !x.gradPacked() }

type convOp struct {
	x, out *Tensor
	l      *Conv
	convScratch
}

// Conv2D applies the convolution l to every row of x (an image of shape l.In).
func (g *Graph) Conv2D(x *Tensor, l *Conv) *Tensor {
	if x.Cols != l.In.Size() {
		panic(fmt.Sprintf("engine: Conv2D input width %d, the layer takes %v", x.Cols, l.In))
	}
	out := g.newTensor(l.Out.Size(), x.PerPoint, x.Grad != nil)
	o := &convOp{x: x, out: out, l: l, convScratch: newConvScratch(l.geometry(), l.In.Size(), l.Out.C, l.Out.C, l.Window.KH*l.Window.KW*l.In.C, x.Grad != nil)}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *convOp) wireSparse() { o.convScratch.wireSparse(o.x, o.out) }

func (o *convOp) forward() { o.conv(o.l, o.x.Live(), o.out.Live(), o.x.Rows(), o.x.g.compact) }

// backward: ∂x = scatter(Wᵀ·∂out), image by image.
func (o *convOp) backward() {
	if o.x.Grad != nil {
		n := o.x.Rows()
		o.convGrad(o.l, o.out.Grad[:n*o.out.Cols], o.x.Grad[:n*o.x.Cols], n, freshGrad(o.x), o.x.g.compact)
	}
}

// ---- 2-D transposed convolution: the adjoint of a convolution's input map, plus a bias ----

// ConvTranspose is a 2-D transposed convolution (PyTorch's ConvTranspose2d with groups = 1 and dilation 1):
// weights W [In.C, Out.C·KH·KW] (PyTorch's [in, out, kh, kw], row-major), and their transpose.
type ConvTranspose struct {
	In, Out Shape
	Window  Window
	W, WT   []float32
	B       []float32 // [Out.C]
}

// NewConvTranspose prepares a transposed convolution over images of shape in with outC channels, whose output
// is (in.H−1)·stride − 2·pad + kernel + output padding high (and likewise wide).
func NewConvTranspose(in Shape, outC int, win Window, w, b []float32) (ConvTranspose, error) {
	if err := win.check(in); err != nil {
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: %w", err)
	}
	oh := (in.H-1)*win.StrideH - 2*win.PadH + win.KH + win.OutPadH
	ow := (in.W-1)*win.StrideW - 2*win.PadW + win.KW + win.OutPadW
	k := outC * win.KH * win.KW
	switch {
	case outC < 1:
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: %d output channels", outC)
	case oh < 1 || ow < 1:
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: output %d×%d from a %v input", oh, ow, in)
	case len(w) != in.C*k || len(b) != outC:
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: %d weights and %d biases for %d×%d×%d×%d and %d", len(w), len(b), in.C, outC, win.KH, win.KW, outC)
	}
	c := ConvTranspose{In: in, Out: Shape{outC, oh, ow}, Window: win, W: w, WT: make([]float32, len(w)), B: make([]float32, outC)}
	kernel.Transpose(c.WT, w, in.C, k)
	for j, v := range b {
		c.B[j] = v + 0
	}
	return c, nil
}

// geometry is the window over the layer's output: a transposed convolution scatters what a convolution over
// its output would gather, and gathers what that one would scatter.
func (c *ConvTranspose) geometry() geometry {
	return geometry{in: c.Out, w: c.Window, outH: c.In.H, outW: c.In.W}
}

// MultiplyAdds is the layer's multiply-adds per image, forward.
func (c *ConvTranspose) MultiplyAdds() int { return c.In.Size() * c.Out.C * c.Window.KH * c.Window.KW }

type convTransposeOp struct {
	x, out      *Tensor
	l           *ConvTranspose
	convScratch // its windows over the output: [Out.C·KH·KW, In.H·In.W] an image
}

// ConvTranspose2D applies the transposed convolution l to every row of x (an image of shape l.In).
func (g *Graph) ConvTranspose2D(x *Tensor, l *ConvTranspose) *Tensor {
	if x.Cols != l.In.Size() {
		panic(fmt.Sprintf("engine: ConvTranspose2D input width %d, the layer takes %v", x.Cols, l.In))
	}
	out := g.newTensor(l.Out.Size(), x.PerPoint, x.Grad != nil)
	o := &convTransposeOp{x: x, out: out, l: l, convScratch: newConvScratch(l.geometry(), l.In.Size(), l.In.C, l.Out.C*l.Window.KH*l.Window.KW, l.In.C, x.Grad != nil)}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *convTransposeOp) wireSparse() { o.convScratch.wireSparse(o.x, o.out) }

// forward: out = b + scatter(Wᵀ·x), image by image; sparse, Wᵀ·x is x's channels by position times W,
// scattered through a map in the same order.
func (o *convTransposeOp) forward() {
	K, P, C := o.geo.rows(), o.geo.cols(), o.l.In.C
	outP := o.l.Out.H * o.l.Out.W
	for r := 0; r < o.x.Rows(); r++ {
		y := o.out.Row(r)
		fillBias(y, o.l.B, outP)
		if o.sparseFwd && o.x.g.compact {
			o.chans.SetTranspose(o.x.Row(r))
			kernel.MatMulAddSparse(o.chans, o.l.W, o.t, K, true)
			kernel.ScatterAddPairs(y, o.t, o.fromPos)
			continue
		}
		clear(o.col)
		kernel.MatMulAdd(o.l.WT, o.x.Row(r), o.col, K, C, P)
		kernel.ScatterAddIdx(y, o.col, o.idx)
	}
}

// backward: ∂x = W·gather(∂out), image by image; sparse, ∂out's windows by position times Wᵀ, transposed.
func (o *convTransposeOp) backward() {
	if o.x.Grad == nil {
		return
	}
	K, P, C := o.geo.rows(), o.geo.cols(), o.l.In.C
	in, outW := o.l.In.Size(), o.l.Out.Size()
	fresh := freshGrad(o.x) // then the product lands in ∂x itself, from the same +0
	for r := 0; r < o.x.Rows(); r++ {
		dx := o.dx
		if fresh {
			dx = o.x.Grad[r*in : (r+1)*in]
		}
		if o.sparseBwd && o.x.g.compact {
			o.byPos.SetGather(o.out.Grad[r*outW:(r+1)*outW], o.byPosMap)
			kernel.MatMulAddSparse(o.byPos, o.l.WT, o.t, C, true)
			kernel.Transpose(dx, o.t, P, C) // every value of dx, from the sums' +0 start: as adding them to fresh +0
		} else {
			kernel.GatherIdx(o.col, o.out.Grad[r*outW:(r+1)*outW], o.idx)
			if !fresh {
				clear(dx)
			}
			kernel.MatMulAdd(o.l.W, o.col, dx, C, K, P)
		}
		if !fresh {
			addInto(o.x.Grad[r*in:(r+1)*in], dx)
		}
	}
}

// ---- a convolution per MC sample: block k = conv_k(x(k)) ----

type convSamplesOp struct {
	x, out *Tensor
	layers []Conv
	convScratch
}

// ConvSamples applies layer k to sample k's rows of x (to x itself when it is per point: every sample reads
// the same rows), giving a per-sample tensor: what a convolution after an MC-dropout layer is, the sample's mask
// folded into its input channels' weights.
func (g *Graph) ConvSamples(x *Tensor, layers []Conv) *Tensor {
	if x.PerPoint != 1 && x.PerPoint != len(layers) {
		panic("engine: ConvSamples input is neither per point nor per sample")
	}
	for i := range layers {
		if layers[i].In != layers[0].In || layers[i].Out != layers[0].Out || layers[i].Window != layers[0].Window || x.Cols != layers[i].In.Size() {
			panic("engine: ConvSamples layers do not match each other or the input")
		}
	}
	out := g.newTensor(layers[0].Out.Size(), len(layers), x.Grad != nil)
	l := &layers[0]
	o := &convSamplesOp{x: x, out: out, layers: layers, convScratch: newConvScratch(l.geometry(), l.In.Size(), l.Out.C, l.Out.C, l.Window.KH*l.Window.KW*l.In.C, x.Grad != nil)}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *convSamplesOp) wireSparse() { o.convScratch.wireSparse(o.x, o.out) }

func (o *convSamplesOp) forward() {
	for k := range o.layers {
		o.conv(&o.layers[k], block(o.x, k, false), block(o.out, k, false), o.x.g.batch, o.x.g.compact)
	}
}

// backward: ∂x(k) += scatter(W_kᵀ·∂out_k); a shared x sums the samples' contributions in order k = 0, 1, ….
func (o *convSamplesOp) backward() {
	if o.x.Grad == nil {
		return
	}
	for k := range o.layers {
		o.convGrad(&o.layers[k], block(o.out, k, true), block(o.x, k, true), o.x.g.batch, o.x.PerPoint > 1 && freshGrad(o.x), o.x.g.compact)
	}
}
