package engine

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"

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
// kernel.AddTo: on the SIMD kernels (WebAssembly's, AVX) as a product by 1, each sum rounded once, as in Go.
func addInto(dst, src []float32) {
	dst = dst[:len(src)]
	kernel.AddTo(dst, dst, src)
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

	cache *convCache // what the graphs running the layer share (NewConvGroups makes it)
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
	c := Conv{In: in, Out: Shape{outC, oh, ow}, Window: win, Groups: groups, W: w, WT: make([]float32, len(w)), B: make([]float32, outC), cache: new(convCache)}
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
		s.dwr = newDepthwiseRows(c)
	}
	w := c.Window
	s.pointwise = w.KH == 1 && w.KW == 1 && w.StrideH == 1 && w.StrideW == 1 && w.PadH == 0 && w.PadW == 0
	if !s.pointwise && s.dw == nil {
		s.in = newInterior(c, s.idx)
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

	in  *interior        // a convolution of stride 1 and "same" padding, natively: its outputs inside read in place
	dwr *depthwiseRows   // a depthwise convolution of stride 1, natively (directDepthwise): its rows' plans
	dw  *depthwisePlanes // a convolution with one input channel a group: its planes (directDepthwise); or planes chosen

	pointwise        bool       // the windows are the image itself (1×1, stride 1, no padding): nothing to gather
	planes           bool       // the convolution runs in planes (dw), chosen for it (chooseLayout)
	rows             *rowLayout // the chunked im2row layout, where a pass runs in it (chooseLayout)
	rowsFwd, rowsBwd bool       // which passes do
}

// newConvScratch prepares a convolution's scratch: geo over images of in values, with a gradient if grad; chans
// is the channels of the layer's other side (a convolution's output, a transposed convolution's input), and
// fwdWidth and bwdWidth the widths of the sparse products each pass would make (see sparseFor; 0 for none: a
// grouped layer's products are one per group, which the sparse products do not split).
func newConvScratch(geo geometry, in, chans, fwdWidth, bwdWidth int, grad bool) convScratch {
	s := convScratch{geo: geo, idx: geo.index().WithRuns(), col: make([]float32, geo.rows()*geo.cols())}
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

// sparseMinWidth is the narrowest sparse product that may run: each row's entries run once per block of up to
// 32 of the weights' columns, so a narrow one runs them for a few columns each (a first convolution's input
// gradient, 9 wide).
const sparseMinWidth = 16

// sparseAnyWidth lets every pass at least sparseMinWidth wide multiply sparse, not only those sparsePays picks:
// tests set it to run the sparse products on small layers.
var sparseAnyWidth = false

// sparseFor says whether a pass whose sparse product is width wide may multiply sparse: where sparsePays.
func sparseFor(width int) bool {
	return sparseProducts && width >= sparseMinWidth && (sparseAnyWidth || sparsePays(width))
}

// sparsePays says whether a sparse product width wide outruns the dense one (the listing and the product by
// position against the gather and the kernel's product): where it runs full blocks of 32 columns, at least two
// of them, or more than three blocks. Measured in WebAssembly with the SIMD kernel on the example ResNet's
// convolutions (8 to 32 channels; issue 39) and the Fashion models': a product 16 or 32 wide (a convolution's
// forward pass into 16 or 32 channels, the last transposed convolution's into one) ran 0–50 % slower sparse than
// dense, and so did one 72 wide (a 3×3 convolution's input gradient from 8 channels: blocks of 32, 32 and 8);
// 64 (Fashion's 32→64 convolution), 144, 256, 288 and 512 wide about as fast or faster (Fashion: −25 %).
func sparsePays(width int) bool { return width >= 128 || width >= 64 && width%32 == 0 }

// depthwiseRows runs a depthwise convolution of stride 1 or 2 (one input and one output channel a group, any
// window, padding and dilation) an image's channels at a call with kernel.DepthwisePlanes, natively with AVX-512:
// each output's sum from the bias over the taps in order, 16 outputs a vector (along the flattened plane, four
// channels at once, where input and output rows are as wide), reading the input where it lies; the input gradient
// alike, the taps negated, from +0, added to ∂x. The same products added in the same order as the
// planes' and the windows' products (the padding's products there are ±0, which change no sum), so the same bits
// (TestDepthwiseRowsKeepBits). A stride of s runs the convolution of stride 1 into a scratch plane and keeps every
// s-th output of every s-th row (those are the strided outputs, the same sums); backward, ∂out is spread onto a
// plane of +0 at those places, whose other products (w·0, ±0) leave the sums as they are: s² times the products,
// at the rows' rate (for s = 2, measured 1.7–2.6× faster than the planes). Elsewhere nil: the planes run.
type depthwiseRows struct {
	fwd, bwd *kernel.DepthwisePlan
	sh, sw   int
	full, up []float32 // strided: a chunk of channels' outputs at stride 1, and their ∂out spread out (nil: stride 1)
	chunk    int       // strided: the channels in full and up
}

// depthwiseByRows says whether depthwise convolutions run by rows where they can (newDepthwiseRows); tests flip it
// to run the planes instead.
var depthwiseByRows = true

// newDepthwiseRows is c's depthwiseRows, or nil where kernel.Depthwise has no native loop or c is not a depthwise
// convolution of stride 1 or 2.
func newDepthwiseRows(c *Conv) *depthwiseRows {
	w := c.Window
	if !kernel.DepthwiseNative || !depthwiseByRows || c.Out.C != c.In.C || w.StrideH > 2 || w.StrideW > 2 {
		return nil
	}
	dh, dw := w.dilation()
	var dy, dx, ny, nx []int32
	for ky := 0; ky < w.KH; ky++ {
		for kx := 0; kx < w.KW; kx++ {
			y, x := int32(ky*dh-w.PadH), int32(kx*dw-w.PadW)
			dy, dx, ny, nx = append(dy, y), append(dx, x), append(ny, -y), append(nx, -x)
		}
	}
	d := &depthwiseRows{sh: w.StrideH, sw: w.StrideW}
	oh, ow := c.Out.H, c.Out.W
	if d.sh > 1 || d.sw > 1 {
		oh, ow = dilatedOut(c.In.H, w.KH, 1, w.PadH, dh), dilatedOut(c.In.W, w.KW, 1, w.PadW, dw)
		// channels in chunks of four (DepthwisePlanes' step) whose planes at stride 1 fit about depthwiseSpan
		// values, so they are read again from the cache
		d.chunk = min(c.In.C, max(4, depthwiseSpan/(oh*ow)/4*4))
		d.full, d.up = make([]float32, d.chunk*oh*ow), make([]float32, d.chunk*oh*ow)
	}
	d.fwd = kernel.NewDepthwisePlan(oh, ow, c.In.H, c.In.W, dy, dx)
	d.bwd = kernel.NewDepthwisePlan(c.In.H, c.In.W, oh, ow, ny, nx)
	return d
}

// forward runs l on n images x into y, an image's channels at a call (strided: a chunk of them).
func (d *depthwiseRows) forward(l *Conv, x, y []float32, n int) {
	C, inP, outP := l.In.C, l.In.H*l.In.W, l.Out.H*l.Out.W
	for r := 0; r < n; r++ {
		in, out := x[r*C*inP:(r+1)*C*inP], y[r*C*outP:(r+1)*C*outP]
		if d.full == nil {
			kernel.DepthwisePlanes(out, in, l.W, l.B, d.fwd, C, false)
			continue
		}
		T, fullP := len(d.fwd.DX), d.fwd.OutH*d.fwd.OutW
		for c0 := 0; c0 < C; c0 += d.chunk {
			m := min(d.chunk, C-c0)
			kernel.DepthwisePlanes(d.full, in[c0*inP:], l.W[c0*T:], l.B[c0:], d.fwd, m, false)
			for c := range m {
				plane, o := d.full[c*fullP:(c+1)*fullP], out[(c0+c)*outP:(c0+c+1)*outP]
				for oy := 0; oy < l.Out.H; oy++ {
					row := plane[oy*d.sh*d.fwd.OutW:]
					for ox := range l.Out.W {
						o[oy*l.Out.W+ox] = row[ox*d.sw]
					}
				}
			}
		}
	}
}

// backward adds the input gradients of n images, from dy, to dx, an image's channels at a call (strided: a chunk
// of them).
func (d *depthwiseRows) backward(l *Conv, dy, dx []float32, n int) {
	C, inP, outP := l.In.C, l.In.H*l.In.W, l.Out.H*l.Out.W
	for r := 0; r < n; r++ {
		g, gx := dy[r*C*outP:(r+1)*C*outP], dx[r*C*inP:(r+1)*C*inP]
		if d.full == nil {
			kernel.DepthwisePlanes(gx, g, l.W, nil, d.bwd, C, true)
			continue
		}
		T, upP := len(d.fwd.DX), d.fwd.OutH*d.fwd.OutW
		for c0 := 0; c0 < C; c0 += d.chunk {
			m := min(d.chunk, C-c0)
			for c := range m { // ∂out at the strided places of planes of +0 (their other places stay +0)
				plane, gc := d.up[c*upP:(c+1)*upP], g[(c0+c)*outP:(c0+c+1)*outP]
				for oy := 0; oy < l.Out.H; oy++ {
					row := plane[oy*d.sh*d.fwd.OutW:]
					for ox := range l.Out.W {
						row[ox*d.sw] = gc[oy*l.Out.W+ox]
					}
				}
			}
			kernel.DepthwisePlanes(gx[c0*inP:], d.up, l.W[c0*T:], nil, d.bwd, m, true)
		}
	}
}

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

// fillBiases sets n images of y (rows of len(b)·P values) to their channels' biases: the first by fillBias, the
// others copied from it, one copy an image rather than a few a channel (which took 5 % of Fashion's step). Not
// fillRows's doubling copies: from a first image still in the cache they ran MobileNet's 16→96 pointwise
// convolution 1.7× faster than copies of up to half the batch's outputs at once.
func fillBiases(y, b []float32, P, n int) {
	size := len(b) * P
	if n == 0 {
		return
	}
	fillBias(y[:size], b, P)
	for r := 1; r < n; r++ {
		copy(y[r*size:(r+1)*size], y[:size])
	}
}

// conv runs the convolution l on n images x (rows of l.In.Size()) into y (rows of l.Out.Size()), image by image:
// the biases, then W_g·gather(x)_g for each group g (group g's window rows and output channels are contiguous);
// sparse (one group only), each image's windows by position times Wᵀ from the biases, transposed into y. One
// input channel a group (depthwise), it runs through its planes instead, a chunk of images at a time (natively at
// a stride of 1 with one output channel a group, by rows: depthwiseRows); and as
// chooseLayout chose, in planes or a chunk of images' windows in rows (the sparse products first where wired).
// l is layer li of the op (a convolution per MC sample has one a sample), whose row weights the layout keeps.
func (s *convScratch) conv(l *Conv, li int, x, y []float32, n int, compact bool) {
	K, P, C := s.geo.rows(), s.geo.cols(), l.Out.C
	G := l.groups()
	Kg, Cg := K/G, C/G
	in, outW := l.In.Size(), l.Out.Size()
	sparse := s.sparseFwd && compact
	if kernel.DepthwiseNative && s.dwr != nil && directDepthwise { // (a constant false in WebAssembly: not linked)
		s.dwr.forward(l, x, y, n)
		return
	}
	if s.dw != nil && (s.planes && !sparse || !s.planes && directDepthwise) {
		for r := 0; r < n; r += s.dw.chunk {
			nb := min(s.dw.chunk, n-r)
			s.dw.forward(l, x[r*in:(r+nb)*in], y[r*outW:(r+nb)*outW], nb)
		}
		return
	}
	if s.rowsFwd && !sparse {
		s.rows.forward(l, li, x, y, n)
		return
	}
	if s.in != nil && !sparse && interiorInPlace {
		s.in.forward(l, x, y, n)
		return
	}
	if !sparse && !kernel.InitNative {
		fillBiases(y, l.B, P, n)
	}
	for r := 0; r < n; r++ {
		yr := y[r*outW : (r+1)*outW]
		if sparse {
			s.byPos.SetGather(x[r*in:(r+1)*in], s.byPosMap)
			fillRows(s.t, l.B, P)
			kernel.MatMulAddSparse(s.byPos, l.WT, s.t, C, false)
			kernel.Transpose(yr, s.t, P, C)
			continue
		}
		col := x[r*in : (r+1)*in] // pointwise: the windows are the image
		if !s.pointwise {
			col = s.col
			kernel.GatherIdx(col, x[r*in:(r+1)*in], s.idx)
		}
		for g := 0; g < G; g++ { // from the biases: the kernel's tiles start there, or fillBiases set them
			if kernel.InitNative {
				kernel.MatMulInitT(l.W[g*Cg*Kg:], l.WT[g*Kg*Cg:], col[g*Kg*P:], yr[g*Cg*P:], l.B[g*Cg:(g+1)*Cg], Cg, Kg, P)
			} else {
				kernel.MatMulAddT(l.W[g*Cg*Kg:], l.WT[g*Kg*Cg:], col[g*Kg*P:], yr[g*Cg*P:], Cg, Kg, P)
			}
		}
	}
}

// interior runs a convolution of stride 1 whose output is its input's size (padding d·(k−1)/2: "same") image by
// image without gathering most of its windows: its outputs whose windows lie inside the image are a run of
// consecutive positions of the flattened image, p0 … p0+n−1, and tap (ci, ky, kx) of all of them reads the
// image's channel ci at one offset from each, so one product of W_g by rows of the image read where they lie
// (kernel.MatMulAddRows) adds them onto the biases. That run also holds the outputs of the interior rows' first
// and last columns, whose windows wrap across rows; they and the first and last rows' outputs (the border) are
// then computed as image by image computes them, from their windows gathered (+0 outside the image) by a
// product from the biases, and copied over. The same products added in the same order: the same bits
// (TestConvLayoutsKeepBits, TestInteriorKeepsBits). Natively with AVX-512 (kernel.RowsInPlace), where the
// border is at most a quarter of the outputs and a group's windows at least 32 values; elsewhere nil. (Measured
// side by side, BenchmarkConvShapes, batch 50: the example's 3×3 8→8 at 28×28, border 14 %, 1.41 → 1.33 ms; its
// 16→16 at 14×14, border 27 %, as fast either way; at 7×7, border 49 %, 32→32 1.17 → 1.44 and resnet18's 64→64
// 4.0 → 4.9; its 1→8 at 28×28, 9 values a window, 0.20 → 0.26, where the kernels start from the biases.)
type interior struct {
	p0, n  int       // the interior's run of positions
	offs   [][]int32 // per group, the product's rows: tap (ci, k) of the group's input channels in the image
	border []int32   // the border's positions
	idx    kernel.Index
	cols   []float32 // the border's windows [K × len(border)]
	out    []float32 // its outputs [C × len(border)]
}

// interiorInPlace says whether convolutions with an interior run it (tests flip it).
var interiorInPlace = true

// newInterior is l's interior, or nil (see interior), with idx its windows' map (geometry.index).
func newInterior(l *Conv, idx kernel.Index) *interior {
	w := l.Window
	dh, dw := w.dilation()
	H, W, P := l.In.H, l.In.W, l.Out.H*l.Out.W
	if !kernel.RowsInPlace || w.StrideH != 1 || w.StrideW != 1 || l.Out.H != H || l.Out.W != W ||
		2*w.PadH != dh*(w.KH-1) || 2*w.PadW != dw*(w.KW-1) {
		return nil
	}
	ph, pw := w.PadH, w.PadW
	in := &interior{p0: ph*W + pw, n: (H-2*ph)*W - 2*pw}
	if in.n <= 0 {
		return nil
	}
	for oy := 0; oy < H; oy++ {
		for ox := 0; ox < W; ox++ {
			if oy < ph || oy >= H-ph || ox < pw || ox >= W-pw {
				in.border = append(in.border, int32(oy*W+ox))
			}
		}
	}
	G := l.groups()
	cig, kk := l.In.C/G, w.KH*w.KW
	if 4*len(in.border) > P || cig*kk < 32 {
		return nil
	}
	in.offs = make([][]int32, G)
	for g := range in.offs {
		for ci := 0; ci < cig; ci++ {
			for ky := 0; ky < w.KH; ky++ {
				for kx := 0; kx < w.KW; kx++ {
					off := (g*cig+ci)*H*W + in.p0 + (ky*dh-ph)*W + kx*dw - pw
					in.offs[g] = append(in.offs[g], int32(off))
				}
			}
		}
	}
	K, nb := l.In.C*kk, len(in.border)
	bi := make([]int32, K*nb)
	for k := 0; k < K; k++ {
		for j, pos := range in.border {
			bi[k*nb+j] = int32(idx.At(k*P + int(pos)))
		}
	}
	in.idx = kernel.NewIndex(bi).WithRuns()
	in.cols, in.out = make([]float32, K*nb), make([]float32, l.Out.C*nb)
	return in
}

// forward runs l on n images x into y.
func (in *interior) forward(l *Conv, x, y []float32, n int) {
	G := l.groups()
	C, inS, outS, P, nb := l.Out.C, l.In.Size(), l.Out.Size(), l.Out.H*l.Out.W, len(in.border)
	Cg, Kg := C/G, len(in.offs[0])
	fillBiases(y, l.B, P, n)
	for r := 0; r < n; r++ {
		xr, yr := x[r*inS:(r+1)*inS], y[r*outS:(r+1)*outS]
		for g := 0; g < G; g++ {
			kernel.MatMulAddRows(l.W[g*Cg*Kg:], xr, in.offs[g], yr[g*Cg*P+in.p0:], Cg, Kg, in.n, P)
		}
		kernel.GatherIdx(in.cols, xr, in.idx)
		for g := 0; g < G; g++ {
			kernel.MatMulInitT(l.W[g*Cg*Kg:], l.WT[g*Kg*Cg:], in.cols[g*Kg*nb:], in.out[g*Cg*nb:], l.B[g*Cg:(g+1)*Cg], Cg, Kg, nb)
		}
		for c := 0; c < C; c++ {
			plane, out := yr[c*P:(c+1)*P], in.out[c*nb:(c+1)*nb]
			for j, pos := range in.border {
				plane[pos] = out[j]
			}
		}
	}
}

// convGrad adds the input gradients of n images, scatter(Wᵀ·∂out) image by image (W_gᵀ·∂out_g for each group g
// into its rows of the windows), from dy into dx. With fresh (dx all +0, as Backward clears it, and no other
// writer before), it scatters into dx itself: the same sums in the same order from the same +0, without a
// scratch image to clear and add. Sparse (one group only), Wᵀ·∂out is each image's ∂out channels by position
// times W, scattered through a map in the same order. Depthwise, through its planes (or by rows: depthwiseRows);
// and as chooseLayout chose, in planes or in rows.
func (s *convScratch) convGrad(l *Conv, li int, dy, dx []float32, n int, fresh, compact bool) {
	K, P, C := s.geo.rows(), s.geo.cols(), l.Out.C
	G := l.groups()
	Kg, Cg := K/G, C/G
	in, outW := l.In.Size(), l.Out.Size()
	sparse := s.sparseBwd && compact
	if kernel.DepthwiseNative && s.dwr != nil && directDepthwise {
		s.dwr.backward(l, dy, dx, n)
		return
	}
	if s.dw != nil && (s.planes && !sparse || !s.planes && directDepthwise) {
		// Adding its sums, from +0, to dx is as adding them to a fresh +0 first.
		for r := 0; r < n; r += s.dw.chunk {
			nb := min(s.dw.chunk, n-r)
			s.dw.backward(l, dy[r*outW:(r+nb)*outW], dx[r*in:(r+nb)*in], nb)
		}
		return
	}
	if s.rowsBwd && !sparse {
		s.rows.backward(l, li, dy, dx, n, fresh)
		return
	}
	for r := 0; r < n; r++ {
		to := dx[r*in : (r+1)*in]
		if !fresh {
			to = s.dx
			if sparse || !s.pointwise { // scattered into: from +0 (a pointwise product sets every value)
				clear(to)
			}
		}
		switch {
		case sparse:
			s.chans.SetTranspose(dy[r*outW : (r+1)*outW])
			kernel.MatMulAddSparse(s.chans, l.W, s.t, K, true)
			kernel.ScatterAddPairs(to, s.t, s.fromPos)
		case s.pointwise:
			// The windows' gradients are ∂x's, each added once to +0: the products land in to itself, from +0
			// (the groups' rows cover it).
			for g := 0; g < G; g++ {
				kernel.MatMulInitT(l.WT[g*Kg*Cg:], l.W[g*Cg*Kg:], dy[r*outW+g*Cg*P:], to[g*Kg*P:], nil, Kg, Cg, P)
			}
		default:
			for g := 0; g < G; g++ { // the windows' gradients from +0
				kernel.MatMulInitT(l.WT[g*Kg*Cg:], l.W[g*Cg*Kg:], dy[r*outW+g*Cg*P:], s.col[g*Kg*P:], nil, Kg, Cg, P)
			}
			kernel.ScatterAddIdx(to, s.col, s.idx)
		}
		if !fresh {
			addInto(dx[r*in:(r+1)*in], s.dx)
		}
	}
}

// ---- a depthwise convolution (or any, where it pays) without its windows gathered ----

// depthwiseSpan is about how many values of one channel's planes a depthwise pass covers (its chunk of images),
// and depthwiseChunk the most images it takes: each channel's product runs along that many values at a call. (In
// WebAssembly a call into the SIMD kernel costs about a microsecond: few long products.)
const (
	depthwiseSpan  = 2048
	depthwiseChunk = 64
	planesValues   = 1 << 17 // the most values of a group's windows a pass (its span is shorter for many channels)
)

// depthwisePlanes is how a convolution with one input channel a group (depthwise, with a channel multiplier m =
// Out.C/Groups or not) runs without its windows gathered and scattered image by image, around products too small
// to pay for that ([m × KH·KW]·[KH·KW × P] a group); and any convolution whose cost model chooses it
// (layoutPlanes: few channels over large images, whose gathers by index cost more than their products), a group's
// windows then its input channels' shifted copies one after another. Each input channel of a chunk of images is
// laid out zero-padded and split by the stride's phases (padded pixel (py, px) in phase (py mod sH, px mod sW),
// at (py/sH, px/sW) of a plane hq × wq), and each output channel as planes of that size (output (oy, ox) at (oy,
// ox)): tap (ky, kx) of every output of a channel then reads the input planes at one offset from the output's
// place. So a channel's windows for the whole chunk are KH·KW shifted copies of its planes (memmove, not a gather
// by index), and its outputs one product W_g·cols_g by the kernel; backward, ∂x's planes of a phase are the
// phase's taps' weights times as many shifted copies of ∂out's planes (one input and one output channel a group),
// or W_gᵀ·∂out_g added shifted (a phase's taps' columns shifted, times ones: the same additions in the same
// order). Each output gets the general path's products (W_g·gather(x)_g, the padding's +0 included) in its order
// from its bias, and each ∂x value its taps' columns of W_gᵀ·∂out_g in order from +0, as the scatter adds them:
// the same bits (TestDepthwiseDirectKeepsBits, TestConvLayoutsKeepBits). The other places of the planes (the
// output planes past the outputs, ∂x's padding) take values that are dropped; ∂out's planes are +0 but at the
// outputs, and their products (w·0, ±0) leave the ∂x sums unchanged. Images and their gradients move in and out of
// the planes through maps (kernel.ScatterAddIdx, GatherIdx, ScatterAddPairs: matmul.wasm's loops in WebAssembly);
// added into cleared planes, a -0 becomes +0, whose products (±0) leave every sum as it was.
type depthwisePlanes struct {
	in             Shape
	outH, outW, m  int // m: output channels a group
	cig            int // input channels a group
	sh, sw, ph, pw int
	hq, wq, plane  int       // a plane: hq·wq values
	chunk          int       // images a pass
	si, so         int       // one channel's planes in a pass: input sH·sW·chunk planes (phase-major), output chunk
	offs           []int     // per tap k = ky·KW + kx: where it reads in a channel's input planes from an output's place
	phases         [][]int   // per phase of the input planes, its taps in order
	xp, yw         []float32 // the input's planes [C·si + slack], the outputs' [Out.C·so]
	cols           []float32 // a group's windows [cig·KH·KW × so]; backward, ∂out's shifted copies or W_gᵀ·∂out_g
	dyw, dxp, wt   []float32 // ∂out's planes [Out.C·so], ∂x's [C·si], a phase's taps' weights
	shifted, ones  []float32 // a phase's taps' columns of W_gᵀ·∂out_g shifted [KH·KW × so], and ones

	// In place (kernel.RowsInPlace): the windows are not copied but read where they lie, by kernel.MatMulAddRows
	// through a table of offsets per group, its windows' rows in xp (fwdOffs). Backward (a group of more than one
	// input or output channel), ∂out's planes lie gap values apart with gap +0 before each (gap ≥ every tap's
	// within; dyOf maps ∂out there), and kernel.PlanesGrad sums a phase's taps' columns of W_gᵀ·∂out_g shifted
	// right by their within (shifts) straight into ∂x's planes, reading the gap's +0 where the copy was cleared;
	// wtp holds a phase's taps' rows of W_gᵀ, input channel by input channel.
	inPlace bool
	gap     int
	fwdOffs [][]int32
	shifts  [][]int32
	wtp     []float32
	dyOf    []kernel.Index

	// In place with stride 1, the maps' runs: an image row's W values lie side by side in its planes, and an output
	// row's too, so images move in and out by kernel.MoveRows, a row at a time, not value by value: per row of
	// the chunk's images (image, channel, row), where it starts in the input planes (xRows; ∂x's alike), the
	// outputs' (outRows), ∂out's (dyRows). nil otherwise.
	xRows, outRows, dyRows []int32

	// Per phase and number nb of images in a pass, the map of the phase's planes of channel 0 for nb images (the
	// places of a channel's phase, image by image) to the input's positions (image-major, channel 0; −1 for the
	// padding): each channel's planes are gathered from the input, and ∂x's added back, through it, from the
	// channel's first value on (fromX[phase][nb]), cut into runs (kernel.Index.WithRuns: a phase's row steps
	// through an input row at the stride). Per nb, the map of the outputs' values (image-major) to their places
	// (outOf).
	fromX [][]kernel.Index
	outOf []kernel.Index
}

// planesInPlace says whether planes read their windows where they lie (kernel.RowsInPlace: natively with AVX-512,
// and in WebAssembly with the SIMD kernel); tests flip it to run the copies.
var planesInPlace = kernel.RowsInPlace

// newDepthwisePlanes prepares l's planes for up to images images a call, with ∂x's if grad.
func newDepthwisePlanes(l *Conv, images int, grad bool) *depthwisePlanes {
	w := l.Window
	dh, dw := w.dilation()
	p := &depthwisePlanes{in: l.In, outH: l.Out.H, outW: l.Out.W, m: l.Out.C / l.groups(), cig: l.In.C / l.groups(), sh: w.StrideH, sw: w.StrideW, ph: w.PadH, pw: w.PadW}
	p.hq, p.wq = planeSize(l)
	p.plane = p.hq * p.wq
	kk := w.KH * w.KW
	p.chunk = max(1, min(images, depthwiseChunk, min(depthwiseSpan, planesValues/(p.cig*kk))/p.plane))
	p.so = p.chunk * p.plane
	p.si = p.sh * p.sw * p.so
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
	p.xp, p.yw = make([]float32, l.In.C*p.si+slack), make([]float32, l.Out.C*p.so)
	p.inPlace = planesInPlace
	if !p.inPlace || grad && p.m == 1 && p.cig == 1 {
		p.cols = make([]float32, p.cig*kk*p.so)
	}
	if p.inPlace {
		G := l.groups()
		p.fwdOffs = make([][]int32, G)
		for g := range p.fwdOffs {
			for ci := 0; ci < p.cig; ci++ {
				for _, off := range p.offs {
					p.fwdOffs[g] = append(p.fwdOffs[g], int32((g*p.cig+ci)*p.si+off))
				}
			}
		}
		if grad && (p.m > 1 || p.cig > 1) {
			p.gap = slack
			p.shifts = make([][]int32, len(p.phases))
			for phase, taps := range p.phases {
				for _, k := range taps {
					p.shifts[phase] = append(p.shifts[phase], int32(p.offs[k]-phase*p.so))
				}
			}
			p.wtp = make([]float32, p.cig*kk*p.m)
		}
	}
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
	if p.inPlace && p.sh == 1 && p.sw == 1 {
		p.xRows, p.outRows = make([]int32, len(xIdx)/W), make([]int32, len(outIdx)/p.outW)
		for r := range p.xRows {
			p.xRows[r] = xIdx[r*W]
		}
		for r := range p.outRows {
			p.outRows[r] = outIdx[r*p.outW]
		}
		p.dyRows = p.outRows
	}
	p.outOf = make([]kernel.Index, p.chunk+1)
	for nb := 1; nb <= p.chunk; nb++ {
		p.outOf[nb] = kernel.NewIndex(outIdx[:nb*out])
	}
	if p.xRows == nil {
		p.fromX = make([][]kernel.Index, p.sh*p.sw)
		for phase := range p.fromX {
			m := make([]int32, p.chunk*p.plane) // image b's places at b·plane, as in the planes
			for i := range m {
				m[i] = -1
			}
			for b := 0; b < p.chunk; b++ {
				for iy := 0; iy < H; iy++ {
					for ix := 0; ix < W; ix++ {
						if at := p.place(b, iy+p.ph, ix+p.pw); at/p.so == phase {
							m[at%p.so] = int32(b*in + iy*W + ix)
						}
					}
				}
			}
			// For nb images, the next image's places too, all −1 (+0): at a stride of 1 an image's bottom padding
			// is the next one's top (planeSize).
			p.fromX[phase] = make([]kernel.Index, p.chunk+1)
			for nb := 1; nb <= p.chunk; nb++ {
				mb := slices.Clone(m[:min(nb+1, p.chunk)*p.plane])
				for i := nb * p.plane; i < len(mb); i++ {
					mb[i] = -1
				}
				p.fromX[phase][nb] = kernel.NewIndex(mb).WithRuns()
			}
		}
	}
	if grad {
		p.dyw, p.dxp, p.wt = make([]float32, l.Out.C*p.so), make([]float32, l.In.C*p.si), make([]float32, kk)
		if p.wtp != nil { // ∂out's planes gap apart, after gap +0
			p.dyw = make([]float32, p.gap+l.Out.C*(p.so+p.gap))
			dyIdx := make([]int32, len(outIdx))
			for i, q := range outIdx {
				o := int(q) / p.so
				dyIdx[i] = int32(p.gap + o*(p.so+p.gap) + int(q) - o*p.so)
			}
			p.dyOf = make([]kernel.Index, p.chunk+1)
			for nb := 1; nb <= p.chunk; nb++ {
				p.dyOf[nb] = kernel.NewIndex(dyIdx[:nb*out]).WithRuns()
			}
			if p.dyRows != nil {
				p.dyRows = make([]int32, len(dyIdx)/p.outW)
				for r := range p.dyRows {
					p.dyRows[r] = dyIdx[r*p.outW]
				}
			}
		}
		if p.cig > 1 || p.m > 1 {
			if !p.inPlace {
				p.shifted = make([]float32, kk*p.so)
			}
			p.ones = make([]float32, kk)
			for i := range p.ones {
				p.ones[i] = 1
			}
		}
	}
	return p
}

// planeSize is the height and width of l's planes (depthwisePlanes): the padded image split by the stride's
// phases; with stride 1, the padding shared, as in the padded image's rows laid out one after another, a row's
// right padding is the next one's left and an image's bottom padding the next image's top: a plane is then
// (H + PadH) × (W + PadW) (where the padding is at most the dilated kernel's reach less one, so that the outputs
// still fit). A tap of an output then reads what it reads in the padded image (its padding's +0 or its values),
// and an input value's gradient sums the products of the outputs whose windows read it, +0 from every other
// place (the places past the outputs, whose ∂out is +0): a place read across a row's or an image's end is past
// the outputs (column W + 2·PadW − dilated reach ≥ the outputs' width), so the same sums.
func planeSize(l *Conv) (hq, wq int) {
	w := l.Window
	dh, dw := w.dilation()
	if w.StrideH == 1 && w.StrideW == 1 && w.PadH <= dh*(w.KH-1) && w.PadW <= dw*(w.KW-1) {
		return l.In.H + w.PadH, l.In.W + w.PadW
	}
	return (l.In.H + 2*w.PadH + w.StrideH - 1) / w.StrideH, (l.In.W + 2*w.PadW + w.StrideW - 1) / w.StrideW
}

// place is where padded pixel (py, px) of image b lies in a channel's input planes.
func (p *depthwisePlanes) place(b, py, px int) int {
	return ((py%p.sh)*p.sw+px%p.sw)*p.so + b*p.plane + py/p.sh*p.wq + px/p.sw
}

// forward runs the convolution l on nb ≤ chunk images x into y.
func (p *depthwisePlanes) forward(l *Conv, x, y []float32, nb int) {
	if p.xRows != nil {
		clear(p.xp) // the padding, and the images past nb
		kernel.MoveRows(p.xp, x[:nb*p.in.Size()], p.xRows[:nb*p.in.C*p.in.H], p.in.W, true, true)
	} else {
		// Every place of the first nb images' planes and the next one's (+0 for the padding and that image). The
		// places of the images after it keep what they held: only the outputs past nb read them (an output reads
		// its own image's planes and past them the next one's top rows, or the places past the outputs, whose
		// values are dropped), and the slack stays +0. A -0 copied rather than added to +0 gives ±0 products,
		// which change no sum from a bias.
		x = x[:nb*p.in.Size()]
		hw := p.in.H * p.in.W
		for c := 0; c < p.in.C; c++ {
			for phase, m := range p.fromX {
				at := c*p.si + phase*p.so
				kernel.GatherIdx(p.xp[at:at+m[nb].Len()], x[c*hw:], m[nb])
			}
		}
	}
	for o := 0; o < l.Out.C; o++ {
		fillRows(p.yw[o*p.so:], l.B[o:o+1], p.so)
	}
	kk := len(p.offs)
	for g := 0; g < p.in.C/p.cig; g++ {
		if p.inPlace {
			kernel.MatMulAddRows(l.W[g*p.m*p.cig*kk:], p.xp, p.fwdOffs[g], p.yw[g*p.m*p.so:], p.m, p.cig*kk, p.so, p.so)
			continue
		}
		for ci := 0; ci < p.cig; ci++ {
			c := g*p.cig + ci
			for k, off := range p.offs {
				copy(p.cols[(ci*kk+k)*p.so:(ci*kk+k+1)*p.so], p.xp[c*p.si+off:])
			}
		}
		kernel.MatMulAddT(l.W[g*p.m*p.cig*kk:], l.WT[g*p.cig*kk*p.m:], p.cols, p.yw[g*p.m*p.so:], p.m, p.cig*kk, p.so)
	}
	if p.outRows != nil {
		kernel.MoveRows(y[:nb*l.Out.Size()], p.yw, p.outRows[:nb*l.Out.C*p.outH], p.outW, false, false)
	} else {
		kernel.GatherIdx(y[:nb*l.Out.Size()], p.yw, p.outOf[nb])
	}
}

// backward adds the input gradients of nb ≤ chunk images, from dy, to dx (which holds no -0).
func (p *depthwisePlanes) backward(l *Conv, dy, dx []float32, nb int) {
	clear(p.dyw) // ∂out's planes: +0 but at the outputs
	if p.dyRows != nil {
		kernel.MoveRows(p.dyw, dy[:nb*l.Out.Size()], p.dyRows[:nb*l.Out.C*p.outH], p.outW, true, true)
	} else if p.dyOf != nil {
		kernel.ScatterAddIdx(p.dyw, dy[:nb*l.Out.Size()], p.dyOf[nb])
	} else {
		kernel.ScatterAddIdx(p.dyw, dy[:nb*l.Out.Size()], p.outOf[nb])
	}
	clear(p.dxp)
	kk := len(p.offs)
	for c := 0; c < p.in.C/p.cig; c++ { // a group
		if p.m > 1 || p.cig > 1 {
			// Each tap's column of W_gᵀ·∂out_g (summed over the group's outputs from +0), added where it reads:
			// within its phase, as the outputs' places shifted by the tap's offset are. A phase's taps' columns,
			// shifted, are added in tap order by one product with ones (1·e is e: the same additions). In place,
			// kernel.PlanesGrad does both, per phase, without the columns written out.
			if p.dyOf != nil {
				wt := l.WT[c*p.cig*kk*p.m:]
				for phase, taps := range p.phases {
					if len(taps) == 0 {
						continue
					}
					a := p.wtp[:p.cig*len(taps)*p.m]
					for ci := 0; ci < p.cig; ci++ {
						for i, k := range taps {
							copy(a[(ci*len(taps)+i)*p.m:(ci*len(taps)+i+1)*p.m], wt[(ci*kk+k)*p.m:])
						}
					}
					kernel.PlanesGrad(a, p.dyw, p.gap+c*p.m*(p.so+p.gap), p.shifts[phase], p.dxp[c*p.cig*p.si+phase*p.so:],
						p.cig, len(taps), p.m, p.so, p.so+p.gap, p.si)
				}
				continue
			}
			clear(p.cols)
			kernel.MatMulAddT(l.WT[c*p.cig*kk*p.m:], l.W[c*p.m*p.cig*kk:], p.dyw[c*p.m*p.so:], p.cols, p.cig*kk, p.m, p.so)
			for ci := 0; ci < p.cig; ci++ {
				e := p.cols[ci*kk*p.so:]
				for phase, taps := range p.phases {
					if len(taps) == 0 {
						continue
					}
					for i, k := range taps {
						within := p.offs[k] - phase*p.so
						row := p.shifted[i*p.so : (i+1)*p.so]
						clear(row[:within])
						copy(row[within:], e[k*p.so:(k+1)*p.so-within])
					}
					kernel.MatMulAdd(p.ones, p.shifted, p.dxp[(c*p.cig+ci)*p.si+phase*p.so:], 1, len(taps), p.so)
				}
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
	if p.xRows != nil {
		kernel.MoveRows(dx[:nb*p.in.Size()], p.dxp, p.xRows[:nb*p.in.C*p.in.H], p.in.W, false, true)
		return
	}
	dx = dx[:nb*p.in.Size()]
	hw := p.in.H * p.in.W
	for c := 0; c < p.in.C; c++ { // each value of ∂x takes the one of its place
		for phase, m := range p.fromX {
			at := c*p.si + phase*p.so
			kernel.ScatterAddIdx(dx[c*hw:], p.dxp[at:at+m[nb].Len()], m[nb])
		}
	}
}

// freshGrad reports whether x's gradient is all +0 when op o's backward runs: Backward cleared it right before
// (o is x's last reader, whose backward runs first: Graph.wireClears; it is not packed, nor the seeded loss), so
// nothing has written it yet.
func freshGrad(x *Tensor, o op) bool {
	return x.clearedBy == o && !x.gradPacked() && x != x.g.loss
}

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
	g.weights += len(l.W) + len(l.B)
	o := &convOp{x: x, out: out, l: l, convScratch: l.scratch(g.capacity*x.PerPoint, x.Grad != nil)}
	o.chooseLayout([]Conv{*l}, g.capacity*x.PerPoint, x.Grad != nil)
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *convOp) wireSparse() { o.convScratch.wireSparse(o.x, o.out) }

func (o *convOp) forward() { o.conv(o.l, 0, o.x.Live(), o.out.Live(), o.x.Rows(), o.x.g.compact) }

// backward: ∂x = scatter(Wᵀ·∂out), image by image.
func (o *convOp) backward() {
	if o.x.Grad != nil {
		n := o.x.Rows()
		o.convGrad(o.l, 0, o.out.Grad[:n*o.out.Cols], o.x.Grad[:n*o.x.Cols], n, freshGrad(o.x, o), o.x.g.compact)
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
	g.weights += len(l.W) + len(l.B)
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
	sparse := o.sparseFwd && o.x.g.compact
	if !sparse {
		fillBiases(o.out.Data, o.l.B, outP, o.x.Rows())
	}
	for r := 0; r < o.x.Rows(); r++ {
		y := o.out.Row(r)
		if sparse {
			fillBias(y, o.l.B, outP)
			o.chans.SetTranspose(o.x.Row(r))
			kernel.MatMulAddSparse(o.chans, o.l.W, o.t, K, true)
			kernel.ScatterAddPairs(y, o.t, o.fromPos)
			continue
		}
		x := o.x.Row(r)
		for g := 0; g < G; g++ { // the windows from +0
			kernel.MatMulInitT(o.l.WT[g*Kg*Cg:], o.l.W[g*Cg*Kg:], x[g*Cg*P:], o.col[g*Kg*P:], nil, Kg, Cg, P)
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
	fresh := freshGrad(o.x, o) // then the product lands in ∂x itself, from the same +0
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
			for g := 0; g < G; g++ { // from +0 (the groups' rows cover dx)
				kernel.MatMulInitT(o.l.W[g*Cg*Kg:], o.l.WT[g*Kg*Cg:], o.col[g*Kg*P:], dx[g*Cg*P:], nil, Cg, Kg, P)
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
	for i := range layers {
		g.weights += len(layers[i].W) + len(layers[i].B)
	}
	o := &convSamplesOp{x: x, out: out, layers: layers, convScratch: layers[0].scratch(g.capacity, x.Grad != nil)}
	o.chooseLayout(layers, g.capacity, x.Grad != nil)
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *convSamplesOp) wireSparse() { o.convScratch.wireSparse(o.x, o.out) }

func (o *convSamplesOp) forward() {
	for k := range o.layers {
		o.conv(&o.layers[k], k, block(o.x, k, false), block(o.out, k, false), o.x.g.batch, o.x.g.compact)
	}
}

// backward: ∂x(k) += scatter(W_kᵀ·∂out_k); a shared x sums the samples' contributions in order k = 0, 1, ….
func (o *convSamplesOp) backward() {
	if o.x.Grad == nil {
		return
	}
	for k := range o.layers {
		o.convGrad(&o.layers[k], k, block(o.out, k, true), block(o.x, k, true), o.x.g.batch, o.x.PerPoint > 1 && freshGrad(o.x, o), o.x.g.compact)
	}
}

// ---- a chunk of images' windows in rows (im2row) ----

// convLayout is how a convolution's products run.
type convLayout int8

const (
	layoutAuto      convLayout = iota // as the cost model chooses (chooseLayout)
	layoutImage                       // image by image: W·gather(x), scatter(Wᵀ·∂out); a pointwise one without the gather
	layoutRows                        // a chunk of images' windows in rows, each row all the taps any window reads
	layoutRowsExact                   // … the windows split into classes by the taps they read, each row only those
	layoutPlanes                      // a chunk of images in zero-padded planes, its windows shifted copies (depthwisePlanes)
)

// forceLayout makes every convolution built after it is set run both passes in one layout (tests, benchmarks);
// layoutAuto leaves the choice to the cost model.
var forceLayout = layoutAuto

// rowLayout is a convolution's chunked im2row layout: for a pass of s images, each output position's window is a
// row, and the rows of the s images multiply the weights transposed at once, [s·P × K]·Wᵀ [K × Out.C], the
// output channels across the kernels' lanes, where the per-image product W·cols [Out.C × K]·[K × P] has only P =
// outH·outW columns for them (49, 16, 4, 1 in a ResNet's later stages). Backward, ∂out's rows [s·P × Out.C]
// times W give each window's gradient, [s·P × K], scattered back.
//
// The positions split into classes (one, or one per set of taps that are inside the image): a class's rows hold
// only its taps (the others are padding, +0, whose products ±0 change no sum), so a block of rows per class and
// group multiplies the rows of W_gᵀ at those taps (copied once, or W_gᵀ itself when they are all its taps).
// Each output still sums the same nonzero products in the same order from its bias, and each window value's
// gradient the same products from +0, scattered in the per-image order: the same bits
// (TestConvLayoutsKeepBits).
type rowLayout struct {
	chunk   int   // images a pass at most
	sizes   []int // the passes' sizes: chunk, then the powers of two below it, decreasing
	in, out int   // an image's values in and out
	cg      int   // output channels a group
	blocks  []rowBlock
	a, c    []float32       // the windows by row (backward: their gradients) and the products (backward: ∂out's rows)
	dxs     []float32       // a chunk's ∂x before it is added (grad, not fresh)
	outIdx  []kernel.Index  // per size: y's values from c
	dxPairs []*kernel.Pairs // per size: the windows' gradients (a) into ∂x, in the per-image scatter's order
	wt, w   [][][]float32   // per layer and block: the block's rows of W_gᵀ [taps × cg] and columns of W_g [cg × taps], when copied
}

// rowBlock is one class's rows in one group.
type rowBlock struct {
	g          int            // the group
	rows, taps int            // rows an image (the class's positions), taps a row
	offA, offC int            // where its rows start in a and in c
	xIdx       []kernel.Index // per size: its rows' values from x
	dyIdx      []kernel.Index // per size: its rows of ∂out from ∂out
}

// rowClasses is how a row layout splits a convolution's output positions: per class its positions (increasing)
// and the taps (ky·KW + kx, increasing) its rows hold, and per position its class and its row in the class.
type rowClasses struct {
	pos, taps      [][]int
	classOf, rowOf []int
}

// classesOf splits the positions of geo's windows into classes: one holding every tap some window reads inside
// the image, or (exact) one per set of taps a window reads inside the image.
func classesOf(geo geometry, exact bool) rowClasses {
	P, KK := geo.cols(), geo.w.KH*geo.w.KW
	idx := geo.index()
	rc := rowClasses{classOf: make([]int, P), rowOf: make([]int, P)}
	key := make(map[string]int)
	union := make([]bool, KK)
	for p := 0; p < P; p++ {
		k := make([]byte, KK)
		for t := 0; t < KK; t++ {
			if idx.At(t*P+p) >= 0 { // channel 0's row of tap t
				k[t], union[t] = 1, true
			}
		}
		if !exact {
			k = nil
		}
		c, ok := key[string(k)]
		if !ok {
			c = len(rc.pos)
			key[string(k)] = c
			rc.pos = append(rc.pos, nil)
			var ts []int
			for t := 0; t < KK; t++ {
				if exact && k[t] == 1 {
					ts = append(ts, t)
				}
			}
			rc.taps = append(rc.taps, ts)
		}
		rc.classOf[p], rc.rowOf[p] = c, len(rc.pos[c])
		rc.pos[c] = append(rc.pos[c], p)
	}
	if !exact {
		for t := 0; t < KK; t++ {
			if union[t] {
				rc.taps[0] = append(rc.taps[0], t)
			}
		}
	}
	return rc
}

// newRowLayout prepares the row layout of the convolutions layers (one, or one per MC sample, alike) for up to
// images images a call; exact splits the positions into classes by the taps they read.
func newRowLayout(layers []Conv, geo geometry, images int, exact, grad bool) *rowLayout {
	l := &layers[0]
	K, P := geo.rows(), geo.cols()
	KK := l.Window.KH * l.Window.KW
	G := l.groups()
	Cg, Cig := l.Out.C/G, l.In.C/G
	idx := geo.index()
	rc := classesOf(geo, exact)
	classes, taps, classOf, rowOf := rc.pos, rc.taps, rc.classOf, rc.rowOf
	chunk := rowsChunk(l, geo, rc, images)
	r := &rowLayout{chunk: chunk, in: l.In.Size(), out: l.Out.Size(), cg: Cg}
	for s := chunk; s >= 1; {
		r.sizes = append(r.sizes, s)
		s = 1 << (bits.Len(uint(s)) - 1)
		if s == r.sizes[len(r.sizes)-1] {
			s /= 2
		}
	}
	// Blocks, class by class and group by group; where each tap k of the windows lies in its class's rows.
	tapAt := make([][]int, len(classes)) // per class, per tap (ky·KW + kx): its place in the class's taps, or −1
	offA, offC := 0, 0
	for c := range classes {
		tapAt[c] = make([]int, KK)
		for t := range tapAt[c] {
			tapAt[c][t] = -1
		}
		for i, t := range taps[c] {
			tapAt[c][t] = i
		}
		for g := 0; g < G; g++ {
			b := rowBlock{g: g, rows: len(classes[c]), taps: Cig * len(taps[c]), offA: offA, offC: offC}
			offA += chunk * b.rows * b.taps
			offC += chunk * b.rows * Cg
			r.blocks = append(r.blocks, b)
		}
	}
	r.a, r.c = make([]float32, offA), make([]float32, offC)
	blockOf := func(c, g int) *rowBlock { return &r.blocks[c*G+g] }
	// Each block's maps: its rows' values from the images, image by image, row by row, tap by tap.
	for c := range classes {
		for g := 0; g < G; g++ {
			b := blockOf(c, g)
			xi := make([]int32, 0, chunk*b.rows*b.taps)
			var di []int32 // (grad)
			for im := 0; im < chunk; im++ {
				for _, p := range classes[c] {
					for ci := g * Cig; ci < (g+1)*Cig; ci++ {
						for _, t := range taps[c] {
							j := idx.At((ci*KK+t)*P + p)
							if j >= 0 {
								j += int32(im * r.in)
							}
							xi = append(xi, j)
						}
					}
					for o := g * Cg; o < (g+1)*Cg && grad; o++ {
						di = append(di, int32(im*r.out+o*P+p))
					}
				}
			}
			for _, s := range r.sizes {
				b.xIdx = append(b.xIdx, kernel.NewIndex(xi[:s*b.rows*b.taps]))
				if grad {
					b.dyIdx = append(b.dyIdx, kernel.NewIndex(di[:s*b.rows*Cg]))
				}
			}
		}
	}
	// y's values from the blocks' products.
	oi := make([]int32, 0, chunk*r.out)
	for im := 0; im < chunk; im++ {
		for o := 0; o < l.Out.C; o++ {
			g := o / Cg
			for p := 0; p < P; p++ {
				b := blockOf(classOf[p], g)
				oi = append(oi, int32(b.offC+(im*b.rows+rowOf[p])*Cg+o-g*Cg))
			}
		}
	}
	for _, s := range r.sizes {
		r.outIdx = append(r.outIdx, kernel.NewIndex(oi[:s*r.out]))
	}
	if grad {
		// The windows' gradients into ∂x, each ∂x value's in the per-image scatter's order, which adds them in
		// increasing k (channel, ky, kx): image by image, the positions p in decreasing order (a value's taps
		// increase as the positions reading it decrease, for any stride and dilation), then k, so that the rows
		// are read in turn, each from its start.
		var dst, src []int32
		counts := make([]int, 0, chunk+1)
		for im := 0; im < chunk; im++ {
			counts = append(counts, len(dst))
			for p := P - 1; p >= 0; p-- {
				for k := 0; k < K; k++ {
					ci, t := k/KK, k%KK
					g := ci / Cig
					j := idx.At(k*P + p)
					if j < 0 {
						continue
					}
					c := classOf[p]
					b := blockOf(c, g)
					col := (ci-g*Cig)*len(taps[c]) + tapAt[c][t]
					dst = append(dst, int32(im*r.in)+j)
					src = append(src, int32(b.offA+(im*b.rows+rowOf[p])*b.taps+col))
				}
			}
		}
		counts = append(counts, len(dst))
		for _, s := range r.sizes {
			r.dxPairs = append(r.dxPairs, kernel.NewPairs(dst[:counts[s]], src[:counts[s]]))
		}
		r.dxs = make([]float32, chunk*r.in)
	}
	// The blocks' weights, copied where a class reads some of the taps only.
	r.wt, r.w = make([][][]float32, len(layers)), make([][][]float32, len(layers))
	for li := range layers {
		r.wt[li], r.w[li] = layers[li].rowWeights(rc, exact)
	}
	return r
}

// rowWeights is, per block of the row layout with the classes rc (class by class, group by group), the block's
// rows of W_gᵀ [taps × Out.C/G] and columns of W_g [Out.C/G × taps], nil where its taps are all the group's. A
// layer from NewConvGroups keeps them for every graph that runs it in that layout (they are weights, read only).
func (l *Conv) rowWeights(rc rowClasses, exact bool) (wt, w [][]float32) {
	if l.cache != nil {
		l.cache.mu.Lock()
		defer l.cache.mu.Unlock()
		if e := &l.cache.rows[b2i(exact)]; e.done {
			return e.wt, e.w
		}
	}
	KK := l.Window.KH * l.Window.KW
	G := l.groups()
	Cg, Cig := l.Out.C/G, l.In.C/G
	Kg := Cig * KK
	for c := range rc.pos {
		for g := 0; g < G; g++ {
			if len(rc.taps[c]) == KK {
				wt, w = append(wt, nil), append(w, nil)
				continue
			}
			taps := Cig * len(rc.taps[c])
			bt, bw := make([]float32, taps*Cg), make([]float32, Cg*taps)
			for ci := 0; ci < Cig; ci++ {
				for i, t := range rc.taps[c] {
					kl := ci*KK + t // the tap's row of W_gᵀ, column of W_g
					row := ci*len(rc.taps[c]) + i
					copy(bt[row*Cg:(row+1)*Cg], l.WT[g*Kg*Cg+kl*Cg:])
					for o := 0; o < Cg; o++ {
						bw[o*taps+row] = l.W[g*Cg*Kg+o*Kg+kl]
					}
				}
			}
			wt, w = append(wt, bt), append(w, bw)
		}
	}
	if l.cache != nil {
		l.cache.rows[b2i(exact)] = rowWeightsEntry{done: true, wt: wt, w: w}
	}
	return wt, w
}

// convCache is what a layer keeps for the graphs that run it: its row layouts' weights, one class (0) or
// exact classes (1).
type convCache struct {
	mu   sync.Mutex
	rows [2]rowWeightsEntry
}

type rowWeightsEntry struct {
	done  bool
	wt, w [][]float32
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rowsChunk is the row layout's chunk of images for l with the classes rc, for up to images images a call:
// passes of about rowsTarget rows, their windows at most rowsValues values.
func rowsChunk(l *Conv, geo geometry, rc rowClasses, images int) int {
	perImage := 0
	for c := range rc.pos {
		perImage += len(rc.pos[c]) * len(rc.taps[c]) * l.In.C
	}
	P := geo.cols()
	return max(1, min(images, (rowsTarget+P-1)/P, rowsValues/max(perImage, 1)))
}

// rowsTarget is about how many rows a pass of the row layout multiplies, and rowsValues the most values its
// windows take (a pass's chunk of images is the smaller).
const (
	rowsTarget = 512
	rowsValues = 1 << 17
)

// size is the index in r.sizes of the largest pass size at most n.
func (r *rowLayout) size(n int) int {
	for i, s := range r.sizes {
		if s <= n {
			return i
		}
	}
	panic("engine: no pass size")
}

// weights is block bi's rows of W_gᵀ and columns of W_g for layer li (l).
func (r *rowLayout) weights(l *Conv, li, bi int) (wt, w []float32) {
	if wt := r.wt[li][bi]; wt != nil {
		return wt, r.w[li][bi]
	}
	b := &r.blocks[bi]
	n := b.taps * r.cg
	return l.WT[b.g*n : (b.g+1)*n], l.W[b.g*n : (b.g+1)*n]
}

// forward runs layer li (l) on n images x into y, a pass of up to chunk images at a time.
func (r *rowLayout) forward(l *Conv, li int, x, y []float32, n int) {
	for at := 0; at < n; {
		si := r.size(n - at)
		s := r.sizes[si]
		xs := x[at*r.in : (at+s)*r.in]
		for bi := range r.blocks {
			b := &r.blocks[bi]
			wt, _ := r.weights(l, li, bi)
			m := s * b.rows
			a, c := r.a[b.offA:b.offA+m*b.taps], r.c[b.offC:b.offC+m*r.cg]
			kernel.GatherIdx(a, xs, b.xIdx[si])
			fillRows(c, l.B[b.g*r.cg:(b.g+1)*r.cg], m)
			kernel.MatMulAdd(a, wt, c, m, b.taps, r.cg)
		}
		kernel.GatherIdx(y[at*r.out:(at+s)*r.out], r.c, r.outIdx[si])
		at += s
	}
}

// backward adds the input gradients of layer li (l) on n images, from dy, to dx; fresh as convGrad's.
func (r *rowLayout) backward(l *Conv, li int, dy, dx []float32, n int, fresh bool) {
	for at := 0; at < n; {
		si := r.size(n - at)
		s := r.sizes[si]
		dys := dy[at*r.out : (at+s)*r.out]
		for bi := range r.blocks {
			b := &r.blocks[bi]
			_, w := r.weights(l, li, bi)
			m := s * b.rows
			d, e := r.c[b.offC:b.offC+m*r.cg], r.a[b.offA:b.offA+m*b.taps]
			kernel.GatherIdx(d, dys, b.dyIdx[si])
			clear(e)
			kernel.MatMulAdd(d, w, e, m, r.cg, b.taps)
		}
		to := dx[at*r.in : (at+s)*r.in]
		if !fresh {
			to = r.dxs[:s*r.in]
			clear(to)
		}
		kernel.ScatterAddPairs(to, r.a, r.dxPairs[si])
		if !fresh {
			addInto(dx[at*r.in:(at+s)*r.in], to)
		}
		at += s
	}
}

// convCosts are the layouts' cost model's constants for a kernel: nanoseconds per multiply-add at the kernel's
// full width, per value gathered by index, scattered by index and scattered by pairs, per call; and the kernel's
// column blocking: lanes a vector, vectors a block, and the extra a block costs, in vectors (its broadcasts of a,
// its loads and stores of c), which a narrow product pays for few columns. BenchmarkConvPrimitives measures them
// (docs/layers.md); they steer speed only, never bits.
type convCosts struct {
	madd, gather, scatter, pairs, call float64
	lanes, vecs                        int
	extra                              float64
	copy, row                          float64 // per value copied (memmove); a one-row product's madd over a full block's
	inPlace                            bool    // planes read their windows in place (kernel.RowsInPlace): no copies
	rowsPay                            float64 // rowsPay, or rowsPayWASM
	runGather, runScatter              float64 // gather and scatter a value of a map of runs, if not as others
	runMin                             int     // the narrowest output whose rows count as runs
}

// maps is the model's cost a value of gathering and of scattering by index through l's maps: cheaper where its
// rows of outputs are runs of consecutive positions at least runMin long (a stride of 1: the AVX loops copy
// them a vector at a time; AVX-512 a block's runs of 4 lanes or more, AVX2 whole blocks of 8), or not.
func (k convCosts) maps(l *Conv) (gather, scatter float64) {
	if k.runGather > 0 && l.Window.StrideW == 1 && l.Out.W >= k.runMin {
		return k.runGather, k.runScatter
	}
	return k.gather, k.scatter
}

var layoutCosts = costsFor(kernel.Native, runtime.GOARCH)

func costsFor(native, arch string) convCosts {
	switch {
	case native == "avx512":
		return convCosts{madd: 0.0095, gather: 0.35, scatter: 0.42, pairs: 0.6, call: 20, lanes: 16, vecs: 3, extra: 1.5, copy: 0.04, row: 4, rowsPay: rowsPay, runGather: 0.14, runScatter: 0.16, runMin: 7}
	case native == "avx2":
		return convCosts{madd: 0.019, gather: 0.4, scatter: 0.48, pairs: 0.6, call: 20, lanes: 8, vecs: 2, extra: 1.5, copy: 0.04, row: 3, rowsPay: rowsPay, runGather: 0.16, runScatter: 0.18, runMin: 14}
	case native == "wasmsimd":
		return convCosts{madd: 0.042, gather: 0.5, scatter: 0.49, pairs: 0.53, call: 80, lanes: 4, vecs: 2, extra: 3, copy: 0.1, row: 3.2, inPlace: kernel.RowsInPlace, rowsPay: rowsPayWASM}
	case arch == "wasm": // the pure-Go kernel in WebAssembly
		return convCosts{madd: 0.6, gather: 1.5, scatter: 1.5, pairs: 1.7, call: 80, lanes: 1, vecs: 1, copy: 0.1, row: 1, rowsPay: rowsPay}
	}
	return convCosts{madd: 0.2, gather: 0.4, scatter: 0.48, pairs: 0.6, call: 20, lanes: 1, vecs: 1, copy: 0.04, row: 1, rowsPay: rowsPay} // pure Go
}

// product is the model's time of MatMulAdd for m × k · k × n: each column block of up to vecs vectors costs as
// many vectors and its extra, a block of whole width costing its columns.
func (k convCosts) product(m, kk, n int) float64 {
	if m == 0 || kk == 0 || n == 0 {
		return 0
	}
	width := k.lanes * k.vecs
	full, rem := n/width, n%width
	vectors := float64(full) * (float64(k.vecs) + k.extra)
	if rem > 0 {
		vectors += float64((rem+k.lanes-1)/k.lanes) + k.extra
	}
	cols := vectors * float64(width) / (float64(k.vecs) + k.extra)
	if m == 1 {
		cols *= k.row
	}
	return k.madd*float64(m)*float64(kk)*cols + k.call
}

// planesCost is the model's time of each pass of a convolution in planes (depthwisePlanes), per image.
func (k convCosts) planesCost(l *Conv, images int) (fwd, bwd float64) {
	w := l.Window
	G, kk := l.groups(), w.KH*w.KW
	cig, m := l.In.C/G, l.Out.C/G
	hq, wq := planeSize(l)
	plane := hq * wq
	chunk := max(1, min(images, depthwiseChunk, min(depthwiseSpan, planesValues/(cig*kk))/plane))
	so := float64(chunk * plane)
	in, out := float64(l.In.Size()), float64(l.Out.Size())
	planesIn := float64(l.In.C*w.StrideH*w.StrideW) * so // cleared, per pass
	windows := float64(cig*kk) * so * k.copy             // a group's windows copied, each pass (none in place)
	if k.inPlace {
		windows = 0
	}
	fwd = (planesIn+float64(l.Out.C)*so)*k.copy/2 + float64(G)*(windows+k.product(m, cig*kk, int(so)))
	bwd = (planesIn+float64(l.Out.C)*so)*k.copy/2 + float64(G)*(k.product(cig*kk, m, int(so))+windows)
	if !k.inPlace {
		bwd += float64(G*cig) * k.product(1, kk, int(so)) // the shifted columns added, by phase (a phase's taps at a time)
	}
	if k.inPlace && w.StrideH == 1 && w.StrideW == 1 { // images in and out a row at a time (kernel.MoveRows)
		return fwd/float64(chunk) + k.copy*(in+out), bwd/float64(chunk) + k.copy*(out+in)
	}
	gather, scatter := k.maps(l)
	fwd = fwd/float64(chunk) + scatter*in + gather*out
	bwd = bwd/float64(chunk) + scatter*out + k.pairs*in
	return fwd, bwd
}

// imageCost is the model's time of each pass of a convolution image by image, per image.
func (k convCosts) imageCost(l *Conv, geo geometry, pointwise bool) (fwd, bwd float64) {
	K, P := geo.rows(), geo.cols()
	G := l.groups()
	Kg, Cg := K/G, l.Out.C/G
	fwd = float64(G) * k.product(Cg, Kg, P)
	bwd = float64(G) * k.product(Kg, Cg, P)
	if !pointwise {
		gather, scatter := k.maps(l)
		fwd += gather*float64(K*P) + k.call
		bwd += scatter*float64(K*P) + k.call
	}
	return fwd, bwd
}

// rowsCost is the model's time of each pass of a convolution in the row layout with the classes rc, per image,
// in passes of chunk images.
func (k convCosts) rowsCost(l *Conv, geo geometry, rc rowClasses, chunk int) (fwd, bwd float64) {
	G := l.groups()
	Cg, Cig := l.Out.C/G, l.In.C/G
	values, valid := 0, 0
	for c := range rc.pos {
		taps := Cig * len(rc.taps[c])
		m := chunk * len(rc.pos[c])
		fwd += float64(G) * k.product(m, taps, Cg)
		bwd += float64(G) * k.product(m, Cg, taps)
		values += G * len(rc.pos[c]) * taps
	}
	idx := geo.index()
	for i := 0; i < idx.Len(); i++ {
		if idx.At(i) >= 0 {
			valid++
		}
	}
	out := float64(l.Out.Size())
	fwd = fwd/float64(chunk) + k.gather*(float64(values)+out) + k.call/float64(chunk)
	bwd = bwd/float64(chunk) + k.gather*out + k.pairs*float64(valid) + k.call/float64(chunk)
	return fwd, bwd
}

// rowsPay is how much cheaper the model must find another layout than image by image for a pass to run in it: it
// holds maps and buffers of a chunk of images, and a model is a model. (Natively it finds the Fashion models'
// stride-2 convolutions of 32×14×14 into 64 channels, 3×3 and 4×4, 16–24 % cheaper in rows, where they measure
// as fast as image by image or a little slower: gathering and scattering their rows costs more a value than it
// does for resnet18's 64×7×7, which it finds 26–28 % cheaper and measures 21–26 % faster.)
const rowsPay = 0.75

// rowsPayWASM is rowsPay with matmul.wasm's kernel, whose times the model predicts within a few per cent on the
// example ResNet's convolutions (BenchmarkConvLayouts under Node, batch 50: 32→32 at 7×7 image by image 2.78 ms,
// modelled 2.82; exact classes 2.25, modelled 2.23): there exact classes measured 19–21 % faster than image by
// image for its 3×3 32→32 at 7×7 and 3×3/2 16→32 (the model: 21 % and 10 % cheaper) and 9 % for Fashion's 3×3/2
// 32→64 (14 %), where rowsPay kept them image by image.
const rowsPayWASM = 0.92

// planesPay is how much cheaper the model must find a convolution's two passes together in planes than image by
// image (with no gradient, its forward pass) for both to run in planes, which hold a chunk of images' planes and
// maps. In WebAssembly with the SIMD kernel it finds the example ResNet's 3×3 convolutions of 8 channels at 28×28
// 15 % cheaper in planes (its forward 26 %, its backward 5 %), where they measured 22 % faster (forward 1.50
// against 2.14 ms, backward 2.2 against 2.6 ms for 50 images, under Node); every other convolution of
// BenchmarkConvShapes it finds at least 4 % dearer there. Natively it picks what the per-pass rule picked, and
// also, with AVX2, the example's 16-channel 3×3 convolutions at 14×14 (20 % cheaper, measured 1.63 against 1.97
// ms, as AVX-512 already ran them) and, with AVX-512, its 32-channel ones at 7×7 (18 % cheaper, measured 0.99
// against 1.07 ms; BenchmarkConvLayouts, batch 50).
const planesPay = 0.87

// chooseLayout decides, once when the op is built, which passes of the convolutions layers (one, or one per MC
// sample) run in the row layout, and with which classes, for up to images images a call: where the cost model
// (layoutCosts) finds it cheaper than image by image, or as forceLayout says.
func (s *convScratch) chooseLayout(layers []Conv, images int, grad bool) {
	if s.dw != nil && directDepthwise {
		return
	}
	l := &layers[0]
	depthwise := s.dw != nil // through the general path (directDepthwise off): not in planes either
	fwd, bwd, exact, planes := false, false, false, false
	switch forceLayout {
	case layoutImage:
		return
	case layoutRows, layoutRowsExact:
		fwd, bwd, exact = true, grad, forceLayout == layoutRowsExact
	case layoutPlanes:
		planes = !depthwise
	default:
		fwd, bwd, exact, planes = s.choice(l, layoutCosts, images, grad)
		planes = planes && !depthwise
	}
	if planes {
		s.dw, s.planes = newDepthwisePlanes(l, images, grad), true
		return
	}
	if fwd || bwd {
		s.rows = newRowLayout(layers, s.geo, images, exact, grad && bwd)
		s.rowsFwd, s.rowsBwd = fwd, bwd
	}
}

// choice is the cost model's choice for l with the costs k: which passes run in the row layout, and whether with
// exact classes; or whether both run in planes.
func (s *convScratch) choice(l *Conv, k convCosts, images int, grad bool) (fwd, bwd, exact, planes bool) {
	imF, imB := k.imageCost(l, s.geo, s.pointwise)
	best := imF
	if grad {
		best += imB
	}
	if plF, plB := k.planesCost(l, images); !grad && plF < planesPay*imF || grad && plF+plB < planesPay*(imF+imB) {
		best, planes = plF, true
		if grad {
			best += plB
		}
	}
	for _, ex := range []bool{false, true} {
		rc := classesOf(s.geo, ex)
		f, b := k.rowsCost(l, s.geo, rc, rowsChunk(l, s.geo, rc, images))
		useF, useB := f < k.rowsPay*imF, grad && b < k.rowsPay*imB
		cost := imF
		if useF {
			cost = f
		}
		if grad {
			cost += imB
			if useB {
				cost += b - imB
			}
		}
		if (useF || useB) && cost < best {
			best, fwd, bwd, exact, planes = cost, useF, useB, ex, false
		}
	}
	return fwd, bwd, exact, planes
}
