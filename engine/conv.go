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
	DilH, DilW       int // dilation: the spacing of the kernel's taps (PyTorch's dilation); 0 means 1
}

// dilation is the window's dilation per axis, 0 read as 1.
func (w Window) dilation() (int, int) { return max(w.DilH, 1), max(w.DilW, 1) }

// windowOut is the output length along one axis of an undilated window sliding over n values (floor: PyTorch's
// ceil_mode=False).
func windowOut(n, k, stride, pad int) int { return dilatedOut(n, k, stride, pad, 1) }

// dilatedOut is the output length along one axis of a window of k taps dil apart sliding over n values padded
// by pad on each side: (n + 2·pad − dil·(k−1) − 1)/stride + 1, or 0 where the window does not fit at all (Go's
// division truncates toward zero, which would make a slightly too large window fit once).
func dilatedOut(n, k, stride, pad, dil int) int {
	span := n + 2*pad - dil*(k-1) - 1
	if span < 0 {
		return 0
	}
	return span/stride + 1
}

// check says what is wrong with a window over an input of in, or nil.
func (w Window) check(in Shape) error {
	switch {
	case in.C < 1 || in.H < 1 || in.W < 1:
		return fmt.Errorf("input %v: every dimension must be at least 1", in)
	case w.KH < 1 || w.KW < 1 || w.StrideH < 1 || w.StrideW < 1:
		return fmt.Errorf("kernel %d×%d with stride %d×%d: each must be at least 1", w.KH, w.KW, w.StrideH, w.StrideW)
	case w.PadH < 0 || w.PadW < 0:
		return fmt.Errorf("padding %d×%d: must not be negative", w.PadH, w.PadW)
	case w.DilH < 0 || w.DilW < 0:
		return fmt.Errorf("dilation %d×%d: must be at least 1", w.DilH, w.DilW)
	case w.OutPadH < 0 || w.OutPadW < 0 || w.OutPadH >= max(w.StrideH, w.DilH, 1) || w.OutPadW >= max(w.StrideW, w.DilW, 1):
		// PyTorch's rule: below the stride or below the dilation.
		return fmt.Errorf("output padding %d×%d with stride %d×%d and dilation %d×%d: need 0 ≤ output padding < stride or dilation",
			w.OutPadH, w.OutPadW, w.StrideH, w.StrideW, max(w.DilH, 1), max(w.DilW, 1))
	}
	return nil
}

// checkGroups says what is wrong with splitting inC input and outC output channels into groups, or nil.
func checkGroups(inC, outC, groups int) error {
	switch {
	case groups < 1:
		return fmt.Errorf("%d groups: must be at least 1", groups)
	case inC%groups != 0 || outC%groups != 0:
		return fmt.Errorf("%d input and %d output channels do not split into %d groups", inC, outC, groups)
	}
	return nil
}

// ---- the window's gather (im2col) and scatter (col2im) ----

// geometry is one image's window positions: for a window over an image of shape in with outH × outW
// positions, column p = oy·outW + ox of the gathered matrix [in.C·KH·KW, outH·outW] holds, in row
// (c·KH + ky)·KW + kx, the input value at (c, oy·sH − pH + ky·dH, ox·sW − pW + kx·dW), or 0 outside the image.
// Channel c's rows are contiguous, so a group of channels' rows are too (a grouped convolution's share).
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
	dh, dw := w.dilation()
	r := 0
	for c := 0; c < in.C; c++ {
		plane := x[c*in.H*in.W : (c+1)*in.H*in.W]
		for ky := 0; ky < w.KH; ky++ {
			for kx := 0; kx < w.KW; kx++ {
				row := col[r*P : (r+1)*P]
				r++
				for oy := 0; oy < g.outH; oy++ {
					dst := row[oy*g.outW : (oy+1)*g.outW]
					iy := oy*w.StrideH - w.PadH + ky*dh
					if iy < 0 || iy >= in.H {
						clear(dst)
						continue
					}
					src := plane[iy*in.W : (iy+1)*in.W]
					for ox := range dst {
						ix := ox*w.StrideW - w.PadW + kx*dw
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
	dh, dw := w.dilation()
	r := 0
	for c := 0; c < in.C; c++ {
		plane := x[c*in.H*in.W : (c+1)*in.H*in.W]
		for ky := 0; ky < w.KH; ky++ {
			for kx := 0; kx < w.KW; kx++ {
				row := col[r*P : (r+1)*P]
				r++
				for oy := 0; oy < g.outH; oy++ {
					iy := oy*w.StrideH - w.PadH + ky*dh
					if iy < 0 || iy >= in.H {
						continue
					}
					src := row[oy*g.outW : (oy+1)*g.outW]
					dst := plane[iy*in.W : (iy+1)*in.W]
					for ox, v := range src {
						if ix := ox*w.StrideW - w.PadW + kx*dw; ix >= 0 && ix < in.W {
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
	dh, dw := w.dilation()
	idx := make([]int32, g.rows()*P)
	r := 0
	for c := 0; c < in.C; c++ {
		for ky := 0; ky < w.KH; ky++ {
			for kx := 0; kx < w.KW; kx++ {
				for oy := 0; oy < g.outH; oy++ {
					iy := oy*w.StrideH - w.PadH + ky*dh
					for ox := 0; ox < g.outW; ox++ {
						ix := ox*w.StrideW - w.PadW + kx*dw
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

// transposeGroups sets wt to the transposes of w's groups: w holds groups blocks of rows × cols, one after
// another, and wt their transposes [cols × rows], one after another (one group: wt = wᵀ).
func transposeGroups(wt, w []float32, groups, rows, cols int) {
	n := rows * cols
	for g := 0; g < groups; g++ {
		kernel.Transpose(wt[g*n:(g+1)*n], w[g*n:(g+1)*n], rows, cols)
	}
}

// ---- 2-D convolution: out = W ⋆ x + b ----

// Conv is a 2-D convolution layer (cross-correlation, as PyTorch's Conv2d, its groups and dilation included):
// weights W [Out.C, In.C/Groups·KH·KW] (PyTorch's [out, in/groups, kh, kw], row-major), and for the backward
// pass each group's block of W transposed, [In.C/Groups·KH·KW, Out.C/Groups], one group after another (with
// one group, Wᵀ).
//
// Group g convolves input channels g·In.C/Groups … (g+1)·In.C/Groups − 1 into output channels
// g·Out.C/Groups … (g+1)·Out.C/Groups − 1; it is depthwise when Groups is In.C (MobileNet's, EfficientNet's).
type Conv struct {
	In, Out Shape
	Window  Window
	Groups  int // 1 for a plain convolution; divides In.C and Out.C
	W, WT   []float32
	B       []float32 // [Out.C]
}

// NewConv prepares a convolution over images of shape in with outC channels, from weights [outC·in.C·KH·KW]
// and biases [outC] (-0 biases become +0, as NewLayer's).
func NewConv(in Shape, outC int, win Window, w, b []float32) (Conv, error) {
	return NewConvGroups(in, outC, win, 1, w, b)
}

// NewConvGroups prepares a convolution over images of shape in with outC channels in groups (PyTorch's
// Conv2d(groups=groups); in.C and outC must both divide into them), from weights [outC·(in.C/groups)·KH·KW]
// and biases [outC] (-0 biases become +0, as NewLayer's). The window's dilation spaces its taps: the output is
// (in.H + 2·pad − dil·(KH−1) − 1)/stride + 1 high, and likewise wide.
func NewConvGroups(in Shape, outC int, win Window, groups int, w, b []float32) (Conv, error) {
	if err := win.check(in); err != nil {
		return Conv{}, fmt.Errorf("conv2d: %w", err)
	}
	if win.OutPadH != 0 || win.OutPadW != 0 {
		return Conv{}, fmt.Errorf("conv2d: output padding is a transposed convolution's")
	}
	if outC < 1 {
		return Conv{}, fmt.Errorf("conv2d: %d output channels", outC)
	}
	if err := checkGroups(in.C, outC, groups); err != nil {
		return Conv{}, fmt.Errorf("conv2d: %w", err)
	}
	dh, dw := win.dilation()
	oh, ow := dilatedOut(in.H, win.KH, win.StrideH, win.PadH, dh), dilatedOut(in.W, win.KW, win.StrideW, win.PadW, dw)
	kg := in.C / groups * win.KH * win.KW // a group's inputs to one output value
	switch {
	case oh < 1 || ow < 1:
		return Conv{}, fmt.Errorf("conv2d: a %d×%d kernel with dilation %d×%d does not fit a %v input with padding %d×%d", win.KH, win.KW, dh, dw, in, win.PadH, win.PadW)
	case len(w) != outC*kg || len(b) != outC:
		return Conv{}, fmt.Errorf("conv2d: %d weights and %d biases for %d×%d×%d×%d and %d", len(w), len(b), outC, in.C/groups, win.KH, win.KW, outC)
	}
	c := Conv{In: in, Out: Shape{outC, oh, ow}, Window: win, Groups: groups, W: w, WT: make([]float32, len(w)), B: make([]float32, outC)}
	transposeGroups(c.WT, w, groups, outC/groups, kg)
	for j, v := range b {
		c.B[j] = v + 0
	}
	return c, nil
}

func (c *Conv) geometry() geometry {
	return geometry{in: c.In, w: c.Window, outH: c.Out.H, outW: c.Out.W}
}

// groups is the layer's groups, a zero Groups (a literal's) read as 1.
func (c *Conv) groups() int { return max(c.Groups, 1) }

// MultiplyAdds is the layer's multiply-adds per image, forward.
func (c *Conv) MultiplyAdds() int {
	return c.Out.Size() * c.In.C / c.groups() * c.Window.KH * c.Window.KW
}

// scratch is the convolution's scratch (newConvScratch) for up to images images a call; a grouped convolution
// never multiplies sparse, and one with one input channel a group has its depthwise planes too.
func (c *Conv) scratch(images int, grad bool) convScratch {
	fw, bw := c.Out.C, c.Window.KH*c.Window.KW*c.In.C
	if c.groups() > 1 {
		fw, bw = 0, 0
	}
	s := newConvScratch(c.geometry(), c.In.Size(), c.Out.C, fw, bw, grad)
	if c.groups() > 1 && c.In.C == c.groups() {
		s.dw = newDepthwisePlanes(c, images, grad)
	}
	return s
}

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

	dw *depthwisePlanes // a convolution with one input channel a group: its planes (directDepthwise)
}

// newConvScratch prepares a convolution's scratch: geo over images of in values, with a gradient if grad; chans
// is the channels of the layer's other side (a convolution's output, a transposed convolution's input), and
// fwdWidth and bwdWidth the widths of the sparse products each pass would make (see sparseFor; 0 for none: a
// grouped layer's products are one per group, which the sparse products do not split).
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

// directDepthwise says whether a convolution with one input channel a group (depthwise, with a channel
// multiplier or not) runs as depthwisePlanes does rather than gathering its windows: the same products added in
// the same order, so the same bits (TestDepthwiseDirectKeepsBits); tests flip it.
var directDepthwise = true

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
// the biases, then W_g·gather(x)_g for each group g (group g's window rows and output channels are contiguous);
// sparse (one group only), each image's windows by position times Wᵀ from the biases, transposed into y. One
// input channel a group (depthwise), it runs through its planes instead, a chunk of images at a time.
func (s *convScratch) conv(l *Conv, x, y []float32, n int, compact bool) {
	K, P, C := s.geo.rows(), s.geo.cols(), l.Out.C
	G := l.groups()
	Kg, Cg := K/G, C/G
	in, outW := l.In.Size(), l.Out.Size()
	if s.dw != nil && directDepthwise {
		for r := 0; r < n; r += s.dw.chunk {
			nb := min(s.dw.chunk, n-r)
			s.dw.forward(l, x[r*in:(r+nb)*in], y[r*outW:(r+nb)*outW], nb)
		}
		return
	}
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
		for g := 0; g < G; g++ {
			kernel.MatMulAdd(l.W[g*Cg*Kg:], s.col[g*Kg*P:], yr[g*Cg*P:], Cg, Kg, P)
		}
	}
}

// convGrad adds the input gradients of n images, scatter(Wᵀ·∂out) image by image (W_gᵀ·∂out_g for each group g
// into its rows of the windows), from dy into dx. With fresh (dx all +0, as Backward clears it, and no other
// writer before), it scatters into dx itself: the same sums in the same order from the same +0, without a
// scratch image to clear and add. Sparse (one group only), Wᵀ·∂out is each image's ∂out channels by position
// times W, scattered through a map in the same order. Depthwise, through its planes.
func (s *convScratch) convGrad(l *Conv, dy, dx []float32, n int, fresh, compact bool) {
	K, P, C := s.geo.rows(), s.geo.cols(), l.Out.C
	G := l.groups()
	Kg, Cg := K/G, C/G
	in, outW := l.In.Size(), l.Out.Size()
	if s.dw != nil && directDepthwise { // adding its sums, from +0, to dx is as adding them to a fresh +0 first
		for r := 0; r < n; r += s.dw.chunk {
			nb := min(s.dw.chunk, n-r)
			s.dw.backward(l, dy[r*outW:(r+nb)*outW], dx[r*in:(r+nb)*in], nb)
		}
		return
	}
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
			for g := 0; g < G; g++ {
				kernel.MatMulAdd(l.WT[g*Kg*Cg:], dy[r*outW+g*Cg*P:], s.col[g*Kg*P:], Kg, Cg, P)
			}
			kernel.ScatterAddIdx(to, s.col, s.idx)
		}
		if !fresh {
			addInto(dx[r*in:(r+1)*in], s.dx)
		}
	}
}

// ---- a depthwise convolution without its windows gathered ----

// depthwiseSpan is about how many values of one channel's planes a depthwise pass covers (its chunk of images),
// and depthwiseChunk the most images it takes: each channel's product runs along that many values at a call. (In
// WebAssembly a call into the SIMD kernel costs about a microsecond: few long products.)
const (
	depthwiseSpan  = 2048
	depthwiseChunk = 64
)

// depthwisePlanes is how a convolution with one input channel a group (depthwise, with a channel multiplier m =
// Out.C/Groups or not) runs without its windows gathered and scattered image by image, around products too small
// to pay for that ([m × KH·KW]·[KH·KW × P] a group). Each input channel of a chunk of images is laid out zero-
// padded and split by the stride's phases (padded pixel (py, px) in phase (py mod sH, px mod sW), at (py/sH,
// px/sW) of a plane hq × wq), and each output channel as planes of that size (output (oy, ox) at (oy, ox)): tap
// (ky, kx) of every output of a channel then reads the input planes at one offset from the output's place. So a
// channel's windows for the whole chunk are KH·KW shifted copies of its planes (memmove, not a gather by index),
// and its outputs one product W_g·cols_g by the kernel; backward, ∂x's planes of a phase are the phase's taps'
// weights times as many shifted copies of ∂out's planes (one input channel a group), or W_gᵀ·∂out_g added
// shifted (a multiplier). Each output gets the general path's products (W_g·gather(x)_g, the padding's +0
// included) in its order from its bias, and each ∂x value its taps' columns of W_gᵀ·∂out_g in order from +0,
// as the scatter adds them: the same bits (TestDepthwiseDirectKeepsBits). The other places of the planes (the
// output planes past the outputs, ∂x's padding) take values that are dropped; ∂out's planes are +0 but at the
// outputs, and their products (w·0, ±0) leave the ∂x sums unchanged. Images and their gradients move in and out
// of the planes through maps (kernel.ScatterAddIdx, GatherIdx, ScatterAddPairs: matmul.wasm's loops in
// WebAssembly); added into cleared planes, a -0 becomes +0, whose products (±0) leave every sum as it was.
type depthwisePlanes struct {
	in             Shape
	outH, outW, m  int
	sh, sw, ph, pw int
	hq, wq, plane  int       // a plane: hq·wq values
	chunk          int       // images a pass
	si, so         int       // one channel's planes in a pass: input sH·sW·chunk planes (phase-major), output chunk
	offs           []int     // per tap k = ky·KW + kx: where it reads in a channel's input planes from an output's place
	phases         [][]int   // per phase of the input planes, its taps in order
	xp, yw         []float32 // the input's planes [C·si + slack], the outputs' [Out.C·so]
	cols           []float32 // a channel's windows [KH·KW × so]; backward, ∂out's shifted copies or W_gᵀ·∂out_g
	dyw, dxp, wt   []float32 // ∂out's planes [Out.C·so], ∂x's [C·si], a phase's taps' weights

	// Per number nb of images in a pass, the maps of its first nb images' values (image-major) to their places:
	// the input's (xIn) and the outputs' (outOf) in the planes, and ∂x's from its planes (dxFrom).
	xIn, outOf []kernel.Index
	dxFrom     []*kernel.Pairs
}

// newDepthwisePlanes prepares l's planes for up to images images a call, with ∂x's if grad.
func newDepthwisePlanes(l *Conv, images int, grad bool) *depthwisePlanes {
	w := l.Window
	dh, dw := w.dilation()
	p := &depthwisePlanes{in: l.In, outH: l.Out.H, outW: l.Out.W, m: l.Out.C / l.groups(), sh: w.StrideH, sw: w.StrideW, ph: w.PadH, pw: w.PadW}
	p.hq, p.wq = (l.In.H+2*w.PadH+p.sh-1)/p.sh, (l.In.W+2*w.PadW+p.sw-1)/p.sw
	p.plane = p.hq * p.wq
	p.chunk = max(1, min(images, depthwiseChunk, depthwiseSpan/p.plane))
	p.so = p.chunk * p.plane
	p.si = p.sh * p.sw * p.so
	kk := w.KH * w.KW
	p.offs, p.phases = make([]int, kk), make([][]int, p.sh*p.sw)
	slack := 0
	for ky := 0; ky < w.KH; ky++ {
		for kx := 0; kx < w.KW; kx++ {
			a, b := ky*dh, kx*dw
			phase, within := (a%p.sh)*p.sw+b%p.sw, a/p.sh*p.wq+b/p.sw
			p.offs[ky*w.KW+kx] = phase*p.so + within
			p.phases[phase] = append(p.phases[phase], ky*w.KW+kx)
			slack = max(slack, within)
		}
	}
	// The last channel's last phase is read up to slack values past its end.
	p.xp, p.yw, p.cols = make([]float32, l.In.C*p.si+slack), make([]float32, l.Out.C*p.so), make([]float32, kk*p.so)
	in, out, H, W, P := l.In.Size(), l.Out.Size(), l.In.H, l.In.W, l.Out.H*l.Out.W
	xIdx, outIdx := make([]int32, p.chunk*in), make([]int32, p.chunk*out)
	for b := 0; b < p.chunk; b++ {
		for c := 0; c < l.In.C; c++ {
			for iy := 0; iy < H; iy++ {
				for ix := 0; ix < W; ix++ {
					xIdx[b*in+(c*H+iy)*W+ix] = int32(c*p.si + p.place(b, iy+p.ph, ix+p.pw))
				}
			}
		}
		for o := 0; o < l.Out.C; o++ {
			for oy := 0; oy < p.outH; oy++ {
				for ox := 0; ox < p.outW; ox++ {
					outIdx[b*out+o*P+oy*p.outW+ox] = int32(o*p.so + b*p.plane + oy*p.wq + ox)
				}
			}
		}
	}
	p.xIn, p.outOf = make([]kernel.Index, p.chunk+1), make([]kernel.Index, p.chunk+1)
	for nb := 1; nb <= p.chunk; nb++ {
		p.xIn[nb], p.outOf[nb] = kernel.NewIndex(xIdx[:nb*in]), kernel.NewIndex(outIdx[:nb*out])
	}
	if grad {
		p.dyw, p.dxp, p.wt = make([]float32, l.Out.C*p.so), make([]float32, l.In.C*p.si), make([]float32, kk)
		self := make([]int32, p.chunk*in)
		for j := range self {
			self[j] = int32(j)
		}
		p.dxFrom = make([]*kernel.Pairs, p.chunk+1)
		for nb := 1; nb <= p.chunk; nb++ {
			p.dxFrom[nb] = kernel.NewPairs(self[:nb*in], xIdx[:nb*in])
		}
	}
	return p
}

// place is where padded pixel (py, px) of image b lies in a channel's input planes.
func (p *depthwisePlanes) place(b, py, px int) int {
	return ((py%p.sh)*p.sw+px%p.sw)*p.so + b*p.plane + py/p.sh*p.wq + px/p.sw
}

// forward runs the convolution l on nb ≤ chunk images x into y.
func (p *depthwisePlanes) forward(l *Conv, x, y []float32, nb int) {
	clear(p.xp) // the padding, and the images past nb
	kernel.ScatterAddIdx(p.xp, x[:nb*p.in.Size()], p.xIn[nb])
	for o := 0; o < l.Out.C; o++ {
		fillRows(p.yw[o*p.so:], l.B[o:o+1], p.so)
	}
	kk := len(p.offs)
	for c := 0; c < p.in.C; c++ {
		for k, off := range p.offs {
			copy(p.cols[k*p.so:(k+1)*p.so], p.xp[c*p.si+off:])
		}
		kernel.MatMulAdd(l.W[c*p.m*kk:], p.cols, p.yw[c*p.m*p.so:], p.m, kk, p.so)
	}
	kernel.GatherIdx(y[:nb*l.Out.Size()], p.yw, p.outOf[nb])
}

// backward adds the input gradients of nb ≤ chunk images, from dy, to dx (which holds no -0).
func (p *depthwisePlanes) backward(l *Conv, dy, dx []float32, nb int) {
	clear(p.dyw) // ∂out's planes: +0 but at the outputs
	kernel.ScatterAddIdx(p.dyw, dy[:nb*l.Out.Size()], p.outOf[nb])
	clear(p.dxp)
	kk := len(p.offs)
	for c := 0; c < p.in.C; c++ {
		if p.m > 1 {
			// Each tap's column of W_gᵀ·∂out_g (summed over the group's outputs from +0), added where it reads:
			// within its phase, as the outputs' places shifted by the tap's offset are.
			clear(p.cols)
			kernel.MatMulAdd(l.WT[c*kk*p.m:], p.dyw[c*p.m*p.so:], p.cols, kk, p.m, p.so)
			for k, off := range p.offs {
				within := off % p.so
				addInto(p.dxp[c*p.si+off:], p.cols[k*p.so:(k+1)*p.so-within])
			}
			continue
		}
		// One output a group: ∂x's planes of each phase are its taps' w·∂out (one product from +0, w·d but for
		// -0, which adds as +0 does), summed in tap order: ∂out's planes shifted back by each tap's offset.
		for phase, taps := range p.phases {
			if len(taps) == 0 {
				continue
			}
			for i, k := range taps {
				within := p.offs[k] - phase*p.so
				row := p.cols[i*p.so : (i+1)*p.so]
				clear(row[:within])
				copy(row[within:], p.dyw[c*p.so:])
				p.wt[i] = l.W[c*kk+k]
			}
			kernel.MatMulAdd(p.wt, p.cols, p.dxp[c*p.si+phase*p.so:], 1, len(taps), p.so)
		}
	}
	kernel.ScatterAddPairs(dx[:nb*p.in.Size()], p.dxp, p.dxFrom[nb])
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
	o := &convOp{x: x, out: out, l: l, convScratch: l.scratch(g.capacity*x.PerPoint, x.Grad != nil)}
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

// ConvTranspose is a 2-D transposed convolution (PyTorch's ConvTranspose2d, its groups and dilation included):
// weights W [In.C, Out.C/Groups·KH·KW] (PyTorch's [in, out/groups, kh, kw], row-major), and each group's block
// of W transposed, [Out.C/Groups·KH·KW, In.C/Groups], one group after another (with one group, Wᵀ).
//
// Group g spreads input channels g·In.C/Groups … (g+1)·In.C/Groups − 1 over output channels
// g·Out.C/Groups … (g+1)·Out.C/Groups − 1.
type ConvTranspose struct {
	In, Out Shape
	Window  Window
	Groups  int // 1 for a plain transposed convolution; divides In.C and Out.C
	W, WT   []float32
	B       []float32 // [Out.C]
}

// NewConvTranspose prepares a transposed convolution over images of shape in with outC channels, whose output
// is (in.H−1)·stride − 2·pad + kernel + output padding high (and likewise wide).
func NewConvTranspose(in Shape, outC int, win Window, w, b []float32) (ConvTranspose, error) {
	return NewConvTransposeGroups(in, outC, win, 1, w, b)
}

// NewConvTransposeGroups prepares a transposed convolution over images of shape in with outC channels in groups
// (PyTorch's ConvTranspose2d(groups=groups); in.C and outC must both divide into them), from weights
// [in.C·(outC/groups)·KH·KW] and biases [outC]. Its output is (in.H−1)·stride − 2·pad + dil·(KH−1) + output
// padding + 1 high, and likewise wide.
func NewConvTransposeGroups(in Shape, outC int, win Window, groups int, w, b []float32) (ConvTranspose, error) {
	if err := win.check(in); err != nil {
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: %w", err)
	}
	if outC < 1 {
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: %d output channels", outC)
	}
	if err := checkGroups(in.C, outC, groups); err != nil {
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: %w", err)
	}
	dh, dw := win.dilation()
	oh := (in.H-1)*win.StrideH - 2*win.PadH + dh*(win.KH-1) + win.OutPadH + 1
	ow := (in.W-1)*win.StrideW - 2*win.PadW + dw*(win.KW-1) + win.OutPadW + 1
	kg := outC / groups * win.KH * win.KW // the values one input value spreads over
	switch {
	case oh < 1 || ow < 1:
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: output %d×%d from a %v input", oh, ow, in)
	case len(w) != in.C*kg || len(b) != outC:
		return ConvTranspose{}, fmt.Errorf("conv-transpose2d: %d weights and %d biases for %d×%d×%d×%d and %d", len(w), len(b), in.C, outC/groups, win.KH, win.KW, outC)
	}
	c := ConvTranspose{In: in, Out: Shape{outC, oh, ow}, Window: win, Groups: groups, W: w, WT: make([]float32, len(w)), B: make([]float32, outC)}
	transposeGroups(c.WT, w, groups, in.C/groups, kg)
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

// groups is the layer's groups, a zero Groups (a literal's) read as 1.
func (c *ConvTranspose) groups() int { return max(c.Groups, 1) }

// MultiplyAdds is the layer's multiply-adds per image, forward.
func (c *ConvTranspose) MultiplyAdds() int {
	return c.In.Size() * c.Out.C / c.groups() * c.Window.KH * c.Window.KW
}

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
	fw, bw := l.Out.C*l.Window.KH*l.Window.KW, l.In.C
	if l.groups() > 1 { // a grouped layer never multiplies sparse
		fw, bw = 0, 0
	}
	o := &convTransposeOp{x: x, out: out, l: l, convScratch: newConvScratch(l.geometry(), l.In.Size(), l.In.C, fw, bw, x.Grad != nil)}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *convTransposeOp) wireSparse() { o.convScratch.wireSparse(o.x, o.out) }

// forward: out = b + scatter(Wᵀ·x), image by image (W_gᵀ·x_g for each group g into its rows of the windows);
// sparse (one group only), Wᵀ·x is x's channels by position times W, scattered through a map in the same order.
func (o *convTransposeOp) forward() {
	K, P, C := o.geo.rows(), o.geo.cols(), o.l.In.C
	G := o.l.groups()
	Kg, Cg := K/G, C/G
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
		x := o.x.Row(r)
		for g := 0; g < G; g++ {
			kernel.MatMulAdd(o.l.WT[g*Kg*Cg:], x[g*Cg*P:], o.col[g*Kg*P:], Kg, Cg, P)
		}
		kernel.ScatterAddIdx(y, o.col, o.idx)
	}
}

// backward: ∂x = W·gather(∂out), image by image (W_g·gather(∂out)_g for each group g); sparse (one group only),
// ∂out's windows by position times Wᵀ, transposed.
func (o *convTransposeOp) backward() {
	if o.x.Grad == nil {
		return
	}
	K, P, C := o.geo.rows(), o.geo.cols(), o.l.In.C
	G := o.l.groups()
	Kg, Cg := K/G, C/G
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
			for g := 0; g < G; g++ {
				kernel.MatMulAdd(o.l.W[g*Cg*Kg:], o.col[g*Kg*P:], dx[g*Cg*P:], Cg, Kg, P)
			}
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
// folded into its input channels' weights. The layers may be grouped, all alike.
func (g *Graph) ConvSamples(x *Tensor, layers []Conv) *Tensor {
	if x.PerPoint != 1 && x.PerPoint != len(layers) {
		panic("engine: ConvSamples input is neither per point nor per sample")
	}
	for i := range layers {
		if layers[i].In != layers[0].In || layers[i].Out != layers[0].Out || layers[i].Window != layers[0].Window ||
			layers[i].groups() != layers[0].groups() || x.Cols != layers[i].In.Size() {
			panic("engine: ConvSamples layers do not match each other or the input")
		}
	}
	out := g.newTensor(layers[0].Out.Size(), len(layers), x.Grad != nil)
	o := &convSamplesOp{x: x, out: out, layers: layers, convScratch: layers[0].scratch(g.capacity, x.Grad != nil)}
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
