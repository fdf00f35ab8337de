//go:build !denseonly

package engine

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
)

// The convolutions of the models people import (issue 39): torchvision's resnet18 on 1×28×28 images, a
// MobileNetV2-style block (depthwise 3×3, pointwise 1×1), and examples/pytorch/train_export.py's small ResNet,
// beside the digits' dense 784→256.

// benchConv is one convolution of BenchmarkConvShapes.
type benchConv struct {
	name          string
	in            Shape
	outC, k, s, p int
	groups        int // 0: 1
	dense         bool
}

func (c benchConv) layer(r *rng.Rand) *Conv {
	g := max(c.groups, 1)
	kk := c.in.C / g * c.k * c.k
	l, err := NewConvGroups(c.in, c.outC, Window{KH: c.k, KW: c.k, StrideH: c.s, StrideW: c.s, PadH: c.p, PadW: c.p}, g,
		randSlice(r, c.outC*kk, 1/math.Sqrt(float64(kk))), randSlice(r, c.outC, 0.1))
	if err != nil {
		panic(err)
	}
	return &l
}

var benchConvs = []benchConv{
	{name: "dense 784→256", dense: true},
	// torchvision resnet18 on 1×28×28
	{name: "r18 conv1 1×28×28→64 7×7/2", in: Shape{1, 28, 28}, outC: 64, k: 7, s: 2, p: 3},
	{name: "r18 3×3 64→64 at 7×7", in: Shape{64, 7, 7}, outC: 64, k: 3, s: 1, p: 1},
	{name: "r18 3×3/2 64→128 7×7→4×4", in: Shape{64, 7, 7}, outC: 128, k: 3, s: 2, p: 1},
	{name: "r18 3×3 128→128 at 4×4", in: Shape{128, 4, 4}, outC: 128, k: 3, s: 1, p: 1},
	{name: "r18 3×3 256→256 at 2×2", in: Shape{256, 2, 2}, outC: 256, k: 3, s: 1, p: 1},
	{name: "r18 3×3 512→512 at 1×1", in: Shape{512, 1, 1}, outC: 512, k: 3, s: 1, p: 1},
	{name: "r18 1×1/2 64→128 7×7→4×4", in: Shape{64, 7, 7}, outC: 128, k: 1, s: 2, p: 0},
	// MobileNetV2-style inverted residual at 14×14 (expand 16→96, depthwise, project 96→24)
	{name: "mbv2 1×1 16→96 at 14×14", in: Shape{16, 14, 14}, outC: 96, k: 1, s: 1, p: 0},
	{name: "mbv2 depthwise 3×3 96 at 14×14", in: Shape{96, 14, 14}, outC: 96, k: 3, s: 1, p: 1, groups: 96},
	{name: "mbv2 depthwise 3×3/2 96 14→7", in: Shape{96, 14, 14}, outC: 96, k: 3, s: 2, p: 1, groups: 96},
	{name: "mbv2 1×1 96→24 at 14×14", in: Shape{96, 14, 14}, outC: 24, k: 1, s: 1, p: 0},
	// the shipped Fashion classifier's convolutions
	{name: "fashion 3×3/2 1→32 28→14", in: Shape{1, 28, 28}, outC: 32, k: 3, s: 2, p: 1},
	{name: "fashion 3×3/2 32→64 14→7", in: Shape{32, 14, 14}, outC: 64, k: 3, s: 2, p: 1},
	// examples/pytorch/train_export.py's ResNet: 8, 16, 32 channels at 28, 14, 7
	{name: "ex 3×3 1→8 at 28×28", in: Shape{1, 28, 28}, outC: 8, k: 3, s: 1, p: 1},
	{name: "ex 3×3 8→8 at 28×28", in: Shape{8, 28, 28}, outC: 8, k: 3, s: 1, p: 1},
	{name: "ex 3×3/2 8→16 28→14", in: Shape{8, 28, 28}, outC: 16, k: 3, s: 2, p: 1},
	{name: "ex 3×3 16→16 at 14×14", in: Shape{16, 14, 14}, outC: 16, k: 3, s: 1, p: 1},
	{name: "ex 1×1/2 8→16 28→14", in: Shape{8, 28, 28}, outC: 16, k: 1, s: 2, p: 0},
	{name: "ex 3×3/2 16→32 14→7", in: Shape{16, 14, 14}, outC: 32, k: 3, s: 2, p: 1},
	{name: "ex 3×3 32→32 at 7×7", in: Shape{32, 7, 7}, outC: 32, k: 3, s: 1, p: 1},
}

// BenchmarkConvShapes: each convolution alone, forward and its input gradient, on batches of 50 and 100 images
// after a ReLU (as a ResNet's convolutions read theirs, which a WebAssembly build's sparse products look for),
// beside the digits' dense 784→256; GFLOP/s counts a multiply-add as two and the backward pass as the forward's
// multiply-adds again.
func BenchmarkConvShapes(b *testing.B) {
	for _, c := range benchConvs {
		for _, n := range []int{50, 100} {
			b.Run(fmt.Sprintf("%s/batch=%d", c.name, n), func(b *testing.B) { benchConvStep(b, c, n) })
		}
	}
}

// benchConvStep runs c forward and backward on n images, the layer's own work alone.
func benchConvStep(b *testing.B, c benchConv, n int) {
	r := rng.New(1)
	g := NewGraph(n)
	var out *Tensor
	var madds int
	if c.dense {
		x := g.Input(784, true)
		out = g.Dense(x, randLayer(r, 784, 256))
		normal(r, x.Data)
		madds = 784 * 256
	} else {
		l := c.layer(r)
		x := g.Input(l.In.Size(), true)
		out = g.Conv2D(g.ReLU(x), l)
		normal(r, x.Data)
		madds = l.MultiplyAdds()
	}
	loss := g.L1(out, make([]float32, out.Cols))
	g.Forward()
	g.Backward(loss, nil)
	layer := out.producer
	timeSteps(b, 4*float64(madds)*float64(n), func() {
		layer.forward()
		layer.backward()
	})
}

// timeSteps runs step b.N times and reports, per step, the wall time (ms/step) and the CPU time of the thread
// that ran it (cpu-ms/step; see threadCPU), and GFLOP/s of both for flops a step (none for 0).
func timeSteps(b *testing.B, flops float64, step func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	c0 := threadCPU()
	for range b.N {
		step()
	}
	cpu := threadCPU() - c0
	b.StopTimer()
	n := float64(b.N)
	if flops > 0 {
		b.ReportMetric(flops*n/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/n, "ms/step")
	if cpu > 0 {
		if flops > 0 {
			b.ReportMetric(flops*n/cpu.Seconds()/1e9, "cpu-GFLOP/s")
		}
		b.ReportMetric(cpu.Seconds()*1e3/n, "cpu-ms/step")
	}
}

// benchResNet builds a ResNet for batches of up to n images of 1×28×28 and returns its graph, input and loss and
// its convolutions' and dense layers' multiply-adds per image: torchvision's resnet18 (wide) or
// examples/pytorch/train_export.py's small ResNet; batch normalisation as a per-channel affine map.
func benchResNet(n int, r18 bool) (*Graph, *Tensor, *Tensor, int) {
	r := rng.New(5)
	g := NewGraph(n)
	x := g.Input(28*28, true)
	madds := 0
	conv := func(h *Tensor, in Shape, outC, k, s, p int) (*Tensor, Shape) {
		l := benchConv{in: in, outC: outC, k: k, s: s, p: p}.layer(r)
		madds += l.MultiplyAdds()
		y := g.Conv2D(h, l)
		scale, shift := randSlice(r, outC, 0.2), randSlice(r, outC, 0.1)
		for i := range scale {
			scale[i] += 1
		}
		return g.ChannelAffine(y, l.Out, scale, shift), l.Out
	}
	block := func(h *Tensor, in Shape, outC, s int) (*Tensor, Shape) {
		a, sa := conv(h, in, outC, 3, s, 1)
		a, sb := conv(g.ReLU(a), sa, outC, 3, 1, 1)
		short := h
		if s != 1 || in.C != outC {
			short, _ = conv(h, in, outC, 1, s, 0)
		}
		return g.ReLU(g.Add(a, short)), sb
	}
	var h *Tensor
	var s Shape
	var widths []int
	if r18 {
		h, s = conv(x, Shape{1, 28, 28}, 64, 7, 2, 3)
		h = g.ReLU(h)
		mp, err := NewPool(s, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
		if err != nil {
			panic(err)
		}
		h, s = g.MaxPool2D(h, &mp), mp.Out
		widths = []int{64, 64, 128, 128, 256, 256, 512, 512}
	} else {
		h, s = conv(x, Shape{1, 28, 28}, 8, 3, 1, 1)
		h = g.ReLU(h)
		widths = []int{8, 16, 32}
	}
	for i, w := range widths {
		stride := 1
		if w != s.C || (!r18 && i > 0) {
			stride = 2
		}
		h, s = block(h, s, w, stride)
	}
	h = g.GlobalAvgPool(h, s)
	h = g.Dense(h, randLayer(r, s.C, 10))
	madds += s.C * 10
	loss := g.L1(h, make([]float32, 10))
	normal(r, x.Data)
	return g, x, loss, madds
}

// BenchmarkResNetStep: forward and backward of a whole ResNet (every layer, the input's gradient included) on a
// batch of 50 images: torchvision's resnet18 and the example's small ResNet.
func BenchmarkResNetStep(b *testing.B) {
	for _, r18 := range []bool{true, false} {
		name := "example"
		if r18 {
			name = "resnet18"
		}
		for _, n := range []int{50} {
			b.Run(fmt.Sprintf("%s/batch=%d", name, n), func(b *testing.B) {
				g, _, loss, madds := benchResNet(n, r18)
				g.Forward()
				g.Backward(loss, nil)
				timeSteps(b, 4*float64(madds)*float64(n), func() {
					g.Forward()
					g.Backward(loss, nil)
				})
			})
		}
	}
}

// BenchmarkConvModelStep: a step (forward and backward of L(z)) of the Fashion models' objective for 50 and 100
// restarts, with the build's defaults (the sparse products where the kernel is WebAssembly's or Go's), timed as
// timeSteps does.
func BenchmarkConvModelStep(b *testing.B) {
	for _, n := range []int{50, 100} {
		b.Run(fmt.Sprintf("fashion/batch=%d", n), func(b *testing.B) {
			o := fashionObjective(b, n)
			o.Forward()
			o.Backward()
			timeSteps(b, 0, func() {
				o.Forward()
				o.Backward()
			})
		})
	}
}
