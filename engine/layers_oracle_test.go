//go:build !js || gomlxwasm

package engine

// Each image layer against gomlx: its forward values and its input gradient (of a fixed random projection of
// its output), computed by gomlx in float64 on the pure-Go backend, on random shapes. Natively with every
// `go test`; in WASM under Node with -tags gomlxwasm (make test-wasm runs it), so gomlx compiles into that test
// binary only.

import (
	"fmt"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	_ "github.com/gomlx/compute/gobackend"
	gx "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	timage "github.com/gomlx/gomlx/core/tensors/images"

	"github.com/deltaclue/deltaclue/engine/rng"
)

var oracleBackend = func() func() compute.Backend {
	var b compute.Backend
	return func() compute.Backend {
		if b == nil {
			var err error
			if b, err = compute.NewWithConfig("go:ops_sequential"); err != nil {
				panic(err)
			}
		}
		return b
	}
}()

// layerCase is one layer on the engine and in gomlx: gomlx maps x [n, C, H, W] (float64) to the layer's output
// [n, C', H', W'], and may give the input gradient of Σ out ⊙ c itself (inputGrad) where its autodiff of the
// forward cannot (a transposed convolution's forward is the gradient of a convolution).
type layerCase struct {
	name      string
	in, out   Shape
	init      func(*rng.Rand, []float32)
	engine    func(g *Graph, x *Tensor) *Tensor
	gomlx     func(x *gx.Node) *gx.Node
	inputGrad func(x, c *gx.Node) *gx.Node
}

func constant(g *gx.Graph, data []float32, dims ...int) *gx.Node {
	return gx.Const(g, tensors.FromFlatDataAndDimensions(f64(data), dims...))
}

// check runs the case on a batch of n random inputs: the forward values within 1e-5 relative, and
// ∂(Σ out ⊙ c)/∂x within 1e-4 relative, per point.
func (lc layerCase) check(t *testing.T, r *rng.Rand, n int) {
	t.Helper()
	x := make([]float32, n*lc.in.Size())
	lc.init(r, x)
	c := randSlice(r, lc.out.Size(), 1)
	// The engine: the projection as a dense layer to one column, its per-point loss.
	g := NewGraph(n)
	xt := g.Input(lc.in.Size(), true)
	out := lc.engine(g, xt)
	if out.Cols != lc.out.Size() {
		t.Fatalf("%s: the engine's output has %d columns, want %v", lc.name, out.Cols, lc.out)
	}
	proj := NewLayer(lc.out.Size(), 1, c, []float32{0})
	loss := g.Dense(out, &proj)
	copy(xt.Data, x)
	g.Forward()
	g.Backward(loss, nil)

	exec := gx.MustNewExec(oracleBackend(), func(xn *gx.Node) (*gx.Node, *gx.Node) {
		y := lc.gomlx(xn)
		cn := constant(xn.Graph(), c, 1, lc.out.C, lc.out.H, lc.out.W)
		if lc.inputGrad != nil {
			return y, lc.inputGrad(xn, gx.BroadcastToDims(cn, n, lc.out.C, lc.out.H, lc.out.W))
		}
		return y, gx.Gradient(gx.ReduceAllSum(gx.Mul(y, cn)), xn)[0]
	})
	res, err := exec.Exec(tensors.FromFlatDataAndDimensions(f64(x), n, lc.in.C, lc.in.H, lc.in.W))
	if err != nil {
		t.Fatalf("%s: gomlx: %v", lc.name, err)
	}
	want, wantGrad := tensors.MustCopyFlatData[float64](res[0]), tensors.MustCopyFlatData[float64](res[1])
	if len(want) != n*lc.out.Size() || len(wantGrad) != n*lc.in.Size() {
		t.Fatalf("%s: gomlx gives %d outputs and %d gradients, want %d and %d", lc.name, len(want), len(wantGrad), n*lc.out.Size(), n*lc.in.Size())
	}
	for i := 0; i < n; i++ {
		if e := relErr(out.Row(i), want[i*lc.out.Size():(i+1)*lc.out.Size()], 1e-6); e > 1e-5 {
			t.Errorf("%s, point %d: forward relative error %.2e against gomlx", lc.name, i, e)
		}
		if e := relErr(xt.Grad[i*lc.in.Size():(i+1)*lc.in.Size()], wantGrad[i*lc.in.Size():(i+1)*lc.in.Size()], 1e-6); e > 1e-4 {
			t.Errorf("%s, point %d: input gradient relative error %.2e against gomlx", lc.name, i, e)
		}
	}
}

func padding(w Window) [][2]int { return [][2]int{{w.PadH, w.PadH}, {w.PadW, w.PadW}} }

// padNegInf surrounds images x [n, C, H, W] with the window's padding of −∞.
func padNegInf(x *gx.Node, w Window) *gx.Node {
	return gx.Pad(x, gx.Infinity(x.Graph(), dtypes.Float64, -1), gx.PadAxis{}, gx.PadAxis{},
		gx.PadAxis{Start: w.PadH, End: w.PadH}, gx.PadAxis{Start: w.PadW, End: w.PadW})
}

// windowMax is max pooling in gomlx: the padded image's strided slices, one per offset in the window, stacked
// and reduced by their maximum. (gomlx's MaxPool gives the same values, but its gradient, SelectAndScatterMax,
// is not in v0.28.2's Go backend.) TestMaxPoolAsGomlxMaxPool checks the two agree.
func windowMax(x *gx.Node, p Pool) *gx.Node {
	w := p.Window
	padded := padNegInf(x, w)
	var parts []*gx.Node
	for ky := 0; ky < w.KH; ky++ {
		for kx := 0; kx < w.KW; kx++ {
			parts = append(parts, gx.Slice(padded, gx.AxisRange(), gx.AxisRange(),
				gx.AxisRange(ky, ky+w.StrideH*(p.Out.H-1)+1).Stride(w.StrideH), gx.AxisRange(kx, kx+w.StrideW*(p.Out.W-1)+1).Stride(w.StrideW)))
		}
	}
	return gx.ReduceMax(gx.Stack(parts, 0), 0)
}

// windowMaxGrad is the input gradient of Σ windowMax(x) ⊙ c: at each offset of the window, c where that
// offset held the window's maximum (spreadWindows).
func windowMaxGrad(x, c *gx.Node, p Pool) *gx.Node {
	max, padded := windowMax(x, p), padNegInf(x, p.Window)
	return spreadWindows(c, p, func(ky, kx int) *gx.Node {
		w := p.Window
		held := gx.Slice(padded, gx.AxisRange(), gx.AxisRange(),
			gx.AxisRange(ky, ky+w.StrideH*(p.Out.H-1)+1).Stride(w.StrideH), gx.AxisRange(kx, kx+w.StrideW*(p.Out.W-1)+1).Stride(w.StrideW))
		return gx.Where(gx.Equal(held, max), c, gx.ZerosLike(c))
	})
}

// spreadWindows is the adjoint of a window's gather, built from gomlx's forward ops (its autodiff of strided
// slices and of SumPool fails in v0.28.2's Go backend): for each offset (ky, kx) of the window, part(ky, kx)
// [n, C, Out.H, Out.W] spread over the padded image by Pad's interior padding (the stride) and its edges (the
// offset), all summed, the padding cropped.
func spreadWindows(c *gx.Node, p Pool, part func(ky, kx int) *gx.Node) *gx.Node {
	w, in := p.Window, p.In
	ph, pw := in.H+2*w.PadH, in.W+2*w.PadW
	zero := gx.ScalarZero(c.Graph(), dtypes.Float64)
	var sum *gx.Node
	for ky := 0; ky < w.KH; ky++ {
		for kx := 0; kx < w.KW; kx++ {
			endH := ph - (ky + w.StrideH*(p.Out.H-1) + 1)
			endW := pw - (kx + w.StrideW*(p.Out.W-1) + 1)
			spread := gx.Pad(part(ky, kx), zero, gx.PadAxis{}, gx.PadAxis{},
				gx.PadAxis{Start: ky, End: endH, Interior: w.StrideH - 1}, gx.PadAxis{Start: kx, End: endW, Interior: w.StrideW - 1})
			if sum == nil {
				sum = spread
			} else {
				sum = gx.Add(sum, spread)
			}
		}
	}
	return gx.Slice(sum, gx.AxisRange(), gx.AxisRange(), gx.AxisRange(w.PadH, w.PadH+in.H), gx.AxisRange(w.PadW, w.PadW+in.W))
}

// TestMaxPoolAsGomlxMaxPool: windowMax gives gomlx's MaxPool's values.
func TestMaxPoolAsGomlxMaxPool(t *testing.T) {
	r := rng.New(11)
	for trial := 0; trial < 10; trial++ {
		in := randShape(r)
		p, err := NewPool(in, randWindow(r, in))
		if err != nil {
			t.Fatal(err)
		}
		x := randSlice(r, 2*in.Size(), 1)
		exec := gx.MustNewExec(oracleBackend(), func(xn *gx.Node) (*gx.Node, *gx.Node) {
			return windowMax(xn, p), gx.MaxPool(xn).ChannelsAxis(timage.ChannelsFirst).WindowPerAxis(p.Window.KH, p.Window.KW).
				StridePerAxis(p.Window.StrideH, p.Window.StrideW).PaddingPerDim(padding(p.Window)).Done()
		})
		res := exec.MustExec(tensors.FromFlatDataAndDimensions(f64(x), 2, in.C, in.H, in.W))
		a, b := tensors.MustCopyFlatData[float64](res[0]), tensors.MustCopyFlatData[float64](res[1])
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("max-pool %v, window %+v: %v by slices, %v by gomlx's MaxPool", in, p.Window, a, b)
		}
	}
}

// adjointConv is the adjoint of the convolution with kernel w [out.C, in.C, KH, KW] and window win, from images
// of shape in to images of shape out, applied to v [n, out.C, out.H, out.W]: gomlx's forward convolution of v,
// dilated by the stride, with the kernel reversed in space and its channels swapped, padded to give back in's
// height and width. (gomlx v0.28.2's own gradient of a convolution refuses even kernels with padding and some
// strided sizes; this is the same reverse convolution, for every window.)
func adjointConv(v, w *gx.Node, in, out Shape, win Window) *gx.Node {
	rev := gx.Transpose(gx.Reverse(w, 2, 3), 0, 1)
	pads := [][2]int{{win.KH - 1 - win.PadH, 0}, {win.KW - 1 - win.PadW, 0}}
	pads[0][1] = in.H + win.KH - 2 - win.StrideH*(out.H-1) - pads[0][0]
	pads[1][1] = in.W + win.KW - 2 - win.StrideW*(out.W-1) - pads[1][0]
	return gx.Convolve(v, rev).ChannelsAxis(timage.ChannelsFirst).InputDilationPerAxis(win.StrideH, win.StrideW).PaddingPerDim(pads).Done()
}

// TestImageLayersAgreeWithGomlx: conv2d, conv-transpose2d, max- and average pooling, nearest upsampling,
// leaky ReLU and tanh against gomlx, on six random shapes each.
func TestImageLayersAgreeWithGomlx(t *testing.T) {
	r := rng.New(2026)
	for trial := 0; trial < 6; trial++ {
		in := randShape(r)
		conv, convT := randConv(t, r, in), randConvTranspose(t, r, in)
		pool, err := NewPool(in, randWindow(r, in))
		if err != nil {
			t.Fatal(err)
		}
		up, _ := NewUpsample(in, 1+r.IntN(3), 1+r.IntN(2))
		describe := func(layer string, w Window) string {
			return fmt.Sprintf("%s %v, kernel %d×%d, stride %d×%d, padding %d×%d", layer, in, w.KH, w.KW, w.StrideH, w.StrideW, w.PadH, w.PadW)
		}
		bias := func(g *gx.Graph, b []float32) *gx.Node { return constant(g, b, 1, len(b), 1, 1) }
		cases := []layerCase{
			{name: describe("conv2d", conv.Window), in: in, out: conv.Out, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, conv) },
				gomlx: func(x *gx.Node) *gx.Node {
					w := constant(x.Graph(), conv.W, conv.Out.C, in.C, conv.Window.KH, conv.Window.KW)
					y := gx.Convolve(x, w).ChannelsAxis(timage.ChannelsFirst).StridePerAxis(conv.Window.StrideH, conv.Window.StrideW).
						PaddingPerDim(padding(conv.Window)).Done()
					return gx.Add(y, bias(x.Graph(), conv.B))
				},
				inputGrad: func(_, c *gx.Node) *gx.Node {
					return adjointConv(c, constant(c.Graph(), conv.W, conv.Out.C, in.C, conv.Window.KH, conv.Window.KW), in, conv.Out, conv.Window)
				}},
			// gomlx has no transposed convolution: its forward is the adjoint of a convolution from the output's
			// channels to the input's (PyTorch's [in, out, kh, kw] read as such a convolution's kernel), plus the
			// bias, and its input gradient that convolution of c.
			{name: describe("conv-transpose2d", convT.Window) + fmt.Sprintf(", output padding %d×%d", convT.Window.OutPadH, convT.Window.OutPadW),
				in: in, out: convT.Out, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.ConvTranspose2D(x, convT) },
				gomlx: func(x *gx.Node) *gx.Node {
					w := constant(x.Graph(), convT.W, in.C, convT.Out.C, convT.Window.KH, convT.Window.KW)
					return gx.Add(adjointConv(x, w, convT.Out, in, convT.Window), bias(x.Graph(), convT.B))
				},
				inputGrad: func(_, c *gx.Node) *gx.Node {
					w := constant(c.Graph(), convT.W, in.C, convT.Out.C, convT.Window.KH, convT.Window.KW)
					return gx.Convolve(c, w).ChannelsAxis(timage.ChannelsFirst).StridePerAxis(convT.Window.StrideH, convT.Window.StrideW).
						PaddingPerDim(padding(convT.Window)).Done()
				}},
			{name: describe("max-pool", pool.Window), in: in, out: pool.Out, init: distinct,
				engine:    func(g *Graph, x *Tensor) *Tensor { return g.MaxPool2D(x, &pool) },
				gomlx:     func(x *gx.Node) *gx.Node { return windowMax(x, pool) },
				inputGrad: func(x, c *gx.Node) *gx.Node { return windowMaxGrad(x, c, pool) }},
			// PyTorch's average counts the padding (count_include_pad): a sum over the window over KH·KW.
			{name: describe("avg-pool", pool.Window), in: in, out: pool.Out, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.AvgPool2D(x, &pool) },
				gomlx: func(x *gx.Node) *gx.Node {
					s := gx.SumPool(x).ChannelsAxis(timage.ChannelsFirst).WindowPerAxis(pool.Window.KH, pool.Window.KW).
						StridePerAxis(pool.Window.StrideH, pool.Window.StrideW).PaddingPerDim(padding(pool.Window)).Done()
					return gx.DivScalar(s, float64(pool.Window.KH*pool.Window.KW))
				},
				inputGrad: func(_, c *gx.Node) *gx.Node {
					share := gx.DivScalar(c, float64(pool.Window.KH*pool.Window.KW))
					return spreadWindows(c, pool, func(int, int) *gx.Node { return share })
				}},
			// Nearest upsampling by whole factors: each value broadcast over its block.
			{name: fmt.Sprintf("upsample %v by %d×%d", in, up.ScaleH, up.ScaleW), in: in, out: up.Out, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Upsample2D(x, &up) },
				gomlx: func(x *gx.Node) *gx.Node {
					n := x.Shape().Dimensions[0]
					b := gx.BroadcastToDims(gx.Reshape(x, n, in.C, in.H, 1, in.W, 1), n, in.C, in.H, up.ScaleH, in.W, up.ScaleW)
					return gx.Reshape(b, n, up.Out.C, up.Out.H, up.Out.W)
				}},
			{name: fmt.Sprintf("leaky relu %v", in), in: in, out: in, init: awayFromKinks,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.LeakyReLU(x, 0.05) },
				gomlx: func(x *gx.Node) *gx.Node {
					return gx.Where(gx.GreaterThan(x, gx.ScalarZero(x.Graph(), dtypes.Float64)), x, gx.MulScalar(x, float64(float32(0.05))))
				}},
			{name: fmt.Sprintf("tanh %v", in), in: in, out: in, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Tanh(x) },
				gomlx:  gx.Tanh},
		}
		for _, lc := range cases {
			lc.check(t, r, 1+r.IntN(3))
		}
	}
}
