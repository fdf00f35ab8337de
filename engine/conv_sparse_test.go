//go:build !denseonly

package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
)

// withSparseProducts builds and runs f with the convolutions' sparse products on or off.
func withSparseProducts(on bool, f func()) {
	old := sparseProducts
	sparseProducts = on
	defer func() { sparseProducts = old }()
	f()
}

// withSparseAnyWidth builds and runs f with every pass wide enough (sparseMinWidth) allowed to multiply sparse,
// not only those sparsePays picks (with the sparse products on).
func withSparseAnyWidth(f func()) {
	old := sparseAnyWidth
	sparseAnyWidth = true
	defer func() { sparseAnyWidth = old }()
	f()
}

// sparseStack is a convolutional stack whose products are wide enough to run sparse (sparseMinWidth) and whose
// ReLUs make them sparse: convolutions strided and not, a convolution per MC sample (a dropout mask folded into
// each sample's input channels), transposed convolutions with output padding, and a narrow last layer that stays
// dense; a dense layer after a ReLU last. It returns its outputs and its input's gradient after one forward and backward pass on x, and how many
// of its convolutions' forward and backward passes multiplied sparse.
func sparseStack(t *testing.T, batch int, x []float32, compact bool) (map[string][]float32, [2]int) {
	r := rng.New(77)
	in := Shape{3, 9, 8}
	conv := func(in Shape, out int, w Window) *Conv {
		k := in.C * w.KH * w.KW
		c, err := NewConv(in, out, w, randSlice(r, out*k, 1/math.Sqrt(float64(k))), randSlice(r, out, 0.2))
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	convT := func(in Shape, out int, w Window) *ConvTranspose {
		k := out * w.KH * w.KW
		c, err := NewConvTranspose(in, out, w, randSlice(r, in.C*k, 1/math.Sqrt(float64(in.C))), randSlice(r, out, 0.2))
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
	c1 := conv(in, 20, Window{KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
	c2 := conv(c1.Out, 24, Window{KH: 3, KW: 2, StrideH: 1, StrideW: 1, PadH: 1, PadW: 0})
	samples := make([]Conv, 3)
	for k := range samples {
		samples[k] = *conv(c2.Out, 17, Window{KH: 2, KW: 2, StrideH: 1, StrideW: 1})
		// sample k's dropout: some of its input channels' weights are zero
		w := samples[k].W
		for o := 0; o < 17; o++ {
			for c := k; c < 24; c += 3 {
				clear(w[(o*24+c)*4 : (o*24+c+1)*4])
			}
		}
		samples[k], _ = NewConv(c2.Out, 17, samples[k].Window, w, samples[k].B)
	}
	t1 := convT(samples[0].Out, 18, Window{KH: 4, KW: 4, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1, OutPadH: 1, OutPadW: 1})
	t2 := convT(t1.Out, 2, Window{KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1})
	g := NewGraph(batch)
	z := g.Input(in.Size(), true)
	h := g.ReLU(g.Conv2D(g.ReLU(g.Conv2D(z, c1)), c2))
	h = g.ReLU(g.ConvSamples(h, samples))
	h = g.ConvTranspose2D(g.ReLU(g.ConvTranspose2D(h, t1)), t2)
	// A dense layer reads the last ReLU packed (compaction) and hands it its gradient packed, which the ReLU adds
	// into the convolution's full-width gradient.
	loss := g.Predictive(g.Dense(g.ReLU(h), randLayer(r, h.Cols, 4)), nil).Total // the samples' outputs, one scalar a point
	copy(z.Data, x)
	var out map[string][]float32
	withCompaction(compact, func() {
		g.Forward()
		g.Backward(loss, nil)
		out = map[string][]float32{"out": append([]float32(nil), h.Live()...), "loss": append([]float32(nil), loss.Live()...),
			"∂x": append([]float32(nil), z.Grad[:batch*in.Size()]...)}
	})
	var passes [2]int
	for _, o := range g.ops {
		var s *convScratch
		switch o := o.(type) {
		case *convOp:
			s = &o.convScratch
		case *convTransposeOp:
			s = &o.convScratch
		case *convSamplesOp:
			s = &o.convScratch
		default:
			continue
		}
		if s.sparseFwd {
			passes[0]++
		}
		if s.sparseBwd {
			passes[1]++
		}
	}
	return out, passes
}

// TestSparseWindowsKeepBits: the convolutions' and the dense layer's sparse products give the dense products'
// bits, as compaction's skipping gives the plain products' bits, forward and backward, on inputs with exact zeros, -0 and values a ReLU zeroes, at several batch sizes (natively with the
// pure-Go sparse kernel against the native dense one; in WebAssembly matmul.wasm's against its own).
func TestSparseWindowsKeepBits(t *testing.T) {
	r := rng.New(5)
	for trial, batch := range []int{1, 4, 7} {
		x := randSlice(r, batch*3*9*8, 1)
		for i := range x {
			switch i % 7 {
			case 2:
				x[i] = 0
			case 5:
				x[i] = float32(math.Copysign(0, -1))
			}
		}
		var plain, dense, sparse map[string][]float32
		var passes [2]int
		withSparseProducts(false, func() { plain, _ = sparseStack(t, batch, x, false) })
		withSparseProducts(false, func() { dense, _ = sparseStack(t, batch, x, true) })
		withSparseProducts(true, func() { withSparseAnyWidth(func() { sparse, passes = sparseStack(t, batch, x, true) }) })
		// Forward: every convolution but the first, whose input no ReLU made; backward: every one.
		if passes != [2]int{4, 5} {
			t.Fatalf("%d forward and %d backward passes multiplied sparse, want 4 and 5", passes[0], passes[1])
		}
		sameBits(t, fmt.Sprintf("trial %d, batch %d, compaction", trial, batch), plain, dense, nil)
		sameBits(t, fmt.Sprintf("trial %d, batch %d", trial, batch), dense, sparse, nil)
	}
}
