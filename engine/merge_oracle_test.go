//go:build !js || gomlxwasm

package engine

// The ops of merge.go, affine.go and the global pools against gomlx: forward values and the input gradient of a
// fixed random projection of the output, computed by gomlx in float64 on the pure-Go backend, on random shapes.
// Per-point outputs go through layerCase (layers_oracle_test.go); per-sample ones through sampleCase, which
// projects each sample with its own vector. Natively with every `go test`; in WASM under Node with -tags gomlxwasm.

import (
	"fmt"
	"testing"

	gx "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine/rng"
)

// sampleCase is an op whose output is per sample (PerPoint k), on the engine and in gomlx: gomlx maps x
// [n, C, H, W] (float64) to the output [k, n, cols], sample-major as the engine's rows.
type sampleCase struct {
	name   string
	in     Shape
	k      int
	init   func(*rng.Rand, []float32)
	engine func(g *Graph, x *Tensor) *Tensor
	gomlx  func(x *gx.Node) *gx.Node
}

// check runs the case on a batch of n random inputs: each sample's row of each point within 1e-5 relative, and
// ∂(Σ_k Σ out_k ⊙ c_k)/∂x within 1e-4 relative, per point (c_k: one random vector per sample).
func (sc sampleCase) check(t *testing.T, r *rng.Rand, n int) {
	t.Helper()
	x := make([]float32, n*sc.in.Size())
	sc.init(r, x)
	g := NewGraph(n)
	xt := g.Input(sc.in.Size(), true)
	out := sc.engine(g, xt)
	if out.PerPoint != sc.k {
		t.Fatalf("%s: the engine's output has %d rows per point, want %d", sc.name, out.PerPoint, sc.k)
	}
	cols := out.Cols
	c := randSlice(r, sc.k*cols, 1)
	heads := make([]Layer, sc.k)
	for k := range heads {
		heads[k] = NewLayer(cols, 1, c[k*cols:(k+1)*cols], []float32{0})
	}
	loss := sumSamples(g, g.DenseSamples(out, heads))
	copy(xt.Data, x)
	g.Forward()
	g.Backward(loss, nil)

	exec := gx.MustNewExec(oracleBackend(), func(xn *gx.Node) (*gx.Node, *gx.Node) {
		y := sc.gomlx(xn)
		return y, gx.Gradient(gx.ReduceAllSum(gx.Mul(y, constant(xn.Graph(), c, sc.k, 1, cols))), xn)[0]
	})
	res, err := exec.Exec(tensors.FromFlatDataAndDimensions(f64(x), n, sc.in.C, sc.in.H, sc.in.W))
	if err != nil {
		t.Fatalf("%s: gomlx: %v", sc.name, err)
	}
	want, wantGrad := tensors.MustCopyFlatData[float64](res[0]), tensors.MustCopyFlatData[float64](res[1])
	if len(want) != sc.k*n*cols || len(wantGrad) != n*sc.in.Size() {
		t.Fatalf("%s: gomlx gives %d outputs and %d gradients, want %d and %d", sc.name, len(want), len(wantGrad), sc.k*n*cols, n*sc.in.Size())
	}
	for i := 0; i < n; i++ {
		for k := 0; k < sc.k; k++ {
			row := k*n + i
			if e := relErr(out.Row(row), want[row*cols:(row+1)*cols], 1e-6); e > 1e-5 {
				t.Errorf("%s, point %d, sample %d: forward relative error %.2e against gomlx", sc.name, i, k, e)
			}
		}
		m := sc.in.Size()
		if e := relErr(xt.Grad[i*m:(i+1)*m], wantGrad[i*m:(i+1)*m], 1e-6); e > 1e-4 {
			t.Errorf("%s, point %d: input gradient relative error %.2e against gomlx", sc.name, i, e)
		}
	}
}

// ---- the ops in gomlx ----

// gGAP and gGMP are the global pools of images x [m, C, H, W], as images [m, C, 1, 1].
func gGAP(x *gx.Node) *gx.Node {
	d := x.Shape().Dimensions
	return gx.Reshape(gx.ReduceMean(x, 2, 3), d[0], d[1], 1, 1)
}

func gGMP(x *gx.Node) *gx.Node {
	d := x.Shape().Dimensions
	return gx.Reshape(gx.ReduceMax(x, 2, 3), d[0], d[1], 1, 1)
}

// gAffine is x·scale[c] + shift[c] over images x [m, C, H, W].
func gAffine(x *gx.Node, scale, shift []float32) *gx.Node {
	return gx.Add(gx.Mul(x, constant(x.Graph(), scale, 1, len(scale), 1, 1)), constant(x.Graph(), shift, 1, len(shift), 1, 1))
}

// gBroadcast is Broadcast: images x [n, C, H, W] as k samples [k, n, C·H·W].
func gBroadcast(x *gx.Node, k int) *gx.Node {
	d := x.Shape().Dimensions
	cols := d[1] * d[2] * d[3]
	return gx.BroadcastToDims(gx.Reshape(x, 1, d[0], cols), k, d[0], cols)
}

// gMask is MaskSamples on per-sample rows y [k, n, cols].
func gMask(y *gx.Node, masks [][]float32) *gx.Node {
	var flat []float32
	for _, m := range masks {
		flat = append(flat, m...)
	}
	return gx.Mul(y, constant(y.Graph(), flat, len(masks), 1, len(masks[0])))
}

// gImages and gRows move between per-sample rows [k, n, cols] and images [k·n, C, H, W].
func gImages(y *gx.Node, s Shape) *gx.Node {
	d := y.Shape().Dimensions
	return gx.Reshape(y, d[0]*d[1], s.C, s.H, s.W)
}

func gRows(x *gx.Node, k int) *gx.Node {
	d := x.Shape().Dimensions
	return gx.Reshape(x, k, d[0]/k, d[1]*d[2]*d[3])
}

// TestMergeOpsAgreeWithGomlx: Add, Mul (elementwise and per channel), Concat, the global pools and the channel
// affine map on per-point images, and Broadcast and MaskSamples (on per-point and per-sample rows) with the
// others on per-sample rows, against gomlx, on five random shapes each.
func TestMergeOpsAgreeWithGomlx(t *testing.T) {
	r := rng.New(2027)
	for trial := 0; trial < 5; trial++ {
		s := randShape(r)
		p, k := s.H*s.W, 2+r.IntN(3)
		scale, shift := randAffine(r, s.C)
		m1, m2 := randMasks(r, k, s.Size(), 0.3), randMasks(r, k, s.Size(), 0.5)
		name := func(op string) string { return fmt.Sprintf("%s over %v", op, s) }
		vec := Shape{s.C, 1, 1}
		cases := []layerCase{
			{name: name("add tanh(x) + x + x"), in: s, out: s, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Add(g.Tanh(x), x, x) },
				gomlx:  func(x *gx.Node) *gx.Node { return gx.Add(gx.Add(gx.Tanh(x), x), x) }},
			{name: name("mul elementwise tanh(x)·x"), in: s, out: s, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Mul(g.Tanh(x), x, p) },
				gomlx:  func(x *gx.Node) *gx.Node { return gx.Mul(gx.Tanh(x), x) }},
			{name: name("mul per channel x·σ(gap(x)) (squeeze-and-excitation)"), in: s, out: s, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Mul(x, g.Sigmoid(g.GlobalAvgPool(x, s)), p) },
				gomlx:  func(x *gx.Node) *gx.Node { return gx.Mul(x, gx.Sigmoid(gGAP(x))) }},
			{name: name("concat tanh(x), x"), in: s, out: Shape{2 * s.C, s.H, s.W}, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Concat(g.Tanh(x), x) },
				gomlx:  func(x *gx.Node) *gx.Node { return gx.Concatenate([]*gx.Node{gx.Tanh(x), x}, 1) }},
			{name: name("global avg pool"), in: s, out: vec, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.GlobalAvgPool(x, s) },
				gomlx:  gGAP},
			{name: name("global max pool"), in: s, out: vec, init: distinct,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.GlobalMaxPool(x, s) },
				gomlx:  gGMP},
			{name: name("channel affine"), in: s, out: s, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.ChannelAffine(x, s, scale, shift) },
				gomlx:  func(x *gx.Node) *gx.Node { return gAffine(x, scale, shift) }},
			{name: name("channel affine of a vector of global maxima"), in: s, out: vec, init: distinct,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.ChannelAffine(g.GlobalMaxPool(x, s), vec, scale, shift) },
				gomlx:  func(x *gx.Node) *gx.Node { return gAffine(gGMP(x), scale, shift) }},
		}
		for _, lc := range cases {
			lc.check(t, r, 1+r.IntN(3))
		}
		samples := []sampleCase{
			{name: name(fmt.Sprintf("broadcast to %d samples", k)), in: s, k: k, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Broadcast(x, k) },
				gomlx:  func(x *gx.Node) *gx.Node { return gBroadcast(x, k) }},
			{name: name("broadcast, then tanh"), in: s, k: k, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.Tanh(g.Broadcast(x, k)) },
				gomlx:  func(x *gx.Node) *gx.Node { return gx.Tanh(gBroadcast(x, k)) }},
			{name: name("mask samples, per-point x"), in: s, k: k, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.MaskSamples(x, m1) },
				gomlx:  func(x *gx.Node) *gx.Node { return gMask(gBroadcast(x, k), m1) }},
			{name: name("mask samples, per-sample x"), in: s, k: k, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor { return g.MaskSamples(g.Tanh(g.MaskSamples(x, m1)), m2) },
				gomlx:  func(x *gx.Node) *gx.Node { return gMask(gx.Tanh(gMask(gBroadcast(x, k), m1)), m2) }},
			{name: name("per sample: squeeze-and-excitation, residual"), in: s, k: k, init: normal,
				engine: func(g *Graph, x *Tensor) *Tensor {
					h := g.MaskSamples(x, m1)
					return g.Add(g.Mul(h, g.Sigmoid(g.GlobalAvgPool(h, s)), p), g.Broadcast(x, k))
				},
				gomlx: func(x *gx.Node) *gx.Node {
					h := gImages(gMask(gBroadcast(x, k), m1), s)
					return gx.Add(gRows(gx.Mul(h, gx.Sigmoid(gGAP(h))), k), gBroadcast(x, k))
				}},
			{name: name("per sample: channel affine, concat, global pools"), in: s, k: k, init: distinct,
				engine: func(g *Graph, x *Tensor) *Tensor {
					h := g.ChannelAffine(g.MaskSamples(x, m2), s, scale, shift)
					return g.Concat(h, g.GlobalAvgPool(h, s), g.GlobalMaxPool(g.Broadcast(x, k), s))
				},
				gomlx: func(x *gx.Node) *gx.Node {
					h := gAffine(gImages(gMask(gBroadcast(x, k), m2), s), scale, shift)
					return gx.Concatenate([]*gx.Node{gRows(h, k), gRows(gGAP(h), k), gRows(gGMP(gImages(gBroadcast(x, k), s)), k)}, 2)
				}},
		}
		for _, sc := range samples {
			sc.check(t, r, 1+r.IntN(3))
		}
	}
}
