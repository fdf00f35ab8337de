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

// ---- test helpers ----

// sumSamplesOp sums a per-sample tensor's K blocks into a per-point one, in order k = 0, 1, …: how the tests
// reach a per-point loss from per-sample rows without Predictive's nonlinearity.
type sumSamplesOp struct{ x, out *Tensor }

func sumSamples(g *Graph, x *Tensor) *Tensor {
	out := g.newTensor(x.Cols, 1, x.Grad != nil)
	o := &sumSamplesOp{x: x, out: out}
	out.producer = o
	g.use(x, o)
	g.add(o)
	return out
}

func (o *sumSamplesOp) forward() {
	out := o.out.Live()
	copy(out, block(o.x, 0, false))
	for k := 1; k < o.x.PerPoint; k++ {
		addInto(out, block(o.x, k, false))
	}
}

func (o *sumSamplesOp) backward() {
	if o.x.Grad == nil {
		return
	}
	for k := 0; k < o.x.PerPoint; k++ {
		addInto(block(o.x, k, true), o.out.Grad[:o.out.Rows()*o.out.Cols])
	}
}

// perPoint takes a per-sample tensor to a per-point one through a random dense head per sample (so that a
// sample's rows mixed up with another's would show) and the sum over the samples.
func perPoint(g *Graph, r *rng.Rand, x *Tensor) *Tensor {
	heads := make([]Layer, x.PerPoint)
	for k := range heads {
		heads[k] = *randLayer(r, x.Cols, 3)
	}
	return sumSamples(g, g.DenseSamples(x, heads))
}

// randMasks draws k MC-dropout masks of cols values: 0 with probability rate, else 1/(1 − rate).
func randMasks(r *rng.Rand, k, cols int, rate float64) [][]float32 {
	masks := make([][]float32, k)
	for i := range masks {
		masks[i] = make([]float32, cols)
		for j := range masks[i] {
			if r.Float64() >= rate {
				masks[i][j] = float32(1 / (1 - rate))
			}
		}
	}
	return masks
}

// distinctOffZero fills x with a shuffle of values 0.1 apart and at least 0.05 from 0: no ±eps step changes a
// channel's maximum even against the zeros that dropout leaves.
func distinctOffZero(r *rng.Rand, x []float32) {
	for i := range x {
		x[i] = float32(i-len(x)/2)*0.1 + 0.05
	}
	for i := len(x) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		x[i], x[j] = x[j], x[i]
	}
}

// randAffine is a batch normalisation's folded scale (0.5 … 1.5, either sign) and shift for c channels.
func randAffine(r *rng.Rand, c int) (scale, shift []float32) {
	scale, shift = make([]float32, c), randSlice(r, c, 0.3)
	for i := range scale {
		scale[i] = float32(0.5 + r.Float64())
		if r.IntN(4) == 0 {
			scale[i] = -scale[i]
		}
	}
	return scale, shift
}

// ---- gradients ----

// TestMergeOpGradients: each op's input gradients against central finite differences, on random image shapes,
// batches of 1 and 3, per-point and per-sample rows, with tensors that have several readers (x feeding both
// sides of a product, a sum that takes x twice).
func TestMergeOpGradients(t *testing.T) {
	r := rng.New(41)
	for trial := 0; trial < 4; trial++ {
		s := randShape(r)
		n, p, k := s.Size(), s.H*s.W, 2+r.IntN(2)
		scale, shift := randAffine(r, s.C)
		m1, m2 := randMasks(r, k, n, 0.3), randMasks(r, k, n, 0.5)
		mc := randMasks(r, k, 2*n+s.C, 0.3)
		tenth := make([]float32, s.C)
		for i := range tenth {
			tenth[i] = 0.1
		}
		cases := []struct {
			name  string
			init  func(*rng.Rand, []float32)
			build func(g *Graph, x *Tensor) *Tensor
		}{
			{"add σ(x) + x", normal, func(g *Graph, x *Tensor) *Tensor { return g.Add(g.Sigmoid(x), x) }},
			{"add x + σ(x) + x (x twice)", normal, func(g *Graph, x *Tensor) *Tensor { return g.Add(x, g.Sigmoid(x), x) }},
			{"mul elementwise σ(x)·x", normal, func(g *Graph, x *Tensor) *Tensor { return g.Mul(g.Sigmoid(x), x, p) }},
			{"mul x·x", normal, func(g *Graph, x *Tensor) *Tensor { return g.Mul(x, x, 1) }},
			{"mul per channel dense(x)·σ(gap(x))", normal, func(g *Graph, x *Tensor) *Tensor {
				return g.Mul(g.Dense(x, randLayer(r, n, n)), g.Sigmoid(g.GlobalAvgPool(x, s)), p)
			}},
			{"mul per channel x·σ(dense(gap(x))) (squeeze-and-excitation)", normal, func(g *Graph, x *Tensor) *Tensor {
				return g.Mul(x, g.Sigmoid(g.Dense(g.GlobalAvgPool(x, s), randLayer(r, s.C, s.C))), p)
			}},
			{"concat σ(x), x, gap(x)", normal, func(g *Graph, x *Tensor) *Tensor {
				return g.Concat(g.Sigmoid(x), x, g.GlobalAvgPool(x, s))
			}},
			{"global avg pool", normal, func(g *Graph, x *Tensor) *Tensor { return g.GlobalAvgPool(x, s) }},
			{"global max pool", distinct, func(g *Graph, x *Tensor) *Tensor { return g.GlobalMaxPool(x, s) }},
			{"global max pool of tanh, beside x", distinct, func(g *Graph, x *Tensor) *Tensor {
				return g.Concat(g.GlobalMaxPool(g.Tanh(x), s), x)
			}},
			{"channel affine", normal, func(g *Graph, x *Tensor) *Tensor { return g.ChannelAffine(x, s, scale, shift) }},
			{"channel affine, residual", normal, func(g *Graph, x *Tensor) *Tensor {
				return g.Add(g.ChannelAffine(g.Sigmoid(x), s, scale, shift), x)
			}},
			// Per-sample rows.
			{"broadcast", normal, func(g *Graph, x *Tensor) *Tensor { return perPoint(g, r, g.Broadcast(x, k)) }},
			{"broadcast, then σ", normal, func(g *Graph, x *Tensor) *Tensor { return perPoint(g, r, g.Sigmoid(g.Broadcast(x, k))) }},
			{"mask samples, per-point x", normal, func(g *Graph, x *Tensor) *Tensor { return perPoint(g, r, g.MaskSamples(x, m1)) }},
			{"mask samples, per-sample x", normal, func(g *Graph, x *Tensor) *Tensor {
				return perPoint(g, r, g.MaskSamples(g.Add(g.MaskSamples(x, m1), g.Broadcast(x, k)), m2))
			}},
			{"mask samples of dense per sample", normal, func(g *Graph, x *Tensor) *Tensor {
				per := make([]Layer, k)
				for i := range per {
					per[i] = *randLayer(r, n, n)
				}
				return perPoint(g, r, g.MaskSamples(g.DenseSamples(x, per), m2))
			}},
			{"per sample: squeeze-and-excitation, residual", normal, func(g *Graph, x *Tensor) *Tensor {
				h := g.MaskSamples(x, m1)
				return perPoint(g, r, g.Add(g.Mul(h, g.Sigmoid(g.GlobalAvgPool(h, s)), p), g.Broadcast(x, k)))
			}},
			// (Scaled by 1/10: the maxima of distinct values reach len(x)/20, and the loss's float32 rounding, over
			// finite differences' 2h, would exceed their bar for a small derivative.)
			{"per sample: global max pool of masked x", distinctOffZero, func(g *Graph, x *Tensor) *Tensor {
				return perPoint(g, r, g.ChannelAffine(g.GlobalMaxPool(g.MaskSamples(x, m1), s), Shape{s.C, 1, 1}, tenth, make([]float32, s.C)))
			}},
			{"per sample: concat, channel affine, product", normal, func(g *Graph, x *Tensor) *Tensor {
				h := g.ChannelAffine(g.MaskSamples(x, m2), s, scale, shift)
				c := g.Concat(h, g.Broadcast(x, k), g.GlobalAvgPool(h, s))
				return perPoint(g, r, g.Mul(g.MaskSamples(c, mc), c, 1))
			}},
		}
		// Most cases are at most quadratic in x, where central differences are exact but for float32 rounding, and
		// the others take sigmoids: a tanh's third derivative (up to 2, against the sigmoid's 1/8) would exceed
		// their bar along a direction of many values.
		for _, c := range cases {
			for _, batch := range []int{1, 3} {
				gradCheck(t, fmt.Sprintf("%s over %v, K = %d, batch %d", c.name, s, k, batch), batch, n, c.init, c.build)
			}
		}
	}
}

// ---- values, ties, NaN ----

// TestMergeOpsForwardValues: each op's values on small inputs worked out by hand.
func TestMergeOpsForwardValues(t *testing.T) {
	s := Shape{2, 1, 3}
	g := NewGraph(2)
	x := g.Input(6, false)
	copy(x.Data, []float32{1, 2, 3, -4, 5, -6, 0.5, 0, -1, 2, 2, 2})
	v := g.Input(2, false)
	copy(v.Data, []float32{10, -1, 0.5, 3})
	add := g.Add(x, x, x)
	mul := g.Mul(x, v, 3)
	cat := g.Concat(v, x)
	gap, gmp := g.GlobalAvgPool(x, s), g.GlobalMaxPool(x, s)
	aff := g.ChannelAffine(x, s, []float32{2, -1}, []float32{1, 0.5})
	bc := g.Broadcast(v, 2)
	ms := g.MaskSamples(v, [][]float32{{0, 2}, {2, 0}})
	mss := g.MaskSamples(bc, [][]float32{{1, 2}, {2, 0}})
	g.Forward()
	nz := float32(math.Copysign(0, -1)) // -1·0
	for _, c := range []struct {
		name      string
		got, want []float32
	}{
		{"add", add.Live(), []float32{3, 6, 9, -12, 15, -18, 1.5, 0, -3, 6, 6, 6}},
		{"mul per channel", mul.Live(), []float32{10, 20, 30, 4, -5, 6, 0.25, 0, -0.5, 6, 6, 6}},
		{"concat", cat.Live(), []float32{10, -1, 1, 2, 3, -4, 5, -6, 0.5, 3, 0.5, 0, -1, 2, 2, 2}},
		{"global avg pool", gap.Live(), []float32{2, -5.0 / 3, float32(-0.5 / 3), 2}},
		{"global max pool", gmp.Live(), []float32{3, 5, 0.5, 2}},
		{"channel affine", aff.Live(), []float32{3, 5, 7, 4.5, -4.5, 6.5, 2, 1, -1, -1.5, -1.5, -1.5}},
		{"broadcast", bc.Live(), []float32{10, -1, 0.5, 3, 10, -1, 0.5, 3}},
		{"mask samples, per point", ms.Live(), []float32{0, -2, 0, 6, 20, nz, 1, 0}},
		{"mask samples, per sample", mss.Live(), []float32{10, -2, 0.5, 6, 20, nz, 1, 0}},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestGlobalMaxPoolAsMaxPool2D: the global max pool takes the value and the pixel MaxPool2D takes with a window
// over the whole image, ties (the first maximal pixel) and NaN (the first NaN) included, and sends the gradient
// there.
func TestGlobalMaxPoolAsMaxPool2D(t *testing.T) {
	r := rng.New(43)
	for trial := 0; trial < 20; trial++ {
		s := randShape(r)
		p, err := NewPool(s, Window{KH: s.H, KW: s.W, StrideH: 1, StrideW: 1})
		if err != nil {
			t.Fatal(err)
		}
		g := NewGraph(3)
		x := g.Input(s.Size(), true)
		a, b := g.GlobalMaxPool(x, s), g.MaxPool2D(x, &p)
		c := randSlice(r, s.C, 1)
		l := NewLayer(s.C, 1, c, []float32{0})
		loss := g.Add(g.Dense(a, &l), g.Dense(b, &l))
		for i := range x.Data[:3*s.Size()] {
			x.Data[i] = float32(r.IntN(3)) // many ties
			switch r.IntN(40) {
			case 0:
				x.Data[i] = float32(math.NaN())
			case 1:
				x.Data[i] = float32(math.Inf(-1))
			}
		}
		g.Forward()
		g.Backward(loss, nil)
		if fmt.Sprint(a.Live()) != fmt.Sprint(b.Live()) {
			t.Fatalf("%v: global max pool %v, MaxPool2D %v", s, a.Live(), b.Live())
		}
		ga := globalMaxArg(a)
		gb := b.producer.(*maxPoolOp).arg[:len(ga)]
		if fmt.Sprint(ga) != fmt.Sprint(gb) {
			t.Fatalf("%v: global max pool takes pixels %v, MaxPool2D %v", s, ga, gb)
		}
		// Each took the gradient once: ∂x is twice what one alone would send, at the pixels they took.
		want := make([]float32, 3*s.Size())
		for i, at := range ga {
			want[(i/s.C)*s.Size()+int(at)] += 2 * c[i%s.C]
		}
		if fmt.Sprint(x.Grad[:len(want)]) != fmt.Sprint(want) {
			t.Fatalf("%v: ∂x %v, want %v", s, x.Grad[:len(want)], want)
		}
	}
}

func globalMaxArg(t *Tensor) []int32 {
	return t.producer.(*globalMaxPoolOp).arg[:t.Rows()*t.Cols]
}

// TestMergeOpsNaN: a NaN in one point's input shows in that point's logits (every sample's row) and input
// gradient, and leaves the other points' bits as they are without it.
func TestMergeOpsNaN(t *testing.T) {
	type result struct{ logits, loss, grad []float32 }
	run := func(poison bool) result {
		net := newMergeNet(3)
		if poison {
			net.x.Data[net.x.Cols+7] = float32(math.NaN())
		}
		net.g.Forward()
		net.g.Backward(net.loss, nil)
		cp := func(s []float32) []float32 { return append([]float32(nil), s...) }
		return result{cp(net.logits.Live()), cp(net.loss.Live()), cp(net.x.Grad[:net.x.Rows()*net.x.Cols])}
	}
	clean, bad := run(false), run(true)
	cols, lc := len(clean.grad)/3, len(clean.logits)/9
	same := func(what string, a, b []float32) {
		for j := range a {
			if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
				t.Fatalf("%s[%d]: %v beside a NaN point, %v without", what, j, b[j], a[j])
			}
		}
	}
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			row := bad.logits[(k*3+i)*lc : (k*3+i+1)*lc]
			if i != 1 {
				same(fmt.Sprintf("point %d, sample %d: logits", i, k), clean.logits[(k*3+i)*lc:(k*3+i+1)*lc], row)
			} else if !math.IsNaN(float64(row[0])) {
				t.Errorf("the poisoned point's sample %d: logits %v, want NaN", k, row)
			}
		}
		if i == 1 {
			if !math.IsNaN(float64(bad.grad[i*cols+7])) {
				t.Errorf("the poisoned point's ∂x at the NaN: %v, want NaN", bad.grad[i*cols+7])
			}
			continue
		}
		same(fmt.Sprintf("point %d: loss", i), clean.loss[i:i+1], bad.loss[i:i+1])
		same(fmt.Sprintf("point %d: ∂x", i), clean.grad[i*cols:(i+1)*cols], bad.grad[i*cols:(i+1)*cols])
	}
	// Each op alone passes a NaN through.
	g := NewGraph(1)
	s := Shape{2, 1, 2}
	x := g.Input(4, false)
	copy(x.Data, []float32{float32(math.NaN()), 1, 2, 3})
	m := [][]float32{{0, 0, 0, 0}}
	outs := []*Tensor{g.Add(x, x), g.Mul(x, x, 1), g.Mul(g.GlobalAvgPool(x, s), g.GlobalMaxPool(x, s), 1), g.Concat(x), g.Broadcast(x, 2),
		g.MaskSamples(x, m), g.ChannelAffine(x, s, []float32{0, 1}, []float32{0, 0})}
	g.Forward()
	for i, o := range outs {
		if !math.IsNaN(float64(o.Data[0])) {
			t.Errorf("op %d swallowed a NaN: %v", i, o.Live())
		}
	}
}

// TestChannelAffineCopiesAndSignsZero: the scale and shift are copied at build time, and a shift of -0 gives
// +0 where the product is -0 (as NewLayer's biases).
func TestChannelAffineCopiesAndSignsZero(t *testing.T) {
	g := NewGraph(1)
	x := g.Input(2, false)
	negZero := float32(math.Copysign(0, -1))
	scale, shift := []float32{1, -1}, []float32{negZero, negZero}
	y := g.ChannelAffine(x, Shape{2, 1, 1}, scale, shift)
	scale[0], shift[1] = 5, 5
	copy(x.Data, []float32{1, 0})
	g.Forward()
	if y.Data[0] != 1 || math.Float32bits(y.Data[1]) != 0 {
		t.Errorf("1·1 + -0 and 0·(-1) + -0 gave %v (%#x), want 1 and +0", y.Live(), math.Float32bits(y.Data[1]))
	}
}

// TestMergeOpsRefuseMismatches: shapes that do not fit are programmer errors, and panic at build time.
func TestMergeOpsRefuseMismatches(t *testing.T) {
	g := NewGraph(2)
	a, b, c := g.Input(6, true), g.Input(4, true), g.Input(2, false)
	per := g.Broadcast(a, 2)
	s := Shape{2, 1, 3}
	for _, bad := range []struct {
		what string
		f    func()
	}{
		{"add of widths 6 and 4", func() { g.Add(a, b) }},
		{"add of one tensor", func() { g.Add(a) }},
		{"add per point and per sample", func() { g.Add(a, per) }},
		{"mul by 4 columns over 3 pixels", func() { g.Mul(a, b, 3) }},
		{"mul per point and per sample", func() { g.Mul(per, c, 3) }},
		{"concat per point and per sample", func() { g.Concat(a, per) }},
		{"concat of nothing", func() { g.Concat() }},
		{"broadcast of a per-sample tensor", func() { g.Broadcast(per, 2) }},
		{"broadcast to 0 samples", func() { g.Broadcast(a, 0) }},
		{"mask samples with 3 masks on 2 samples", func() { g.MaskSamples(per, make([][]float32, 3)) }},
		{"mask samples with a short mask", func() { g.MaskSamples(a, [][]float32{make([]float32, 5)}) }},
		{"mask samples with no mask", func() { g.MaskSamples(a, nil) }},
		{"global avg pool of the wrong shape", func() { g.GlobalAvgPool(b, s) }},
		{"global max pool of the wrong shape", func() { g.GlobalMaxPool(b, s) }},
		{"channel affine with one scale short", func() { g.ChannelAffine(a, s, []float32{1}, []float32{0, 0}) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", bad.what)
				}
			}()
			bad.f()
		}()
	}
}

// ---- a network of every op: batches, bits, allocations ----

// mergeNet is a small network of every op of merge.go, affine.go and the global pools, on images 3×4×5 with K = 3
// MC samples: batch normalisation, ReLU, a squeeze-and-excitation block with a residual sum, a global max pool,
// channel concatenation, the passage to per-sample rows by Broadcast and MaskSamples, a per-channel product on
// per-sample rows, and the MC-dropout predictive's total entropy as the loss.
type mergeNet struct {
	g                               *Graph
	x                               *Tensor
	res, gmp, samples, logits, loss *Tensor
}

func newMergeNet(batch int) *mergeNet {
	r := rng.New(2031)
	s := Shape{3, 4, 5}
	n, p, k := s.Size(), s.H*s.W, 3
	scale, shift := randAffine(r, s.C)
	squeeze := randLayer(r, s.C, s.C)
	mCat, mX := randMasks(r, k, n+s.C, 0.25), randMasks(r, k, n, 0.5)
	heads := make([]Layer, k)
	for i := range heads {
		heads[i] = *randLayer(r, 2*n+s.C, 4)
	}
	g := NewGraph(batch)
	x := g.Input(n, true)
	h := g.ReLU(g.ChannelAffine(x, s, scale, shift))
	se := g.Mul(h, g.Sigmoid(g.Dense(g.GlobalAvgPool(h, s), squeeze)), p)
	res := g.Add(se, x, g.Mul(h, x, p))
	gmp := g.GlobalMaxPool(res, s)
	ps := g.MaskSamples(g.Broadcast(g.Concat(res, gmp), k), mCat)
	samples := g.Concat(ps, g.Mul(g.MaskSamples(x, mX), g.Broadcast(gmp, k), p))
	logits := g.DenseSamples(samples, heads)
	loss := g.Predictive(logits, nil).Total
	copy(x.Data, randSlice(r, batch*n, 1))
	return &mergeNet{g: g, x: x, res: res, gmp: gmp, samples: samples, logits: logits, loss: loss}
}

// mergeOpsGolden is the SHA-256 of the bits of mergeNet's values and input gradient on fixed inputs
// (mergeOpsHash), first computed natively (amd64, AVX-512): the same natively with every kernel
// (DELTACLUE_KERNEL=go, avx2), with compaction on and off, and in WASM under Node with the pure-Go kernel and
// with the SIMD kernel.
const mergeOpsGolden = "13de5a1351bafc98de9f9f09464b6d2b401547f75ed040ce31f48710788f1c2d"

func mergeOpsHash(t *testing.T) string {
	net := newMergeNet(5)
	net.g.Forward()
	net.g.Backward(net.loss, nil)
	sum := sha256.New()
	for _, s := range [][]float32{net.res.Live(), net.gmp.Live(), net.samples.Live(), net.logits.Live(), net.loss.Live(), net.x.Grad[:net.x.Rows()*net.x.Cols]} {
		for _, v := range s {
			binary.Write(sum, binary.LittleEndian, math.Float32bits(v))
		}
	}
	return hex.EncodeToString(sum.Sum(nil))
}

// TestMergeOpsGolden: see mergeOpsGolden.
func TestMergeOpsGolden(t *testing.T) {
	t.Logf("kernel %s", kernel.Native)
	for _, on := range []bool{true, false} {
		withCompaction(on, func() {
			if got := mergeOpsHash(t); got != mergeOpsGolden {
				t.Errorf("the merge ops' network hashes to %s, want %s (kernel %s, compaction %v)", got, mergeOpsGolden, kernel.Native, on)
			}
		})
	}
}

// TestMergeOpsActiveBatch: shrinking the batch between steps computes the first points exactly as the full batch
// does, per-sample rows included (row k·batch + i moves with the batch), touches no row outside it, and gives
// each point the bits it gets alone.
func TestMergeOpsActiveBatch(t *testing.T) {
	net := newMergeNet(6)
	g, x := net.g, net.x
	x0 := append([]float32(nil), x.Data[:6*x.Cols]...)
	g.Forward()
	g.Backward(net.loss, nil)
	full := append([]float32(nil), net.loss.Live()...)
	fullGrad := append([]float32(nil), x.Grad[:6*x.Cols]...)
	fullSamples := append([]float32(nil), net.samples.Live()...)
	if err := g.SetBatch(3); err != nil {
		t.Fatal(err)
	}
	net.loss.Data[4] = -7
	g.Forward()
	g.Backward(net.loss, nil)
	c := net.samples.Cols
	for i := 0; i < 3; i++ {
		if math.Float32bits(net.loss.Data[i]) != math.Float32bits(full[i]) {
			t.Fatalf("point %d: loss %v with batch 3, %v with batch 6", i, net.loss.Data[i], full[i])
		}
		for j := i * x.Cols; j < (i+1)*x.Cols; j++ {
			if math.Float32bits(x.Grad[j]) != math.Float32bits(fullGrad[j]) {
				t.Fatalf("point %d: ∂x[%d] differs with batch 3", i, j-i*x.Cols)
			}
		}
		for k := 0; k < 3; k++ {
			got, want := net.samples.Data[(k*3+i)*c:(k*3+i+1)*c], fullSamples[(k*6+i)*c:(k*6+i+1)*c]
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("point %d, sample %d: its per-sample row differs with batch 3", i, k)
			}
		}
	}
	if net.loss.Data[4] != -7 {
		t.Fatal("a row outside the batch was written")
	}
	// Alone, each point gets the same bits (a graph of capacity 1 on its input).
	for i := 0; i < 6; i++ {
		one := newMergeNet(1)
		copy(one.x.Data, x0[i*x.Cols:(i+1)*x.Cols])
		one.g.Forward()
		one.g.Backward(one.loss, nil)
		if math.Float32bits(one.loss.Data[0]) != math.Float32bits(full[i]) {
			t.Fatalf("point %d: loss %v alone, %v in a batch of 6", i, one.loss.Data[0], full[i])
		}
		for j, v := range one.x.Grad[:x.Cols] {
			if math.Float32bits(v) != math.Float32bits(fullGrad[i*x.Cols+j]) {
				t.Fatalf("point %d: ∂x[%d] %v alone, %v in a batch of 6", i, j, v, fullGrad[i*x.Cols+j])
			}
		}
	}
}

// TestMergeOpsZeroAllocations: forward and backward through every op allocate nothing, at full and at a shrunk
// batch.
func TestMergeOpsZeroAllocations(t *testing.T) {
	net := newMergeNet(8)
	step := func() {
		net.g.Forward()
		net.g.Backward(net.loss, nil)
	}
	step()
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per forward+backward, want 0", a)
	}
	net.g.SetBatch(3)
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per step with a shrunk batch, want 0", a)
	}
}

// BenchmarkMergeOps: each op forward and backward on a batch of 100 images 32×14×14 (per-sample ops: K = 20,
// on 64 channels as a dense head's input would have).
func BenchmarkMergeOps(b *testing.B) {
	r := rng.New(1)
	const batch, k = 100, 20
	s := Shape{32, 14, 14}
	n, p := s.Size(), s.H*s.W
	scale, shift := randAffine(r, s.C)
	masks := randMasks(r, k, 64, 0.25)
	cases := []struct {
		name  string
		cols  int
		build func(g *Graph, x *Tensor) *Tensor
	}{
		{"add x+x+x", n, func(g *Graph, x *Tensor) *Tensor { return g.Add(x, x, x) }},
		{"mul elementwise", n, func(g *Graph, x *Tensor) *Tensor { return g.Mul(x, x, 1) }},
		{"mul per channel", n, func(g *Graph, x *Tensor) *Tensor { return g.Mul(x, g.GlobalAvgPool(x, s), p) }},
		{"concat x, x", n, func(g *Graph, x *Tensor) *Tensor { return g.Concat(x, x) }},
		{"global avg pool", n, func(g *Graph, x *Tensor) *Tensor { return g.GlobalAvgPool(x, s) }},
		{"global max pool", n, func(g *Graph, x *Tensor) *Tensor { return g.GlobalMaxPool(x, s) }},
		{"channel affine", n, func(g *Graph, x *Tensor) *Tensor { return g.ChannelAffine(x, s, scale, shift) }},
		{"broadcast 64 to 20 samples", 64, func(g *Graph, x *Tensor) *Tensor { return g.Broadcast(x, k) }},
		{"mask samples 64, 20 masks", 64, func(g *Graph, x *Tensor) *Tensor { return g.MaskSamples(x, masks) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			g := NewGraph(batch)
			x := g.Input(c.cols, true)
			out := c.build(g, x)
			normal(r, x.Data)
			g.Forward()
			normal(r, out.Grad)
			o := out.producer
			b.ResetTimer()
			for range b.N {
				o.forward()
				o.backward()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/step")
		})
	}
}
