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

// relErr is ‖a − b‖ / max(‖b‖, floor).
func relErr(a []float32, b []float64, floor float64) float64 {
	var d, n float64
	for i := range b {
		d += (float64(a[i]) - b[i]) * (float64(a[i]) - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d) / math.Max(math.Sqrt(n), floor)
}

func f64(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// Random layer shapes for the image layers' checks: small enough for finite differences on every input value.

func randShape(r *rng.Rand) Shape {
	return Shape{1 + r.IntN(3), 3 + r.IntN(5), 3 + r.IntN(5)}
}

// randWindow is a kernel of 1–3 by 1–3 with strides 1–2 and padding up to half the kernel, over in.
func randWindow(r *rng.Rand, in Shape) Window {
	w := Window{KH: 1 + r.IntN(min(3, in.H)), KW: 1 + r.IntN(min(3, in.W)), StrideH: 1 + r.IntN(2), StrideW: 1 + r.IntN(2)}
	w.PadH, w.PadW = r.IntN(w.KH/2+1), r.IntN(w.KW/2+1)
	return w
}

func randConv(t testing.TB, r *rng.Rand, in Shape) *Conv {
	win := randWindow(r, in)
	outC := 1 + r.IntN(3)
	k := in.C * win.KH * win.KW
	c, err := NewConv(in, outC, win, randSlice(r, outC*k, 1/math.Sqrt(float64(k))), randSlice(r, outC, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

func randConvTranspose(t testing.TB, r *rng.Rand, in Shape) *ConvTranspose {
	win := randWindow(r, in)
	win.OutPadH, win.OutPadW = r.IntN(win.StrideH), r.IntN(win.StrideW)
	outC := 1 + r.IntN(3)
	k := outC * win.KH * win.KW
	c, err := NewConvTranspose(in, outC, win, randSlice(r, in.C*k, 1/math.Sqrt(float64(k))), randSlice(r, outC, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// distinct fills x with a shuffle of values 0.1 apart, so that no ±eps step changes which value of a window is
// its maximum.
func distinct(r *rng.Rand, x []float32) {
	for i := range x {
		x[i] = float32(i)*0.1 - float32(len(x))*0.05
	}
	for i := len(x) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		x[i], x[j] = x[j], x[i]
	}
}

// TestImageLayerGradients: each image layer's input gradient against central finite differences, on eight
// random shapes, kernels, strides and paddings per layer, for a batch of two.
func TestImageLayerGradients(t *testing.T) {
	r := rng.New(29)
	for trial := 0; trial < 8; trial++ {
		in := randShape(r)
		conv, convT := randConv(t, r, in), randConvTranspose(t, r, in)
		win := randWindow(r, in)
		pool, err := NewPool(in, win)
		if err != nil {
			t.Fatal(err)
		}
		up, err := NewUpsample(in, 1+r.IntN(2), 1+r.IntN(3))
		if err != nil {
			t.Fatal(err)
		}
		name := func(layer string, w Window) string {
			return fmt.Sprintf("%s over %v, kernel %d×%d, stride %d×%d, padding %d×%d", layer, in, w.KH, w.KW, w.StrideH, w.StrideW, w.PadH, w.PadW)
		}
		gradCheck(t, name("conv2d", conv.Window), 2, in.Size(), normal, func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, conv) })
		gradCheck(t, name("conv-transpose2d", convT.Window)+fmt.Sprintf(", output padding %d×%d", convT.Window.OutPadH, convT.Window.OutPadW),
			2, in.Size(), normal, func(g *Graph, x *Tensor) *Tensor { return g.ConvTranspose2D(x, convT) })
		gradCheck(t, name("max-pool", win), 2, in.Size(), distinct, func(g *Graph, x *Tensor) *Tensor { return g.MaxPool2D(x, &pool) })
		gradCheck(t, name("avg-pool", win), 2, in.Size(), normal, func(g *Graph, x *Tensor) *Tensor { return g.AvgPool2D(x, &pool) })
		gradCheck(t, fmt.Sprintf("upsample %v by %d×%d", in, up.ScaleH, up.ScaleW), 2, in.Size(), normal, func(g *Graph, x *Tensor) *Tensor { return g.Upsample2D(x, &up) })
	}
	gradCheck(t, "leaky relu", 3, 7, awayFromKinks, func(g *Graph, x *Tensor) *Tensor { return g.LeakyReLU(x, 0.01) })
	gradCheck(t, "leaky relu, slope 0.2", 3, 7, awayFromKinks, func(g *Graph, x *Tensor) *Tensor { return g.LeakyReLU(x, 0.2) })
	gradCheck(t, "tanh", 3, 7, normal, func(g *Graph, x *Tensor) *Tensor { return g.Tanh(x) })
	// A stack as a small convolutional network has it: conv, ReLU, pool, transposed conv, tanh, a dense head.
	in := Shape{2, 6, 6}
	c1, err := NewConv(in, 3, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1}, randSlice(r, 3*2*9, 0.3), randSlice(r, 3, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := NewPool(c1.Out, Window{KH: 2, KW: 2, StrideH: 2, StrideW: 2})
	ct, err := NewConvTranspose(p1.Out, 2, Window{KH: 2, KW: 2, StrideH: 2, StrideW: 2}, randSlice(r, 3*2*4, 0.3), randSlice(r, 2, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	gradCheck(t, "conv, relu, max-pool, conv-transpose, tanh", 2, in.Size(), distinct, func(g *Graph, x *Tensor) *Tensor {
		return g.Tanh(g.ConvTranspose2D(g.MaxPool2D(g.ReLU(g.Conv2D(x, &c1)), &p1), &ct))
	})
}

// naiveConv is a convolution written out as its definition, in float64: the reference for the forward pass.
func naiveConv(c *Conv, x []float32) []float64 {
	in, out, w := c.In, c.Out, c.Window
	y := make([]float64, out.Size())
	for o := 0; o < out.C; o++ {
		for oy := 0; oy < out.H; oy++ {
			for ox := 0; ox < out.W; ox++ {
				s := float64(c.B[o])
				for ci := 0; ci < in.C; ci++ {
					for ky := 0; ky < w.KH; ky++ {
						for kx := 0; kx < w.KW; kx++ {
							iy, ix := oy*w.StrideH-w.PadH+ky, ox*w.StrideW-w.PadW+kx
							if iy >= 0 && iy < in.H && ix >= 0 && ix < in.W {
								s += float64(c.W[((o*in.C+ci)*w.KH+ky)*w.KW+kx]) * float64(x[(ci*in.H+iy)*in.W+ix])
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

// naiveConvTranspose is a transposed convolution as its definition: every input value spreads its kernel over
// the output, in float64.
func naiveConvTranspose(c *ConvTranspose, x []float32) []float64 {
	in, out, w := c.In, c.Out, c.Window
	y := make([]float64, out.Size())
	for o := 0; o < out.C; o++ {
		for i := 0; i < out.H*out.W; i++ {
			y[o*out.H*out.W+i] = float64(c.B[o])
		}
	}
	for ci := 0; ci < in.C; ci++ {
		for iy := 0; iy < in.H; iy++ {
			for ix := 0; ix < in.W; ix++ {
				v := float64(x[(ci*in.H+iy)*in.W+ix])
				for o := 0; o < out.C; o++ {
					for ky := 0; ky < w.KH; ky++ {
						for kx := 0; kx < w.KW; kx++ {
							oy, ox := iy*w.StrideH-w.PadH+ky, ix*w.StrideW-w.PadW+kx
							if oy >= 0 && oy < out.H && ox >= 0 && ox < out.W {
								y[(o*out.H+oy)*out.W+ox] += v * float64(c.W[((ci*out.C+o)*w.KH+ky)*w.KW+kx])
							}
						}
					}
				}
			}
		}
	}
	return y
}

// TestWindowIndexKeepsBits: gathering and scattering through a window's index (kernel.GatherIdx and
// ScatterAddIdx, matmul.wasm's loops in a wasmsimd build) give gather's and scatter's bits, on random windows
// with overlaps, padding and strides.
func TestWindowIndexKeepsBits(t *testing.T) {
	r := rng.New(31)
	for trial := range 60 {
		in := Shape{1 + r.IntN(3), 1 + r.IntN(9), 1 + r.IntN(9)}
		w := Window{KH: 1 + r.IntN(4), KW: 1 + r.IntN(4), StrideH: 1 + r.IntN(3), StrideW: 1 + r.IntN(3)}
		w.PadH, w.PadW = r.IntN(w.KH), r.IntN(w.KW)
		oh, ow := windowOut(in.H, w.KH, w.StrideH, w.PadH), windowOut(in.W, w.KW, w.StrideW, w.PadW)
		if oh < 1 || ow < 1 {
			continue
		}
		g := geometry{in: in, w: w, outH: oh, outW: ow}
		idx := g.index()
		x := randSlice(r, in.Size(), 1)
		want, got := make([]float32, g.rows()*g.cols()), make([]float32, g.rows()*g.cols())
		g.gather(want, x)
		kernel.GatherIdx(got, x, idx)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d (%v, %+v): the gather through the index differs at %d", trial, in, w, i)
			}
		}
		col := randSlice(r, len(want), 1)
		a := randSlice(r, in.Size(), 1)
		b := append([]float32(nil), a...)
		g.scatter(a, col)
		kernel.ScatterAddIdx(b, col, idx)
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("trial %d (%v, %+v): the scatter through the index differs at %d: %v against %v", trial, in, w, i, b[i], a[i])
			}
		}
	}
}

// TestConvForwardAgainstDefinition: the convolutions through im2col and the matmul kernel agree with their
// definitions (float64) within float32 rounding, on random shapes, for every row of a batch.
func TestConvForwardAgainstDefinition(t *testing.T) {
	r := rng.New(7)
	for trial := 0; trial < 20; trial++ {
		in := randShape(r)
		conv, convT := randConv(t, r, in), randConvTranspose(t, r, in)
		g := NewGraph(3)
		x := g.Input(in.Size(), false)
		y, yt := g.Conv2D(x, conv), g.ConvTranspose2D(x, convT)
		normal(r, x.Data)
		g.Forward()
		for i := 0; i < 3; i++ {
			if e := relErr(y.Row(i), naiveConv(conv, x.Row(i)), 1e-3); e > 1e-6 {
				t.Errorf("conv2d %v → %v, kernel %+v, row %d: relative error %.2e against the definition", in, conv.Out, conv.Window, i, e)
			}
			if e := relErr(yt.Row(i), naiveConvTranspose(convT, x.Row(i)), 1e-3); e > 1e-6 {
				t.Errorf("conv-transpose2d %v → %v, kernel %+v, row %d: relative error %.2e against the definition", in, convT.Out, convT.Window, i, e)
			}
		}
	}
}

// TestImageLayerShapes: the output shapes PyTorch gives for the same settings, and the refusals.
func TestImageLayerShapes(t *testing.T) {
	c, err := NewConv(Shape{1, 28, 28}, 16, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}, make([]float32, 16*9), make([]float32, 16))
	if err != nil || c.Out != (Shape{16, 14, 14}) {
		t.Errorf("conv 1×28×28, 3×3 stride 2 pad 1: %v, %v; want 16×14×14", c.Out, err)
	}
	ct, err := NewConvTranspose(Shape{16, 7, 7}, 8, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, OutPadH: 1, OutPadW: 1}, make([]float32, 16*8*9), make([]float32, 8))
	if err != nil || ct.Out != (Shape{8, 14, 14}) {
		t.Errorf("conv-transpose 16×7×7, 3×3 stride 2 pad 1 output padding 1: %v, %v; want 8×14×14", ct.Out, err)
	}
	p, err := NewPool(Shape{8, 7, 7}, Window{KH: 2, KW: 2, StrideH: 2, StrideW: 2})
	if err != nil || p.Out != (Shape{8, 3, 3}) {
		t.Errorf("pool 8×7×7 by 2: %v, %v; want 8×3×3", p.Out, err)
	}
	for _, bad := range []struct {
		what string
		err  func() error
	}{
		{"a kernel larger than the input", func() error {
			_, err := NewConv(Shape{1, 2, 2}, 1, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1}, make([]float32, 9), make([]float32, 1))
			return err
		}},
		{"too few weights", func() error {
			_, err := NewConv(Shape{1, 4, 4}, 2, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1}, make([]float32, 9), make([]float32, 2))
			return err
		}},
		{"stride 0", func() error {
			_, err := NewPool(Shape{1, 4, 4}, Window{KH: 2, KW: 2})
			return err
		}},
		{"pool padding over half the kernel", func() error {
			_, err := NewPool(Shape{1, 4, 4}, Window{KH: 2, KW: 2, StrideH: 1, StrideW: 1, PadH: 2})
			return err
		}},
		{"output padding not below the stride", func() error {
			_, err := NewConvTranspose(Shape{1, 4, 4}, 1, Window{KH: 2, KW: 2, StrideH: 2, StrideW: 2, OutPadH: 2}, make([]float32, 4), make([]float32, 1))
			return err
		}},
		{"upsampling by 0", func() error { _, err := NewUpsample(Shape{1, 4, 4}, 0, 2); return err }},
	} {
		if err := bad.err(); err == nil {
			t.Errorf("%s: accepted", bad.what)
		} else {
			t.Logf("%s: %v", bad.what, err)
		}
	}
}

// TestImageLayersKeepBitsOnPerSampleRows: on per-sample tensors (K·batch rows) every image layer computes each
// row as it would alone, bit for bit, whatever the batch.
func TestImageLayersKeepBitsOnPerSampleRows(t *testing.T) {
	r := rng.New(3)
	in := Shape{2, 5, 5}
	conv := randConv(t, r, in)
	convT := randConvTranspose(t, r, conv.Out)
	run := func(batch int, x []float32) []float32 {
		g := NewGraph(batch)
		z := g.Input(in.Size(), true)
		s := []Layer{*randLayer(rng.New(1), in.Size(), in.Size()), *randLayer(rng.New(2), in.Size(), in.Size())}
		h := g.DenseSamples(z, s)
		y := g.Dense(g.ConvTranspose2D(g.Tanh(g.Conv2D(h, conv)), convT), randLayer(rng.New(4), convT.Out.Size(), 3))
		loss := g.Predictive(y, nil).Total
		copy(z.Data, x)
		g.Forward()
		g.Backward(loss, nil)
		return append(append([]float32(nil), loss.Live()...), z.Grad[:batch*in.Size()]...)
	}
	x := randSlice(r, 4*in.Size(), 1)
	all := run(4, x)
	for i := 0; i < 4; i++ {
		one := run(1, x[i*in.Size():(i+1)*in.Size()])
		if math.Float32bits(one[0]) != math.Float32bits(all[i]) {
			t.Errorf("point %d: H %v alone, %v in a batch of 4", i, one[0], all[i])
		}
		for j, v := range one[1:] {
			if w := all[4+i*in.Size()+j]; math.Float32bits(v) != math.Float32bits(w) {
				t.Fatalf("point %d: ∂H/∂z[%d] %v alone, %v in a batch of 4", i, j, v, w)
			}
		}
	}
}

// imageLayersGolden is the SHA-256 of the bits of a fixed convolutional stack's outputs and input gradients
// (imageLayersHash), first computed natively: the image layers give the same bits natively, in WASM with the
// pure-Go kernel and with the SIMD kernel, and on amd64 with every native kernel (DELTACLUE_KERNEL).
const imageLayersGolden = "5a3f00bdbe1c1394c2c2878a5b951e24986cbdec8eddeb7348f98713bab73c83"

// imageLayersHash runs a small encoder-decoder of every image layer forward and backward on fixed inputs.
func imageLayersHash(t *testing.T) string {
	r := rng.New(2029)
	in := Shape{3, 12, 10}
	mk := func(c Conv, err error) *Conv {
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	c1 := mk(NewConv(in, 8, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}, randSlice(r, 8*27, 0.2), randSlice(r, 8, 0.1)))
	p1, err := NewPool(c1.Out, Window{KH: 2, KW: 2, StrideH: 1, StrideW: 1})
	if err != nil {
		t.Fatal(err)
	}
	c2 := mk(NewConv(p1.Out, 6, Window{KH: 2, KW: 3, StrideH: 1, StrideW: 1, PadW: 1}, randSlice(r, 6*8*6, 0.2), randSlice(r, 6, 0.1)))
	a1, err := NewPool(c2.Out, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
	if err != nil {
		t.Fatal(err)
	}
	up, _ := NewUpsample(a1.Out, 2, 2)
	ct, err := NewConvTranspose(up.Out, 3, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, OutPadH: 1, OutPadW: 1}, randSlice(r, 6*3*9, 0.2), randSlice(r, 3, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	const batch = 5
	g := NewGraph(batch)
	x := g.Input(in.Size(), true)
	h := g.LeakyReLU(g.Conv2D(x, c1), 0.1)
	h = g.Tanh(g.Conv2D(g.MaxPool2D(h, &p1), c2))
	img := g.Sigmoid(g.ConvTranspose2D(g.Upsample2D(g.AvgPool2D(h, &a1), &up), &ct))
	loss := g.L1(img, randSlice(r, ct.Out.Size(), 1))
	copy(x.Data, randSlice(r, batch*in.Size(), 1))
	g.Forward()
	g.Backward(loss, nil)
	sum := sha256.New()
	for _, s := range [][]float32{img.Live(), loss.Live(), x.Grad[:batch*in.Size()]} {
		for _, v := range s {
			binary.Write(sum, binary.LittleEndian, math.Float32bits(v))
		}
	}
	return hex.EncodeToString(sum.Sum(nil))
}

// TestImageLayersGolden: see imageLayersGolden.
func TestImageLayersGolden(t *testing.T) {
	if got := imageLayersHash(t); got != imageLayersGolden {
		t.Errorf("the image layers' stack hashes to %s, want %s (kernel %s)", got, imageLayersGolden, kernel.Native)
	}
}

// BenchmarkImageLayers: each image layer forward and backward (its input gradient) on a batch of 100 images, the
// layer's own work alone (not the loss that seeds its gradient),
// at the sizes a small convolutional VAE and classifier of 28×28 images use, beside a dense layer of the
// digits' models; GFLOP/s counts a multiply-add as two and the backward pass as the forward's multiply-adds
// again (pooling and upsampling: ms only).
func BenchmarkImageLayers(b *testing.B) {
	r := rng.New(1)
	const n = 100
	conv := func(in Shape, outC, k, s, p int) *Conv {
		c, err := NewConv(in, outC, Window{KH: k, KW: k, StrideH: s, StrideW: s, PadH: p, PadW: p}, randSlice(r, outC*in.C*k*k, 0.1), randSlice(r, outC, 0.1))
		if err != nil {
			b.Fatal(err)
		}
		return &c
	}
	convT := func(in Shape, outC, k, s, p, op int) *ConvTranspose {
		c, err := NewConvTranspose(in, outC, Window{KH: k, KW: k, StrideH: s, StrideW: s, PadH: p, PadW: p, OutPadH: op, OutPadW: op}, randSlice(r, in.C*outC*k*k, 0.1), randSlice(r, outC, 0.1))
		if err != nil {
			b.Fatal(err)
		}
		return &c
	}
	pool := func(in Shape, k int) *Pool {
		p, err := NewPool(in, Window{KH: k, KW: k, StrideH: k, StrideW: k})
		if err != nil {
			b.Fatal(err)
		}
		return &p
	}
	up, _ := NewUpsample(Shape{32, 7, 7}, 2, 2)
	c1, c2 := conv(Shape{1, 28, 28}, 32, 3, 1, 1), conv(Shape{32, 14, 14}, 64, 3, 2, 1)
	t1, t2 := convT(Shape{64, 7, 7}, 32, 4, 2, 1, 0), convT(Shape{32, 14, 14}, 1, 3, 2, 1, 1)
	p1 := pool(Shape{32, 28, 28}, 2)
	dense := randLayer(r, 784, 256)
	cases := []struct {
		name  string
		in    int
		madds int
		build func(g *Graph, x *Tensor) *Tensor
	}{
		{"dense 784→256", 784, 784 * 256, func(g *Graph, x *Tensor) *Tensor { return g.Dense(x, dense) }},
		{"conv 1×28×28→32, 3×3", c1.In.Size(), c1.MultiplyAdds(), func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, c1) }},
		{"conv 32×14×14→64, 3×3 stride 2", c2.In.Size(), c2.MultiplyAdds(), func(g *Graph, x *Tensor) *Tensor { return g.Conv2D(x, c2) }},
		{"conv-transpose 64×7×7→32, 4×4 stride 2", t1.In.Size(), t1.MultiplyAdds(), func(g *Graph, x *Tensor) *Tensor { return g.ConvTranspose2D(x, t1) }},
		{"conv-transpose 32×14×14→1, 3×3 stride 2", t2.In.Size(), t2.MultiplyAdds(), func(g *Graph, x *Tensor) *Tensor { return g.ConvTranspose2D(x, t2) }},
		{"max-pool 32×28×28, 2×2", p1.In.Size(), 0, func(g *Graph, x *Tensor) *Tensor { return g.MaxPool2D(x, p1) }},
		{"avg-pool 32×28×28, 2×2", p1.In.Size(), 0, func(g *Graph, x *Tensor) *Tensor { return g.AvgPool2D(x, p1) }},
		{"upsample 32×7×7 by 2", up.In.Size(), 0, func(g *Graph, x *Tensor) *Tensor { return g.Upsample2D(x, &up) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			g := NewGraph(n)
			x := g.Input(c.in, true)
			out := c.build(g, x)
			loss := g.L1(out, make([]float32, out.Cols))
			normal(r, x.Data)
			g.Forward()
			g.Backward(loss, nil)
			// The layer alone, forward and backward, on the gradient the loss gave it once.
			layer := out.producer
			b.ResetTimer()
			for range b.N {
				layer.forward()
				layer.backward()
			}
			if c.madds > 0 {
				b.ReportMetric(4*float64(c.madds)*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/step")
		})
	}
}
