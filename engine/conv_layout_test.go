//go:build !denseonly

package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/engine/rng"
)

// withLayout runs f with every convolution built in it in the layout l.
func withLayout(l convLayout, f func()) {
	old := forceLayout
	forceLayout = l
	defer func() { forceLayout = old }()
	f()
}

// TestConvLayoutsKeepBits: a convolution gives the same bits image by image, with a chunk of images' windows in
// rows (one class of rows, and rows split by the taps they read) and with a chunk of images in planes, forward and
// backward: on random shapes,
// kernels, strides, paddings, dilations and groups (plain, grouped, depthwise through the general path), pointwise
// ones, the ResNet shapes with few positions (1×1, 2×2 and 4×4 images), per point and per MC sample, with the
// input's gradient fresh and shared, on inputs and gradients with exact zeros and -0 and weights with zeros, in
// one pass and in several of different sizes (a batch below the capacity, as a search's shrinks), with the sparse
// products on and off.
func TestConvLayoutsKeepBits(t *testing.T) {
	r := rng.New(97)
	seen := map[convLayout]int{}
	for trial := 0; trial < 80; trial++ {
		in := randGroupShape(r)
		win := randDilatedWindow(r, in)
		groups := randGroups(r, in.C)
		outC := groups * (1 + r.IntN(3))
		switch {
		case trial%10 == 7: // pointwise
			win = Window{KH: 1, KW: 1, StrideH: 1, StrideW: 1}
		case trial%10 == 8: // a ResNet's late stages: few positions, many channels, 3×3 with padding 1, perhaps strided
			s := []int{1, 2, 4}[r.IntN(3)]
			in = Shape{8 + 8*r.IntN(3), s, s}
			groups, outC = 1, 8+8*r.IntN(3)
			win = Window{KH: 3, KW: 3, StrideH: 1 + r.IntN(2), StrideW: 1, PadH: 1, PadW: 1}
			if r.IntN(3) == 0 {
				win = Window{KH: 1, KW: 1, StrideH: 2, StrideW: 2}
			}
		}
		k := in.C / groups * win.KH * win.KW
		w := randSlice(r, outC*k, 1/math.Sqrt(float64(k)))
		for i := range w {
			if i%7 == 3 {
				w[i] = 0
			}
		}
		conv, err := NewConvGroups(in, outC, win, groups, w, randSlice(r, outC, 0.1))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		batch := 1 + r.IntN(40)
		x := randSlice(r, batch*in.Size(), 1)
		signedZeros(x)
		shared, samples, sparse := trial%2 == 1, trial%3 == 2, trial%4 < 2
		other := conv // a second MC sample's layer: other weights, some zero
		other.W = append([]float32(nil), conv.W...)
		for i := range other.W {
			if i%5 == 1 {
				other.W[i] = 0
			}
		}
		other, _ = NewConvGroups(in, outC, win, groups, other.W, conv.B)
		what := fmt.Sprintf("trial %d: %v → %v, %d groups, %s, batch %d, shared %v, per sample %v, sparse %v",
			trial, in, conv.Out, groups, describeWindow(win), batch, shared, samples, sparse)
		run := func(layout convLayout) map[string][]float32 {
			var got map[string][]float32
			withLayout(layout, func() {
				withSparse(sparse, func() {
					withDirectDepthwise(false, func() {
						g := NewGraph(batch + 5)
						if err := g.SetBatch(batch); err != nil {
							t.Fatal(err)
						}
						z := g.Input(in.Size(), true)
						zr := g.ReLU(z)
						var y *Tensor
						if samples {
							y = g.ConvSamples(zr, []Conv{conv, other})
						} else {
							y = g.Conv2D(zr, &conv)
						}
						var s *convScratch
						switch o := y.producer.(type) {
						case *convOp:
							s = &o.convScratch
						case *convSamplesOp:
							s = &o.convScratch
						}
						depthwise := groups == in.C && groups > 1
						if runs := s.rowsFwd || s.planes; layout != layoutImage && runs == (layout == layoutPlanes && depthwise) {
							t.Fatalf("%s: layout %d runs %v", what, layout, runs)
						}
						h := g.ReLU(y) // a ReLU's gradient: zeros where it was inactive
						if samples {
							h = g.Dense(h, randLayer(rng.New(3), h.Cols, 4))
							h = g.Predictive(h, nil).Total
						}
						var loss *Tensor
						if shared {
							loss = g.Sum(Term{1, g.Dense(h, randLayer(rng.New(1), h.Cols, 1))}, Term{1, g.Dense(zr, randLayer(rng.New(2), zr.Cols, 1))})
						} else {
							loss = g.Dense(h, randLayer(rng.New(1), h.Cols, 1))
						}
						copy(z.Data, x)
						g.Forward()
						g.Backward(loss, nil)
						got = map[string][]float32{"y": append([]float32(nil), y.Live()...), "∂x": append([]float32(nil), z.Grad[:batch*in.Size()]...)}
					})
				})
			})
			seen[layout]++
			return got
		}
		want := run(layoutImage)
		for _, layout := range []convLayout{layoutRows, layoutRowsExact, layoutPlanes} {
			sameBits(t, fmt.Sprintf("%s, layout %d", what, layout), want, run(layout), nil)
		}
	}
	t.Logf("runs per layout: %v", seen)
}

// TestConvGoldensInEveryLayout: the golden hashes of the image layers' stack, the grouped layers' stack, the graph
// model's objective and the Fashion objective hold with every convolution image by image, in rows of one class, in
// rows split by the taps they read and in planes (the depthwise ones through the general path or their planes, the
// sparse products on and off); and a step of each allocates nothing, at full and at a shrunk batch.
func TestConvGoldensInEveryLayout(t *testing.T) {
	for _, layout := range []convLayout{layoutImage, layoutRows, layoutRowsExact, layoutPlanes} {
		for _, direct := range []bool{false, true} {
			withLayout(layout, func() {
				withDirectDepthwise(direct, func() {
					what := fmt.Sprintf("layout %d, depthwise planes %v (kernel %s)", layout, direct, kernel.Native)
					if got := imageLayersHash(t); got != imageLayersGolden {
						t.Errorf("%s: the image layers' stack hashes to %s, want %s", what, got, imageLayersGolden)
					}
					if got := groupsHash(t); got != groupsGolden {
						t.Errorf("%s: the grouped layers' stack hashes to %s, want %s", what, got, groupsGolden)
					}
					if got := objectiveHash(graphObjective(t, 9, LossWeights{Total: 1, LambdaX: 0.03, LambdaY: 0.1})); got != goldenGraphObjective {
						t.Errorf("%s: the graph model's objective hashes to %s, want %s", what, got, goldenGraphObjective)
					}
					for _, sparse := range []bool{false, true} {
						withSparse(sparse, func() {
							if got := objectiveHash(fashionObjective(t, 13)); got != goldenFashionObjective {
								t.Errorf("%s, sparse %v: the Fashion objective hashes to %s, want %s", what, sparse, got, goldenFashionObjective)
							}
						})
					}
					g, _, _, loss := groupsStack(t, 20)
					o := graphObjective(t, 8, LossWeights{Total: 1, LambdaX: 0.03})
					step := func() {
						g.Forward()
						g.Backward(loss, nil)
						o.Forward()
						o.Backward()
					}
					step()
					if a := testing.AllocsPerRun(3, step); a != 0 {
						t.Errorf("%s: %v allocations per step, want 0", what, a)
					}
					g.SetBatch(7)
					o.Graph.SetBatch(3)
					if a := testing.AllocsPerRun(3, step); a != 0 {
						t.Errorf("%s: %v allocations per step with a shrunk batch, want 0", what, a)
					}
				})
			})
		}
	}
}

// TestResNetLayouts: the example's small ResNet and resnet18 on 1×28×28 give the same bits with the layouts the
// cost model chooses as image by image, at full and at a shrunk batch, and a step allocates nothing.
func TestResNetLayouts(t *testing.T) {
	for _, r18 := range []bool{false, true} {
		run := func(layout convLayout) map[string][]float32 {
			var got map[string][]float32
			withLayout(layout, func() {
				g, x, loss, _ := benchResNet(6, r18)
				got = map[string][]float32{}
				for _, batch := range []int{6, 5} {
					g.SetBatch(batch)
					g.Forward()
					g.Backward(loss, nil)
					got[fmt.Sprintf("loss %d", batch)] = append([]float32(nil), loss.Live()...)
					got[fmt.Sprintf("∂x %d", batch)] = append([]float32(nil), x.Grad[:batch*x.Cols]...)
				}
				if layout == layoutAuto {
					step := func() {
						g.Forward()
						g.Backward(loss, nil)
					}
					if a := testing.AllocsPerRun(2, step); a != 0 {
						t.Errorf("resnet18 %v: %v allocations per step, want 0", r18, a)
					}
				}
			})
			return got
		}
		sameBits(t, fmt.Sprintf("resnet18 %v", r18), run(layoutImage), run(layoutAuto), nil)
	}
}

// BenchmarkConvLayouts: BenchmarkConvShapes's convolutions in each layout, side by side in one binary.
func BenchmarkConvLayouts(b *testing.B) {
	for _, c := range benchConvs {
		if c.dense {
			continue
		}
		for _, n := range []int{50, 100} {
			for _, l := range []struct {
				name   string
				layout convLayout
			}{{"image", layoutImage}, {"rows", layoutRows}, {"exact", layoutRowsExact}, {"planes", layoutPlanes}} {
				b.Run(fmt.Sprintf("%s/batch=%d/%s", c.name, n, l.name), func(b *testing.B) {
					withLayout(l.layout, func() { benchConvStep(b, c, n) })
				})
			}
		}
	}
}

// BenchmarkConvPrimitives: what the layouts' cost model weighs (chooseLayout): the kernel's time per
// multiply-add with n columns, and the time per value of a window gather, an index scatter and a pairs scatter
// (for a stride of 1, whose maps are runs, and of 2).
func BenchmarkConvPrimitives(b *testing.B) {
	r := rng.New(2)
	for _, sh := range [][3]int{{256, 256, 1}, {256, 256, 4}, {256, 256, 8}, {256, 256, 16}, {256, 256, 24}, {256, 256, 32}, {256, 256, 48}, {256, 256, 49}, {256, 256, 64}, {256, 256, 128}, {256, 256, 196}, {256, 256, 512}, {8, 256, 512}, {16, 256, 512}, {4, 256, 512}, {1, 256, 512}} {
		m, k, n := sh[0], sh[1], sh[2]
		a, w, c := randSlice(r, m*k, 1), randSlice(r, k*n, 1), make([]float32, m*n)
		b.Run(fmt.Sprintf("matmul/%dx%dx%d", m, k, n), func(b *testing.B) {
			for range b.N {
				kernel.MatMulAdd(a, w, c, m, k, n)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(m*k*n), "ns/madd")
		})
	}
	l := benchConv{in: Shape{32, 14, 14}, outC: 32, k: 3, s: 1, p: 1}.layer(r)
	geo := l.geometry()
	idx := geo.index()
	x, col := randSlice(r, l.In.Size(), 1), make([]float32, geo.rows()*geo.cols())
	pairs := scatterFromPositions(idx, geo.rows(), geo.cols())
	b.Run("gather", func(b *testing.B) {
		for range b.N {
			kernel.GatherIdx(col, x, idx)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(len(col)), "ns/value")
	})
	b.Run("scatter", func(b *testing.B) {
		for range b.N {
			kernel.ScatterAddIdx(x, col, idx)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(len(col)), "ns/value")
	})
	b.Run("pairs", func(b *testing.B) {
		for range b.N {
			kernel.ScatterAddPairs(x, col, pairs)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(len(pairs.Dst)), "ns/value")
	})
	// A stride-2 convolution's map: no runs (the AVX loops' other rate, convCosts.maps).
	l2 := benchConv{in: Shape{32, 14, 14}, outC: 64, k: 3, s: 2, p: 1}.layer(r)
	geo2 := l2.geometry()
	idx2 := geo2.index()
	col2 := make([]float32, geo2.rows()*geo2.cols())
	b.Run("gather/stride2", func(b *testing.B) {
		for range b.N {
			kernel.GatherIdx(col2, x, idx2)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(len(col2)), "ns/value")
	})
	b.Run("scatter/stride2", func(b *testing.B) {
		for range b.N {
			kernel.ScatterAddIdx(x, col2, idx2)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(len(col2)), "ns/value")
	})
	one := []float32{1}
	b.Run("call", func(b *testing.B) {
		for range b.N {
			kernel.MatMulAdd(one, one, x, 1, 1, 1)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N), "ns/call")
	})
}

// stepBits runs g forward from x (z's values) and backward from a dense layer over y, and returns y's values and
// the first n rows of z's gradient.
func stepBits(g *Graph, z, y *Tensor, x []float32, n int) map[string][]float32 {
	loss := g.Dense(y, randLayer(rng.New(1), y.Cols, 1))
	copy(z.Data, x)
	g.Forward()
	g.Backward(loss, nil)
	return map[string][]float32{"y": append([]float32(nil), y.Live()...), "∂x": append([]float32(nil), z.Grad[:n*z.Cols]...)}
}

// TestPlanesPassesKeepBits: a convolution in planes over more images than a pass takes gives the image layout's
// bits in every pass, the last one short: its planes past its images still hold the pass before's, which only
// outputs past its images may read (at a stride of 1 an image's bottom padding is the next one's top, which its
// gather sets to +0). Strides 1 and 2, padding 0–2, in place and by copies, with ∂x.
func TestPlanesPassesKeepBits(t *testing.T) {
	r := rng.New(98)
	for trial := 0; trial < 24; trial++ {
		in := Shape{1 + r.IntN(4), 5 + r.IntN(8), 5 + r.IntN(8)}
		k, s, pad := 1+2*r.IntN(2), 1+trial%2, r.IntN(3)
		if pad > k-1+s-1 {
			pad = k - 1
		}
		win := Window{KH: k, KW: k, StrideH: s, StrideW: s, PadH: pad, PadW: pad}
		outC := 1 + r.IntN(4)
		conv, err := NewConv(in, outC, win, randSlice(r, outC*in.C*k*k, 0.5), randSlice(r, outC, 0.1))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for _, inPlace := range []bool{false, true} {
			old := planesInPlace
			planesInPlace = inPlace && kernel.RowsInPlace
			chunk := newDepthwisePlanes(&conv, 1000, true).chunk
			batch := 2*chunk + 1 + r.IntN(chunk)
			what := fmt.Sprintf("trial %d: %v → %v, %s, in place %v, batch %d in passes of %d", trial, in, conv.Out,
				describeWindow(win), planesInPlace, batch, chunk)
			x := randSlice(r, batch*in.Size(), 1)
			for i := range x {
				x[i] += 3 // no ReLU's zeros: every stale value nonzero
			}
			run := func(layout convLayout) map[string][]float32 {
				var got map[string][]float32
				withLayout(layout, func() {
					g := NewGraph(batch)
					z := g.Input(in.Size(), true)
					y := g.Conv2D(z, &conv)
					if o := y.producer.(*convOp); (layout == layoutPlanes) != o.planes {
						t.Fatalf("%s: layout %d, planes %v", what, layout, o.planes)
					}
					got = stepBits(g, z, y, x, batch)
				})
				return got
			}
			sameBits(t, what, run(layoutImage), run(layoutPlanes), nil)
			planesInPlace = old
		}
	}
}

// TestInteriorKeepsBits: a convolution of stride 1 and "same" padding gives the same outputs and input gradients
// with its interior read in place (natively with AVX-512) as with every window gathered: 3×3 and odd windows up to
// 5×5, dilations 1–2, groups, 1–10 channels, images 10–31 wide and high, zero weights, ±0 and a ReLU's zeros in
// the inputs, batches of 1–8. In every build it checks that the interior runs exactly where it should
// (newInterior).
func TestInteriorKeepsBits(t *testing.T) {
	r := rng.New(99)
	used := 0
	for trial := 0; trial < 100; trial++ {
		in := Shape{1 + r.IntN(10), 10 + r.IntN(22), 10 + r.IntN(22)}
		if trial%4 != 0 {
			in.C = 4 + r.IntN(7)
		}
		kh, kw, dh, dw := 3, 3, 1, 1 // mostly the 3×3 of ResNets; other windows and dilations every few trials
		switch trial % 5 {
		case 3:
			kh, kw = 1+2*r.IntN(3), 1+2*r.IntN(3)
			if kh == 1 && kw == 1 {
				kh = 3
			}
		case 4:
			dh, dw = 1+r.IntN(2), 1+r.IntN(2)
		}
		win := Window{KH: kh, KW: kw, StrideH: 1, StrideW: 1, DilH: dh, DilW: dw, PadH: dh * (kh - 1) / 2, PadW: dw * (kw - 1) / 2}
		groups := 1
		if trial%4 == 0 {
			groups = randGroups(r, in.C)
		}
		outC := groups * (1 + r.IntN(3))
		k := in.C / groups * kh * kw
		wts := randSlice(r, outC*k, 1/math.Sqrt(float64(k)))
		zeroEveryFifth(wts)
		conv, err := NewConvGroups(in, outC, win, groups, wts, randSlice(r, outC, 0.1))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		batch, relu := 1+r.IntN(8), trial%2 == 0
		x := randSlice(r, batch*in.Size(), 1)
		signedZeros(x)
		what := fmt.Sprintf("trial %d: %v → %v, %d groups, %s, batch %d, after a ReLU %v", trial, in, conv.Out, groups, describeWindow(win), batch, relu)
		run := func(inPlace bool) map[string][]float32 {
			old := interiorInPlace
			interiorInPlace = inPlace
			defer func() { interiorInPlace = old }()
			var got map[string][]float32
			withLayout(layoutImage, func() {
				g := NewGraph(batch)
				z := g.Input(in.Size(), true)
				h := z
				if relu {
					h = g.ReLU(z)
				}
				y := g.Conv2D(h, &conv)
				o := y.producer.(*convOp)
				ph, pw := win.PadH, win.PadW
				inside := max(0, in.H-2*ph) * max(0, in.W-2*pw)
				eligible := kernel.RowsInPlace && o.dw == nil && (in.H-2*ph)*in.W-2*pw > 0 && 4*(in.H*in.W-inside) <= in.H*in.W && k >= 32
				if (o.in != nil) != eligible {
					t.Fatalf("%s: interior %v, expected %v (kernel.RowsInPlace %v)", what, o.in != nil, eligible, kernel.RowsInPlace)
				}
				if inPlace && o.in != nil {
					used++
				}
				got = stepBits(g, z, y, x, batch)
			})
			return got
		}
		sameBits(t, what, run(false), run(true), nil)
	}
	if kernel.RowsInPlace && used < 30 {
		t.Fatalf("the interior ran in only %d of 100 trials", used)
	}
	t.Logf("the interior ran in %d of 100 trials (kernel.RowsInPlace %v)", used, kernel.RowsInPlace)
}
