package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/engine/rng"
)

// Grouped and dilated convolutions (PyTorch's groups and dilation): against their definitions, finite
// differences, the general grouped path, the sparse products and compaction, and a golden hash.

// naiveGroupConv is a grouped, dilated convolution written out as its definition, in float64: output channel o
// of group g = o/(Out.C/G) sums input channels g·In.C/G … over taps at (oy·s − p + ky·d, ox·s − p + kx·d).
func naiveGroupConv(c *Conv, x []float32) []float64 {
	in, out, w := c.In, c.Out, c.Window
	dh, dw := w.dilation()
	G := c.groups()
	cg, og := in.C/G, out.C/G
	y := make([]float64, out.Size())
	for o := 0; o < out.C; o++ {
		g := o / og
		for oy := 0; oy < out.H; oy++ {
			for ox := 0; ox < out.W; ox++ {
				s := float64(c.B[o])
				for j := 0; j < cg; j++ {
					ci := g*cg + j
					for ky := 0; ky < w.KH; ky++ {
						for kx := 0; kx < w.KW; kx++ {
							iy, ix := oy*w.StrideH-w.PadH+ky*dh, ox*w.StrideW-w.PadW+kx*dw
							if iy >= 0 && iy < in.H && ix >= 0 && ix < in.W {
								s += float64(c.W[((o*cg+j)*w.KH+ky)*w.KW+kx]) * float64(x[(ci*in.H+iy)*in.W+ix])
							}
						}
					}
				}
				y[(o*out.H+oy)*out.W+ox] = s
			}
		}
	}
	return y
}

// naiveGroupConvTranspose is a grouped, dilated transposed convolution as its definition: every input value of
// channel ci (group g = ci/(In.C/G)) spreads its kernel over output channels g·Out.C/G …, tap (ky, kx) landing
// at (iy·s − p + ky·d, ix·s − p + kx·d), in float64.
func naiveGroupConvTranspose(c *ConvTranspose, x []float32) []float64 {
	in, out, w := c.In, c.Out, c.Window
	dh, dw := w.dilation()
	G := c.groups()
	cg, og := in.C/G, out.C/G
	y := make([]float64, out.Size())
	for o := 0; o < out.C; o++ {
		for i := 0; i < out.H*out.W; i++ {
			y[o*out.H*out.W+i] = float64(c.B[o])
		}
	}
	for ci := 0; ci < in.C; ci++ {
		g := ci / cg
		for iy := 0; iy < in.H; iy++ {
			for ix := 0; ix < in.W; ix++ {
				v := float64(x[(ci*in.H+iy)*in.W+ix])
				for j := 0; j < og; j++ {
					o := g*og + j
					for ky := 0; ky < w.KH; ky++ {
						for kx := 0; kx < w.KW; kx++ {
							oy, ox := iy*w.StrideH-w.PadH+ky*dh, ix*w.StrideW-w.PadW+kx*dw
							if oy >= 0 && oy < out.H && ox >= 0 && ox < out.W {
								y[(o*out.H+oy)*out.W+ox] += v * float64(c.W[((ci*og+j)*w.KH+ky)*w.KW+kx])
							}
						}
					}
				}
			}
		}
	}
	return y
}

// randGroups is 1, 2 (when it divides c) or c (depthwise), at random.
func randGroups(r *rng.Rand, c int) int {
	switch r.IntN(3) {
	case 0:
		return 1
	case 1:
		if c%2 == 0 {
			return 2
		}
	}
	return c
}

// randDilatedWindow is a kernel of 1–3 by 1–3, strides 1–2, dilations 1–3 and padding up to the dilated kernel's
// half reach, that fits in (for a convolution: at least one output).
func randDilatedWindow(r *rng.Rand, in Shape) Window {
	for {
		w := Window{KH: 1 + r.IntN(3), KW: 1 + r.IntN(3), StrideH: 1 + r.IntN(2), StrideW: 1 + r.IntN(2), DilH: 1 + r.IntN(3), DilW: 1 + r.IntN(3)}
		w.PadH, w.PadW = r.IntN(w.DilH*(w.KH-1)/2+1), r.IntN(w.DilW*(w.KW-1)/2+1)
		if dilatedOut(in.H, w.KH, w.StrideH, w.PadH, w.DilH) >= 1 && dilatedOut(in.W, w.KW, w.StrideW, w.PadW, w.DilW) >= 1 {
			return w
		}
	}
}

// randGroupShape is an image of 1–6 channels, 4–9 by 4–9.
func randGroupShape(r *rng.Rand) Shape { return Shape{1 + r.IntN(6), 4 + r.IntN(6), 4 + r.IntN(6)} }

func randGroupConv(t testing.TB, r *rng.Rand, in Shape) *Conv {
	groups := randGroups(r, in.C)
	win := randDilatedWindow(r, in)
	outC := groups * (1 + r.IntN(2))
	k := in.C / groups * win.KH * win.KW
	c, err := NewConvGroups(in, outC, win, groups, randSlice(r, outC*k, 1/math.Sqrt(float64(k))), randSlice(r, outC, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

func randGroupConvTranspose(t testing.TB, r *rng.Rand, in Shape) *ConvTranspose {
	groups := randGroups(r, in.C)
	win := randDilatedWindow(r, in)
	win.OutPadH, win.OutPadW = r.IntN(max(win.StrideH, win.DilH)), r.IntN(max(win.StrideW, win.DilW))
	outC := groups * (1 + r.IntN(2))
	k := outC / groups * win.KH * win.KW
	c, err := NewConvTransposeGroups(in, outC, win, groups, randSlice(r, in.C*k, 1/math.Sqrt(float64(k))), randSlice(r, outC, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

func describeWindow(w Window) string {
	return fmt.Sprintf("kernel %d×%d, stride %d×%d, padding %d×%d, dilation %d×%d, output padding %d×%d",
		w.KH, w.KW, w.StrideH, w.StrideW, w.PadH, w.PadW, w.DilH, w.DilW, w.OutPadH, w.OutPadW)
}

// withSparse runs f with the sparse products on or off (conv_sparse_test.go's withSparseProducts, which a
// denseonly build of the tests leaves out), on every pass wide enough to run them (sparseAnyWidth), not only
// those sparsePays picks.
func withSparse(on bool, f func()) {
	old, oldAny := sparseProducts, sparseAnyWidth
	sparseProducts, sparseAnyWidth = on, on
	defer func() { sparseProducts, sparseAnyWidth = old, oldAny }()
	f()
}

// withDirectDepthwise runs f with the depthwise convolutions' own loops on or off.
func withDirectDepthwise(on bool, f func()) {
	old := directDepthwise
	directDepthwise = on
	defer func() { directDepthwise = old }()
	f()
}

// TestGroupedConvAgainstDefinition: grouped (1, 2 and depthwise) and dilated convolutions and transposed
// convolutions through the windows and the kernel agree with their definitions (float64) within float32
// rounding, on random shapes, for every row of a batch; the depthwise ones with their own loops and without.
func TestGroupedConvAgainstDefinition(t *testing.T) {
	r := rng.New(71)
	seen := map[string]int{}
	for trial := 0; trial < 60; trial++ {
		in := randGroupShape(r)
		conv, convT := randGroupConv(t, r, in), randGroupConvTranspose(t, r, in)
		for _, direct := range []bool{true, false} {
			withDirectDepthwise(direct, func() {
				g := NewGraph(3)
				x := g.Input(in.Size(), false)
				y, yt := g.Conv2D(x, conv), g.ConvTranspose2D(x, convT)
				normal(r, x.Data)
				g.Forward()
				for i := 0; i < 3; i++ {
					if e := relErr(y.Row(i), naiveGroupConv(conv, x.Row(i)), 1e-3); e > 1e-6 {
						t.Errorf("conv2d %v → %v in %d groups, %s, row %d (direct %v): relative error %.2e against the definition",
							in, conv.Out, conv.Groups, describeWindow(conv.Window), i, direct, e)
					}
					if e := relErr(yt.Row(i), naiveGroupConvTranspose(convT, x.Row(i)), 1e-3); e > 1e-6 {
						t.Errorf("conv-transpose2d %v → %v in %d groups, %s, row %d: relative error %.2e against the definition",
							in, convT.Out, convT.Groups, describeWindow(convT.Window), i, e)
					}
				}
			})
		}
		kind := func(groups, c int) string {
			switch {
			case groups == c && groups > 1:
				return "depthwise"
			case groups > 1:
				return "grouped"
			}
			return "plain"
		}
		seen["conv "+kind(conv.Groups, in.C)]++
		seen["conv-transpose "+kind(convT.Groups, in.C)]++
		if conv.Window.DilH > 1 || conv.Window.DilW > 1 {
			seen["conv dilated"]++
		}
	}
	for _, k := range []string{"conv plain", "conv grouped", "conv depthwise", "conv-transpose plain", "conv-transpose grouped", "conv-transpose depthwise"} {
		if seen[k] < 3 {
			t.Errorf("only %d trials of %s: %v", seen[k], k, seen)
		}
	}
	t.Logf("trials: %v", seen)
}

// TestGroupedConvGradients: the input gradients of grouped and dilated convolutions and transposed
// convolutions against central finite differences, on random shapes, for a batch of two; and of a grouped
// convolution per MC sample.
func TestGroupedConvGradients(t *testing.T) {
	r := rng.New(73)
	for trial := 0; trial < 12; trial++ {
		in := randGroupShape(r)
		conv, convT := randGroupConv(t, r, in), randGroupConvTranspose(t, r, in)
		gradCheck(t, fmt.Sprintf("conv2d %v → %v in %d groups, %s", in, conv.Out, conv.Groups, describeWindow(conv.Window)),
			2, in.Size(), normal, func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, conv) })
		gradCheck(t, fmt.Sprintf("conv-transpose2d %v → %v in %d groups, %s", in, convT.Out, convT.Groups, describeWindow(convT.Window)),
			2, in.Size(), normal, func(g *Graph, x *Tensor) *Tensor { return g.ConvTranspose2D(x, convT) })
	}
	// A depthwise convolution with a channel multiplier per MC sample, each sample's mask folded into its input
	// channels, then the samples' predictive.
	in := Shape{4, 6, 5}
	layers := make([]Conv, 3)
	for k := range layers {
		w := randSlice(r, 8*9, 0.4)
		for o := 0; o < 8; o++ {
			if o/2 == k { // sample k drops input channel k
				clear(w[o*9 : (o+1)*9])
			}
		}
		var err error
		if layers[k], err = NewConvGroups(in, 8, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 2, PadH: 2, PadW: 1, DilH: 2}, 4, w, randSlice(r, 8, 0.1)); err != nil {
			t.Fatal(err)
		}
	}
	proj := randLayer(r, layers[0].Out.Size(), 3)
	gradCheck(t, "depthwise conv per MC sample", 2, in.Size(), normal, func(g *Graph, x *Tensor) *Tensor {
		return g.Predictive(g.Dense(g.ConvSamples(x, layers), proj), nil).Total
	})
}

// TestGroupedConvSamples: a grouped convolution per MC sample gives, sample by sample, the bits of that sample's
// convolution alone, forward and backward (on a per-sample input, whose gradient is each sample's own).
func TestGroupedConvSamples(t *testing.T) {
	r := rng.New(79)
	in := Shape{6, 7, 6}
	var layers []Conv
	for k := 0; k < 3; k++ {
		c, err := NewConvGroups(in, 4, Window{KH: 3, KW: 2, StrideH: 2, StrideW: 1, PadH: 1, DilW: 2}, 2, randSlice(r, 4*3*6, 0.3), randSlice(r, 4, 0.1))
		if err != nil {
			t.Fatal(err)
		}
		layers = append(layers, c)
	}
	const batch = 2
	x := randSlice(r, 3*batch*in.Size(), 1)
	dy := randSlice(r, 3*batch*layers[0].Out.Size(), 1)
	g := NewGraph(batch)
	xs := g.newTensor(in.Size(), 3, true) // a per-sample input
	ys := g.ConvSamples(xs, layers)
	copy(xs.Data, x)
	g.Forward()
	copy(ys.Grad, dy)
	ys.producer.backward() // its input's only reader: the gradient lands in it from +0
	for k := range layers {
		g1 := NewGraph(batch)
		x1 := g1.Input(in.Size(), true)
		y1 := g1.Conv2D(x1, &layers[k])
		copy(x1.Data, x[k*batch*in.Size():])
		g1.Forward()
		copy(y1.Grad, dy[k*batch*y1.Cols:(k+1)*batch*y1.Cols])
		y1.producer.backward()
		sameBits(t, fmt.Sprintf("sample %d", k),
			map[string][]float32{"y": y1.Live(), "∂x": x1.Grad[:batch*in.Size()]},
			map[string][]float32{"y": block(ys, k, false), "∂x": block(xs, k, true)}, nil)
	}
}

// TestGroupedConvShapes: PyTorch's output shapes for grouped and dilated settings, the multiply-adds, the
// weight layouts' sizes, and the refusals.
func TestGroupedConvShapes(t *testing.T) {
	// Conv2d(8, 16, 3, padding=2, dilation=2, groups=4) on 8×10×10 → 16×10×10; (32, 32, 3, stride=2, padding=1,
	// groups=32) on 32×14×14 → 32×7×7; ConvTranspose2d(6, 4, 3, stride=2, padding=1, output_padding=1,
	// dilation=2, groups=2) on 6×5×4 → 4×12×10; ConvTranspose2d(2, 2, 3, output_padding=1, dilation=2) on
	// 2×3×3 → 2×8×8 (output padding below the dilation, not the stride).
	c, err := NewConvGroups(Shape{8, 10, 10}, 16, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 2, PadW: 2, DilH: 2, DilW: 2}, 4, make([]float32, 16*2*9), make([]float32, 16))
	if err != nil || c.Out != (Shape{16, 10, 10}) || c.MultiplyAdds() != 16*100*2*9 {
		t.Errorf("grouped dilated conv: %v, %d multiply-adds, %v", c.Out, c.MultiplyAdds(), err)
	}
	d, err := NewConvGroups(Shape{32, 14, 14}, 32, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}, 32, make([]float32, 32*9), make([]float32, 32))
	if err != nil || d.Out != (Shape{32, 7, 7}) || d.MultiplyAdds() != 32*49*9 {
		t.Errorf("depthwise conv: %v, %d multiply-adds, %v", d.Out, d.MultiplyAdds(), err)
	}
	ct, err := NewConvTransposeGroups(Shape{6, 5, 4}, 4, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, OutPadH: 1, OutPadW: 1, DilH: 2, DilW: 2}, 2,
		make([]float32, 6*2*9), make([]float32, 4))
	if err != nil || ct.Out != (Shape{4, 12, 10}) || ct.MultiplyAdds() != 6*20*2*9 {
		t.Errorf("grouped dilated conv-transpose: %v, %d multiply-adds, %v", ct.Out, ct.MultiplyAdds(), err)
	}
	ct2, err := NewConvTranspose(Shape{2, 3, 3}, 2, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, OutPadH: 1, OutPadW: 1, DilH: 2, DilW: 2}, make([]float32, 2*2*9), make([]float32, 2))
	if err != nil || ct2.Out != (Shape{2, 8, 8}) {
		t.Errorf("dilated conv-transpose with output padding below the dilation: %v, %v", ct2.Out, err)
	}
	// Every existing Window literal means what it meant: DilH, DilW 0 is 1, and a plain layer has 1 group.
	p, err := NewConv(Shape{3, 9, 9}, 4, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}, make([]float32, 4*27), make([]float32, 4))
	if err != nil || p.Out != (Shape{4, 5, 5}) || p.Groups != 1 {
		t.Errorf("plain conv: %v, groups %d, %v", p.Out, p.Groups, err)
	}
	for _, bad := range []struct {
		what string
		err  func() error
	}{
		{"groups not dividing the input channels", func() error {
			_, err := NewConvGroups(Shape{3, 4, 4}, 4, Window{KH: 1, KW: 1, StrideH: 1, StrideW: 1}, 2, make([]float32, 4), make([]float32, 4))
			return err
		}},
		{"groups not dividing the output channels", func() error {
			_, err := NewConvGroups(Shape{4, 4, 4}, 3, Window{KH: 1, KW: 1, StrideH: 1, StrideW: 1}, 2, make([]float32, 6), make([]float32, 3))
			return err
		}},
		{"0 groups", func() error {
			_, err := NewConvGroups(Shape{4, 4, 4}, 4, Window{KH: 1, KW: 1, StrideH: 1, StrideW: 1}, 0, make([]float32, 16), make([]float32, 4))
			return err
		}},
		{"a transposed convolution's groups not dividing its output channels", func() error {
			_, err := NewConvTransposeGroups(Shape{4, 4, 4}, 3, Window{KH: 1, KW: 1, StrideH: 1, StrideW: 1}, 2, make([]float32, 6), make([]float32, 3))
			return err
		}},
		{"weights of the ungrouped size", func() error {
			_, err := NewConvGroups(Shape{4, 4, 4}, 4, Window{KH: 1, KW: 1, StrideH: 1, StrideW: 1}, 2, make([]float32, 16), make([]float32, 4))
			return err
		}},
		{"a negative dilation", func() error {
			_, err := NewConv(Shape{1, 4, 4}, 1, Window{KH: 2, KW: 2, StrideH: 1, StrideW: 1, DilH: -1}, make([]float32, 4), make([]float32, 1))
			return err
		}},
		{"a dilated kernel larger than the input", func() error {
			_, err := NewConv(Shape{1, 4, 4}, 1, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, DilH: 2, DilW: 2}, make([]float32, 9), make([]float32, 1))
			return err
		}},
		{"a kernel larger than the input, strided", func() error {
			_, err := NewConv(Shape{1, 2, 2}, 1, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2}, make([]float32, 9), make([]float32, 1))
			return err
		}},
		{"output padding not below the stride or the dilation", func() error {
			_, err := NewConvTranspose(Shape{1, 4, 4}, 1, Window{KH: 2, KW: 2, StrideH: 2, StrideW: 2, OutPadH: 2, DilH: 2}, make([]float32, 4), make([]float32, 1))
			return err
		}},
	} {
		if err := bad.err(); err == nil {
			t.Errorf("%s: accepted", bad.what)
		} else {
			t.Logf("%s: %v", bad.what, err)
		}
	}
}

// TestDepthwiseDirectKeepsBits: a depthwise convolution's planes (depthwisePlanes) give the bits of the general
// grouped path (the windows gathered, one product per group, scattered back), forward and backward, with and
// without a channel multiplier, strided and dilated, on inputs and gradients with exact zeros and -0 and weights
// with zeros, with its input's gradient fresh and shared (a second reader), per point and per MC sample, in one
// pass of images and in several (images large enough that a pass takes one or two), the last one partial.
func TestDepthwiseDirectKeepsBits(t *testing.T) {
	r := rng.New(83)
	for trial := 0; trial < 44; trial++ {
		in := randGroupShape(r)
		win := randDilatedWindow(r, in)
		if trial >= 40 { // a pass of one or two images (planes of 900 values or more)
			in = Shape{2 + r.IntN(2), 30 + r.IntN(12), 30 + r.IntN(12)}
			win = randDilatedWindow(r, in)
			win.StrideH, win.StrideW = 1, 1
		}
		m := 1 + r.IntN(3)
		w := randSlice(r, in.C*m*win.KH*win.KW, 0.5)
		zeroEveryFifth(w)
		conv, err := NewConvGroups(in, in.C*m, win, in.C, w, randSlice(r, in.C*m, 0.1))
		if err != nil {
			t.Fatal(err)
		}
		const batch = 3
		x := randSlice(r, batch*in.Size(), 1)
		signedZeros(x)
		shared, samples := trial%2 == 1, trial%3 == 2
		run := func() map[string][]float32 {
			g := NewGraph(batch + 2) // a batch below the capacity, as a search's shrinks
			if err := g.SetBatch(batch); err != nil {
				t.Fatal(err)
			}
			z := g.Input(in.Size(), true)
			var y *Tensor
			if samples {
				y = g.ConvSamples(z, []Conv{conv, conv})
			} else {
				y = g.Conv2D(z, &conv)
			}
			h := g.ReLU(y) // a ReLU's gradient: zeros where it was inactive
			if samples {
				h = g.Dense(h, randLayer(rng.New(3), h.Cols, 4))
				h = g.Predictive(h, nil).Total
			}
			var loss *Tensor
			if shared {
				loss = g.Sum(Term{1, g.Dense(h, randLayer(rng.New(1), h.Cols, 1))}, Term{1, g.Dense(z, randLayer(rng.New(2), in.Size(), 1))})
			} else {
				loss = g.Dense(h, randLayer(rng.New(1), h.Cols, 1))
			}
			copy(z.Data, x)
			g.Forward()
			g.Backward(loss, nil)
			if o, ok := y.producer.(*convOp); ok && directDepthwise && trial >= 40 && (o.dw == nil || o.dw.chunk > 2) {
				t.Fatalf("trial %d: no passes of one or two images", trial)
			}
			return map[string][]float32{"y": append([]float32(nil), y.Live()...), "∂x": append([]float32(nil), z.Grad[:batch*in.Size()]...)}
		}
		var general, direct map[string][]float32
		withDirectDepthwise(false, func() { general = run() })
		withDirectDepthwise(true, func() { direct = run() })
		sameBits(t, fmt.Sprintf("trial %d: depthwise %v → %v, %s, shared %v, per sample %v", trial, in, conv.Out, describeWindow(win), shared, samples), general, direct, nil)
	}
}

// groupedSparseStack is sparseStack's kind of network with grouped and dilated layers among plain ones: a plain
// convolution, a depthwise dilated one, a grouped one, a plain dilated one, a grouped one per MC sample, a plain
// dilated transposed convolution and a grouped one, ReLUs between, a dense layer last. It returns its outputs
// and its input's gradient, and how many forward and backward passes of its grouped and of its plain
// convolutions multiplied sparse.
func groupedSparseStack(t *testing.T, batch int, x []float32, compact bool) (map[string][]float32, [4]int) {
	r := rng.New(91)
	in := Shape{6, 9, 8}
	conv := func(in Shape, out, groups int, w Window) *Conv {
		k := in.C / groups * w.KH * w.KW
		c, err := NewConvGroups(in, out, w, groups, randSlice(r, out*k, 1/math.Sqrt(float64(k))), randSlice(r, out, 0.2))
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	convT := func(in Shape, out, groups int, w Window) *ConvTranspose {
		k := out / groups * w.KH * w.KW
		c, err := NewConvTransposeGroups(in, out, w, groups, randSlice(r, in.C*k, 1/math.Sqrt(float64(in.C/groups))), randSlice(r, out, 0.2))
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	c1 := conv(in, 20, 1, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
	dw := conv(c1.Out, 20, 20, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 2, PadW: 2, DilH: 2, DilW: 2})
	gc := conv(dw.Out, 24, 4, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1})
	dc := conv(gc.Out, 18, 1, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 2, PadW: 1, DilH: 2})
	samples := make([]Conv, 3)
	for k := range samples {
		samples[k] = *conv(dc.Out, 16, 2, Window{KH: 2, KW: 2, StrideH: 1, StrideW: 1})
		w := samples[k].W // sample k's dropout: some input channels' weights are zero
		for o := 0; o < 16; o++ {
			for c := k; c < 9; c += 3 {
				clear(w[(o*9+c)*4 : (o*9+c+1)*4])
			}
		}
		samples[k], _ = NewConvGroups(dc.Out, 16, samples[k].Window, 2, w, samples[k].B)
	}
	t1 := convT(samples[0].Out, 18, 1, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, OutPadH: 1, OutPadW: 1, DilH: 2, DilW: 2})
	t2 := convT(t1.Out, 4, 2, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 2, PadW: 2, DilH: 2, DilW: 2})
	g := NewGraph(batch)
	z := g.Input(in.Size(), true)
	h := g.ReLU(g.Conv2D(z, c1))
	h = g.ReLU(g.Conv2D(g.ReLU(g.Conv2D(h, dw)), gc))
	h = g.ReLU(g.ConvSamples(g.ReLU(g.Conv2D(h, dc)), samples))
	h = g.ConvTranspose2D(g.ReLU(g.ConvTranspose2D(h, t1)), t2)
	loss := g.Predictive(g.Dense(g.ReLU(h), randLayer(r, h.Cols, 4)), nil).Total
	copy(z.Data, x)
	var out map[string][]float32
	withCompaction(compact, func() {
		g.Forward()
		g.Backward(loss, nil)
		out = map[string][]float32{"out": append([]float32(nil), h.Live()...), "loss": append([]float32(nil), loss.Live()...),
			"∂x": append([]float32(nil), z.Grad[:batch*in.Size()]...)}
	})
	var passes [4]int // grouped forward, grouped backward, plain forward, plain backward
	for _, o := range g.ops {
		var s *convScratch
		var groups int
		switch o := o.(type) {
		case *convOp:
			s, groups = &o.convScratch, o.l.groups()
		case *convTransposeOp:
			s, groups = &o.convScratch, o.l.groups()
		case *convSamplesOp:
			s, groups = &o.convScratch, o.layers[0].groups()
		default:
			continue
		}
		i := 0
		if groups == 1 {
			i = 2
		}
		if s.sparseFwd {
			passes[i]++
		}
		if s.sparseBwd {
			passes[i+1]++
		}
	}
	return out, passes
}

// TestGroupedSparseKeepsBits: in a stack of grouped, dilated and plain convolutions, the sparse products on and
// off, compaction on and off and the depthwise loops on and off give the same bits, at several batch sizes; the
// plain (and plain dilated) convolutions still multiply sparse where they did, the grouped ones never.
func TestGroupedSparseKeepsBits(t *testing.T) {
	r := rng.New(97)
	for trial, batch := range []int{1, 4, 7} {
		x := randSlice(r, batch*6*9*8, 1)
		for i := range x {
			switch i % 7 {
			case 2:
				x[i] = 0
			case 5:
				x[i] = float32(math.Copysign(0, -1))
			}
		}
		var plain, dense, sparse, gathered map[string][]float32
		var passes [4]int
		withSparse(false, func() { plain, _ = groupedSparseStack(t, batch, x, false) })
		withSparse(false, func() { dense, _ = groupedSparseStack(t, batch, x, true) })
		withSparse(true, func() { sparse, passes = groupedSparseStack(t, batch, x, true) })
		withDirectDepthwise(false, func() {
			withSparse(true, func() { gathered, _ = groupedSparseStack(t, batch, x, true) })
		})
		// Plain: the dilated convolution and the dilated transposed one forward (a ReLU made their inputs);
		// the first convolution, the dilated one and the dilated transposed one backward (a ReLU reads each).
		if passes != [4]int{0, 0, 2, 3} {
			t.Fatalf("sparse passes (grouped forward, backward, plain forward, backward) %v, want [0 0 2 3]", passes)
		}
		sameBits(t, fmt.Sprintf("trial %d, batch %d, compaction", trial, batch), plain, dense, nil)
		sameBits(t, fmt.Sprintf("trial %d, batch %d, sparse", trial, batch), dense, sparse, nil)
		sameBits(t, fmt.Sprintf("trial %d, batch %d, depthwise gathered", trial, batch), sparse, gathered, nil)
	}
}

// groupsGolden is the SHA-256 of the bits of groupsHash's stack: two depthwise convolutions (one with a channel
// multiplier, strided and dilated), a grouped convolution, a dilated one and a grouped dilated transposed
// convolution, forward and backward; first computed natively (AVX-512), and the same natively with
// DELTACLUE_KERNEL=avx2 and =go, and in WASM with the pure-Go kernel and with the SIMD kernel.
const groupsGolden = "65cd4e73d1997173d2058d84a2f54017b14611d6b6daec05c1cdfdbca7abf20f"

// groupsHash runs groupsGolden's stack forward and backward on fixed inputs and hashes its outputs, loss and
// input gradient.
func groupsHash(t *testing.T) string {
	const batch = 5
	g, x, img, loss := groupsStack(t, batch)
	g.Forward()
	g.Backward(loss, nil)
	sum := sha256.New()
	for _, s := range [][]float32{img.Live(), loss.Live(), x.Grad[:batch*x.Cols]} {
		for _, v := range s {
			binary.Write(sum, binary.LittleEndian, math.Float32bits(v))
		}
	}
	return hex.EncodeToString(sum.Sum(nil))
}

// groupsStack builds groupsGolden's stack for a batch of capacity images, its input filled.
func groupsStack(t *testing.T, capacity int) (g *Graph, x, img, loss *Tensor) {
	r := rng.New(2031)
	in := Shape{4, 11, 10}
	mk := func(c Conv, err error) *Conv {
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	// depthwise 4 → 4, 3×3, padding 1
	dw1 := mk(NewConvGroups(in, 4, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1}, 4, randSlice(r, 4*9, 0.4), randSlice(r, 4, 0.1)))
	// depthwise 4 → 8 (a multiplier of 2), 3×3, stride 2, padding 2, dilation 2
	dw2 := mk(NewConvGroups(dw1.Out, 8, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 2, PadW: 2, DilH: 2, DilW: 2}, 4, randSlice(r, 8*9, 0.4), randSlice(r, 8, 0.1)))
	// grouped 8 → 12 in 2 groups, 3×3, padding 1
	gc := mk(NewConvGroups(dw2.Out, 12, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1}, 2, randSlice(r, 12*4*9, 0.2), randSlice(r, 12, 0.1)))
	// dilated 12 → 16, 3×3, dilation 2, padding 2
	dc := mk(NewConv(gc.Out, 16, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 2, PadW: 2, DilH: 2, DilW: 2}, randSlice(r, 16*12*9, 0.1), randSlice(r, 16, 0.1)))
	// grouped dilated transposed 16 → 6 in 2 groups, 3×3, stride 2, padding 1, dilation 2 × 1, output padding 1
	ct, err := NewConvTransposeGroups(dc.Out, 6, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, OutPadH: 1, OutPadW: 1, DilH: 2},
		2, randSlice(r, 16*3*9, 0.2), randSlice(r, 6, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	g = NewGraph(capacity)
	x = g.Input(in.Size(), true)
	h := g.ReLU(g.Conv2D(x, dw1))
	h = g.LeakyReLU(g.Conv2D(h, dw2), 0.1)
	h = g.ReLU(g.Conv2D(h, gc))
	h = g.ReLU(g.Conv2D(h, dc))
	img = g.Sigmoid(g.ConvTranspose2D(h, &ct))
	loss = g.L1(img, randSlice(r, ct.Out.Size(), 1))
	copy(x.Data, randSlice(r, capacity*in.Size(), 1))
	return g, x, img, loss
}

// TestGroupedLayersGolden: see groupsGolden; the hash holds with the depthwise loops and the sparse products on
// and off and with compaction off.
func TestGroupedLayersGolden(t *testing.T) {
	for _, c := range []struct {
		name                    string
		direct, sparse, compact bool
	}{
		{"default", directDepthwise, sparseProducts, compaction},
		{"depthwise gathered", false, sparseProducts, compaction},
		{"sparse products", directDepthwise, true, true},
		{"dense products", directDepthwise, false, true},
		{"compaction off", directDepthwise, sparseProducts, false},
	} {
		withDirectDepthwise(c.direct, func() {
			withSparse(c.sparse, func() {
				withCompaction(c.compact, func() {
					if got := groupsHash(t); got != groupsGolden {
						t.Errorf("%s: the grouped layers' stack hashes to %s, want %s (kernel %s)", c.name, got, groupsGolden, kernel.Native)
					}
				})
			})
		})
	}
}

// TestGroupedLayersAllocateNothing: a step of groupsGolden's stack allocates nothing, at its capacity and with a
// shrunk batch (the depthwise planes' last pass partial).
func TestGroupedLayersAllocateNothing(t *testing.T) {
	g, _, _, loss := groupsStack(t, 20)
	step := func() {
		g.Forward()
		g.Backward(loss, nil)
	}
	step()
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per forward+backward, want 0", a)
	}
	if err := g.SetBatch(7); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per step with a shrunk batch, want 0", a)
	}
}

// BenchmarkDepthwiseConv: a depthwise 3×3 convolution over 32 channels of 14×14 (MobileNet's kind), forward and
// backward on a batch of 100 images, with its own loops and gathered, beside plain convolutions of the same
// multiply-adds (32 → 1 channels, 3×3; 4 → 8, 3×3); the layer's own work, as BenchmarkImageLayers measures it.
func BenchmarkDepthwiseConv(b *testing.B) {
	r := rng.New(1)
	const n = 100
	conv := func(in Shape, outC, groups int) *Conv {
		c, err := NewConvGroups(in, outC, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1}, groups,
			randSlice(r, outC*in.C/groups*9, 0.1), randSlice(r, outC, 0.1))
		if err != nil {
			b.Fatal(err)
		}
		return &c
	}
	dw := conv(Shape{32, 14, 14}, 32, 32)
	p1, p2 := conv(Shape{32, 14, 14}, 1, 1), conv(Shape{4, 14, 14}, 8, 1)
	if p1.MultiplyAdds() != dw.MultiplyAdds() || p2.MultiplyAdds() != dw.MultiplyAdds() {
		b.Fatal("the plain convolutions' multiply-adds differ from the depthwise one's")
	}
	for _, c := range []struct {
		name   string
		l      *Conv
		direct bool
	}{
		{"depthwise 32×14×14, 3×3", dw, true},
		{"depthwise 32×14×14, 3×3, gathered", dw, false},
		{"conv 32×14×14→1, 3×3", p1, true},
		{"conv 4×14×14→8, 3×3", p2, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			withDirectDepthwise(c.direct, func() {
				g := NewGraph(n)
				x := g.Input(c.l.In.Size(), true)
				out := g.Conv2D(x, c.l)
				loss := g.L1(out, make([]float32, out.Cols))
				normal(r, x.Data)
				g.Forward()
				g.Backward(loss, nil)
				layer := out.producer
				b.ResetTimer()
				for range b.N {
					layer.forward()
					layer.backward()
				}
				b.ReportMetric(4*float64(c.l.MultiplyAdds())*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/step")
			})
		})
	}
}

// TestDepthwiseRowsKeepBits: a depthwise convolution of stride 1 or 2 by rows (kernel.Depthwise, natively with
// AVX-512; a stride of 2 through the outputs of stride 1) gives the bits of its planes and of its windows
// gathered, forward and input gradient: windows 1×1 to 5×5, strides 1–2 each way, paddings, dilations 1–2,
// images 1–40 wide, a batch below the graph's capacity, its input's gradient shared with another reader or not,
// inputs with +0 and -0, weights with zeros. Without the native loop (WebAssembly, AVX2) no convolution runs by
// rows, and the planes give the windows' bits.
func TestDepthwiseRowsKeepBits(t *testing.T) {
	r := rng.New(97)
	for trial := 0; trial < 60; trial++ {
		in := Shape{2 + r.IntN(5), 1 + r.IntN(12), 1 + r.IntN(40)}
		win := Window{KH: 1 + r.IntN(5), KW: 1 + r.IntN(5), StrideH: 1, StrideW: 1, DilH: 1 + r.IntN(2), DilW: 1 + r.IntN(2)}
		if trial%3 != 0 {
			win.StrideH, win.StrideW = 1+r.IntN(2), 1+r.IntN(2)
		}
		win.PadH, win.PadW = r.IntN(win.DilH*(win.KH-1)/2+1), r.IntN(win.DilW*(win.KW-1)/2+1)
		if dilatedOut(in.H, win.KH, win.StrideH, win.PadH, win.DilH) < 1 || dilatedOut(in.W, win.KW, win.StrideW, win.PadW, win.DilW) < 1 {
			continue
		}
		w := randSlice(r, in.C*win.KH*win.KW, 0.5)
		zeroEveryFifth(w)
		conv, err := NewConvGroups(in, in.C, win, in.C, w, randSlice(r, in.C, 0.1))
		if err != nil {
			t.Fatal(err)
		}
		const batch = 3
		x := randSlice(r, batch*in.Size(), 1)
		signedZeros(x)
		shared := trial%2 == 1
		run := func() map[string][]float32 {
			g := NewGraph(batch + 2)
			if err := g.SetBatch(batch); err != nil {
				t.Fatal(err)
			}
			z := g.Input(in.Size(), true)
			y := g.Conv2D(z, &conv)
			h := g.ReLU(y)
			loss := g.Dense(h, randLayer(rng.New(1), h.Cols, 1))
			if shared {
				loss = g.Sum(Term{1, loss}, Term{1, g.Dense(z, randLayer(rng.New(2), in.Size(), 1))})
			}
			copy(z.Data, x)
			g.Forward()
			g.Backward(loss, nil)
			if o := y.producer.(*convOp); (o.dwr != nil) != (depthwiseByRows && kernel.DepthwiseNative) {
				t.Fatalf("trial %d: by rows %v (native loop %v), but the op's rows are %v", trial, depthwiseByRows, kernel.DepthwiseNative, o.dwr)
			}
			return map[string][]float32{"y": append([]float32(nil), y.Live()...), "∂x": append([]float32(nil), z.Grad[:batch*in.Size()]...)}
		}
		what := fmt.Sprintf("trial %d: depthwise %v → %v, %s, shared %v", trial, in, conv.Out, describeWindow(win), shared)
		var windows, planes, rows map[string][]float32
		withDirectDepthwise(false, func() { windows = run() })
		depthwiseByRows = false
		planes = run()
		depthwiseByRows = true
		rows = run()
		sameBits(t, what+", rows against the windows", windows, rows, nil)
		sameBits(t, what+", rows against the planes", planes, rows, nil)
	}
}

// signedZeros sets every sixth value of x, from the second, to +0, and every sixth from the fifth to -0: the
// exact zeros a ReLU's output and a product's -0 give a convolution's input.
func signedZeros(x []float32) {
	for i := range x {
		switch i % 6 {
		case 1:
			x[i] = 0
		case 4:
			x[i] = float32(math.Copysign(0, -1))
		}
	}
}

// zeroEveryFifth sets every fifth weight, from the fourth, to +0 (weights a product may skip).
func zeroEveryFifth(w []float32) {
	for i := range w {
		if i%5 == 3 {
			w[i] = 0
		}
	}
}
