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

// The activations of activations.go beyond leaky ReLU and tanh (those are checked in layers_test.go): against
// finite differences, against float64 definitions and PyTorch's conventions at kinks and special values, on
// per-sample tensors and shrunk batches, allocation-free, and by one golden hash of them all, forward and
// backward (activationsGolden). Against gomlx: activations_oracle_test.go.

var inf32 = float32(math.Inf(1))

// awayFrom fills x with normals times scale, each kept at least 0.1 from every kink, so that a finite
// difference's ±eps never crosses one.
func awayFrom(scale float64, kinks ...float64) func(r *rng.Rand, x []float32) {
	return func(r *rng.Rand, x []float32) {
		for i := range x {
			v := r.Norm() * scale
			for _, k := range kinks {
				if d := v - k; math.Abs(d) < 0.1 {
					v = k + math.Copysign(0.1+math.Abs(d), d)
				}
			}
			x[i] = float32(v)
		}
	}
}

// activationCase is one activation with its parameters, the inputs that keep clear of its kinks, and its
// float64 definition (a value, and the derivative where it has one).
type activationCase struct {
	name  string
	init  func(*rng.Rand, []float32)
	build func(g *Graph, x *Tensor) *Tensor
	f     func(x float64) float64
}

func sigmoid64(x float64) float64 {
	if x < 0 {
		e := math.Exp(x)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(-x))
}

func clamp64(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }

// activationCases: every activation at several parameters (clip bounds finite and infinite, alpha of either
// sign), both GELU forms.
func activationCases() []activationCase {
	clip := func(lo, hi float32, scale float64) activationCase {
		return activationCase{fmt.Sprintf("clip [%v, %v]", lo, hi), awayFrom(scale, float64(lo), float64(hi)),
			func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, lo, hi) },
			func(x float64) float64 { return clamp64(x, float64(lo), float64(hi)) }}
	}
	hardSigmoid := func(alpha, beta float32, scale float64) activationCase {
		a, b := float64(alpha), float64(beta)
		return activationCase{fmt.Sprintf("hard sigmoid %v·x + %v", alpha, beta), awayFrom(scale, -b/a, (1-b)/a),
			func(g *Graph, x *Tensor) *Tensor { return g.HardSigmoid(x, alpha, beta) },
			func(x float64) float64 { return clamp64(a*x+b, 0, 1) }}
	}
	elu := func(alpha float32) activationCase {
		a := float64(alpha)
		return activationCase{fmt.Sprintf("elu %v", alpha), awayFrom(2, 0),
			func(g *Graph, x *Tensor) *Tensor { return g.ELU(x, alpha) },
			func(x float64) float64 {
				if x > 0 {
					return x
				}
				return a * math.Expm1(x)
			}}
	}
	return []activationCase{
		{"silu", awayFrom(3), func(g *Graph, x *Tensor) *Tensor { return g.SiLU(x) },
			func(x float64) float64 { return x * sigmoid64(x) }},
		{"gelu", awayFrom(3), func(g *Graph, x *Tensor) *Tensor { return g.GELU(x, false) },
			func(x float64) float64 { return 0.5 * x * math.Erfc(-x/math.Sqrt2) }},
		{"gelu, tanh form", awayFrom(3), func(g *Graph, x *Tensor) *Tensor { return g.GELU(x, true) },
			func(x float64) float64 {
				u := math.Sqrt(2/math.Pi) * (x + 0.044715*x*x*x)
				return x * sigmoid64(2*u) // 0.5·(1 + tanh(u)) without its cancellation
			}},
		clip(-0.5, 0.7, 1),
		clip(0, 6, 4), // ReLU6
		clip(-inf32, 0.3, 1),
		clip(-1, inf32, 1),
		clip(-inf32, inf32, 1),
		clip(2, 2, 3),
		hardSigmoid(0.2, 0.5, 3), // ONNX's default
		hardSigmoid(1.0/6, 0.5, 4),
		hardSigmoid(-0.7, 0.1, 2),
		{"hard swish", awayFrom(4, -3, 3), func(g *Graph, x *Tensor) *Tensor { return g.HardSwish(x) },
			func(x float64) float64 { return x * clamp64(x+3, 0, 6) / 6 }},
		elu(1),
		elu(0.3),
		elu(2.5),
		{"softplus", awayFrom(4), func(g *Graph, x *Tensor) *Tensor { return g.Softplus(x) },
			func(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }},
	}
}

// TestActivationGradients: each activation's input gradient against central finite differences, on per-point
// tensors, and on a per-sample tensor (three samples of the input stacked, each read by its own dense layer).
func TestActivationGradients(t *testing.T) {
	r := rng.New(7)
	s := []Layer{*randLayer(r, 7, 5), *randLayer(r, 7, 5), *randLayer(r, 7, 5)}
	for _, c := range activationCases() {
		for _, batch := range []int{1, 3} {
			gradCheck(t, c.name, batch, 7, c.init, c.build)
		}
		gradCheck(t, c.name+", per sample", 2, 7, c.init, func(g *Graph, x *Tensor) *Tensor {
			return g.Predictive(g.DenseSamples(c.build(g, g.Stack(x, x, x)), s), nil).Total
		})
	}
}

// f32ulps is the distance between two float32 values in units in the last place.
func f32ulps(a, b float32) int64 {
	ia, ib := int64(int32(math.Float32bits(a))), int64(int32(math.Float32bits(b)))
	if ia < 0 {
		ia = math.MinInt32 - ia
	}
	if ib < 0 {
		ib = math.MinInt32 - ib
	}
	if ia > ib {
		return ia - ib
	}
	return ib - ia
}

// TestActivationValues: each activation's forward values within 1 float32 ulp of its float64 definition, from
// tiny to large arguments of both signs (far into GELU's and softplus's tails, where a plain 1 + erf or
// log(1 + e^x) would have lost them), and NaN passing through.
func TestActivationValues(t *testing.T) {
	var xs []float32
	for _, v := range []float64{0, 1e-30, 1e-8, 1e-6, 1e-5, 9.99e-6, 1.01e-5, 1e-3, 0.1, 0.5, 0.75, 1, 1.3, 2, 2.5, 3, 3.5, 5, 6,
		8, 10, 14, 20, 30, 50, 88, 100, 1000, 1e30} {
		xs = append(xs, float32(v), float32(-v))
	}
	r := rng.New(8)
	for i := 0; i < 3000; i++ {
		xs = append(xs, float32(r.Norm()*4))
	}
	for _, c := range activationCases() {
		g := NewGraph(len(xs))
		x := g.Input(1, false)
		out := c.build(g, x)
		copy(x.Data, xs)
		g.Forward()
		worst, at := int64(0), float32(0)
		for i, v := range xs {
			want := float32(c.f(float64(v)))
			if d := f32ulps(out.Data[i], want); d > worst {
				worst, at = d, v
			}
		}
		if worst > 1 {
			t.Errorf("%s(%v) = %v, want %v: %d ulps", c.name, at, out.Data[slicesIndex(xs, at)], float32(c.f(float64(at))), worst)
		}
		x.Data[0] = float32(math.NaN())
		g.Forward()
		if !math.IsNaN(float64(out.Data[0])) {
			t.Errorf("%s swallowed a NaN: %v", c.name, out.Data[0])
		}
	}
}

func slicesIndex(xs []float32, v float32) int {
	for i, x := range xs {
		if math.Float32bits(x) == math.Float32bits(v) {
			return i
		}
	}
	return -1
}

// derivative runs build on the single inputs xs (a batch of them, one column), seeds ∂out = 1 through a dense
// layer of weight 1, and returns the input gradient, i.e. the activation's derivative at each x.
func derivative(t *testing.T, xs []float32, build func(g *Graph, x *Tensor) *Tensor) []float32 {
	t.Helper()
	g := NewGraph(len(xs))
	x := g.Input(1, true)
	one := NewLayer(1, 1, []float32{1}, []float32{0})
	loss := g.Dense(build(g, x), &one)
	copy(x.Data, xs)
	g.Forward()
	g.Backward(loss, nil)
	return x.Grad[:len(xs)]
}

// TestActivationConventions: the values and derivatives at kinks and at infinities, as PyTorch has them.
func TestActivationConventions(t *testing.T) {
	nan, inf, negZero := float32(math.NaN()), inf32, float32(math.Copysign(0, -1))
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b) }
	checkD := func(name string, xs, want []float32, build func(g *Graph, x *Tensor) *Tensor) {
		t.Helper()
		got := derivative(t, xs, build)
		for i := range xs {
			if !same(got[i], want[i]) {
				t.Errorf("%s: derivative at %v is %v, want %v", name, xs[i], got[i], want[i])
			}
		}
	}
	// Clip passes the gradient at its bounds (clamp's x >= min && x <= max), not beyond them nor at NaN.
	checkD("clip [-1, 2]", []float32{-1, 2, -1.0001, 2.0001, 0.5, nan}, []float32{1, 1, 0, 0, 1, 0},
		func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, -1, 2) })
	checkD("relu6", []float32{0, 6, -0.5, 6.5, 3}, []float32{1, 1, 0, 0, 1},
		func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, 0, 6) })
	checkD("clip [-inf, inf]", []float32{-inf, inf, 0, -3e38}, []float32{1, 1, 1, 1},
		func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, -inf, inf) })
	checkD("clip [1, 0]", []float32{-1, 0.5, 2}, []float32{0, 0, 0},
		func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, 1, 0) })
	// Hard sigmoid: alpha strictly between its kinks only; hard swish: hardswish_backward's closed [−3, 3].
	checkD("hard sigmoid", []float32{-2.5, 2.5, 0, -3, 3, nan}, []float32{0, 0, 0.2, 0, 0, 0},
		func(g *Graph, x *Tensor) *Tensor { return g.HardSigmoid(x, 0.2, 0.5) })
	checkD("hard swish", []float32{-3, 3, -3.0001, 3.0001, 0, 1.5, nan}, []float32{-0.5, 1.5, 0, 1, 0.5, 1, 1},
		func(g *Graph, x *Tensor) *Tensor { return g.HardSwish(x) })
	// ELU: alpha·e^x at x = 0 (x ≤ 0's branch).
	checkD("elu 0.3", []float32{0, 1e-30, -1e-30, nan}, []float32{0.3, 1, 0.3, nan},
		func(g *Graph, x *Tensor) *Tensor { return g.ELU(x, 0.3) })
	checkD("silu", []float32{0, 100, -200, nan}, []float32{0.5, 1, 0, nan},
		func(g *Graph, x *Tensor) *Tensor { return g.SiLU(x) })
	checkD("gelu", []float32{0, 10, -40, nan}, []float32{0.5, 1, 0, nan},
		func(g *Graph, x *Tensor) *Tensor { return g.GELU(x, false) })
	checkD("gelu, tanh form", []float32{0, 10, -40, nan}, []float32{0.5, 1, 0, nan},
		func(g *Graph, x *Tensor) *Tensor { return g.GELU(x, true) })
	checkD("softplus", []float32{0, 200, -200, inf, -inf, nan}, []float32{0.5, 1, 0, 1, 0, nan},
		func(g *Graph, x *Tensor) *Tensor { return g.Softplus(x) })

	values := func(name string, xs, want []float32, build func(g *Graph, x *Tensor) *Tensor) {
		t.Helper()
		g := NewGraph(len(xs))
		x := g.Input(1, false)
		out := build(g, x)
		copy(x.Data, xs)
		g.Forward()
		for i := range xs {
			if !same(out.Data[i], want[i]) {
				t.Errorf("%s(%v) = %v, want %v", name, xs[i], out.Data[i], want[i])
			}
		}
	}
	values("clip [-inf, 0.5]", []float32{-inf, inf, 0.7, -1e30}, []float32{-inf, 0.5, 0.5, -1e30},
		func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, -inf, 0.5) })
	values("clip [1, 0]", []float32{-1, 0.5, 2}, []float32{0, 0, 0}, func(g *Graph, x *Tensor) *Tensor { return g.Clip(x, 1, 0) })
	values("softplus", []float32{inf, -inf, 1000, -1000}, []float32{inf, 0, 1000, 0},
		func(g *Graph, x *Tensor) *Tensor { return g.Softplus(x) })
	values("elu 2", []float32{inf, -inf, -1e-30}, []float32{inf, -2, -2e-30}, func(g *Graph, x *Tensor) *Tensor { return g.ELU(x, 2) })
	values("silu", []float32{inf, -inf}, []float32{inf, nan}, func(g *Graph, x *Tensor) *Tensor { return g.SiLU(x) })
	values("gelu", []float32{inf, -inf, -1e-30}, []float32{inf, nan, -5e-31}, func(g *Graph, x *Tensor) *Tensor { return g.GELU(x, false) })
	values("hard swish", []float32{inf, -inf, -3, 3}, []float32{inf, nan, negZero, 3}, func(g *Graph, x *Tensor) *Tensor { return g.HardSwish(x) })

	for _, bad := range []func(g *Graph, x *Tensor){
		func(g *Graph, x *Tensor) { g.Clip(x, float32(math.NaN()), 1) },
		func(g *Graph, x *Tensor) { g.HardSigmoid(x, 0.2, float32(math.NaN())) },
		func(g *Graph, x *Tensor) { g.ELU(x, float32(math.NaN())) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a NaN parameter was accepted")
				}
			}()
			g := NewGraph(1)
			bad(g, g.Input(1, true))
		}()
	}
}

// activationsGolden is the SHA-256 of the bits of a fixed stack of every activation's outputs and input
// gradients (activationsHash), first computed natively: the same natively (every native kernel), in WASM with
// the pure-Go kernel and in WASM with the SIMD kernel.
const activationsGolden = "64cff17a9535e2ec22dd7d4ff52ca3bb86c4183ad923dce28c411e24ecfbbbda"

// activationChain builds every activation, each on a dense layer of x (per point) or of the last one (a chain),
// and on a per-sample tensor, into one per-point loss; it returns the loss and the tensors to hash.
func activationChain(g *Graph, x *Tensor, r *rng.Rand) (loss *Tensor, outs []*Tensor) {
	const w = 12
	dense := func(h *Tensor, scale float64) *Tensor {
		l := NewLayer(h.Cols, w, randSlice(r, h.Cols*w, scale/math.Sqrt(float64(h.Cols))), randSlice(r, w, 0.3))
		return g.Dense(h, &l)
	}
	ops := []func(h *Tensor) *Tensor{
		func(h *Tensor) *Tensor { return g.SiLU(h) },
		func(h *Tensor) *Tensor { return g.GELU(h, false) },
		func(h *Tensor) *Tensor { return g.GELU(h, true) },
		func(h *Tensor) *Tensor { return g.Clip(h, -0.8, 1.1) },
		func(h *Tensor) *Tensor { return g.Clip(h, 0, 6) },
		func(h *Tensor) *Tensor { return g.Clip(h, float32(math.Inf(-1)), 0.4) },
		func(h *Tensor) *Tensor { return g.HardSigmoid(h, 0.2, 0.5) },
		func(h *Tensor) *Tensor { return g.HardSigmoid(h, 1.0/6, 0.5) },
		func(h *Tensor) *Tensor { return g.HardSwish(h) },
		func(h *Tensor) *Tensor { return g.ELU(h, 1) },
		func(h *Tensor) *Tensor { return g.ELU(h, 0.7) },
		func(h *Tensor) *Tensor { return g.Softplus(h) },
	}
	var terms []Term
	chain := x
	for i, op := range ops {
		side := op(dense(x, 4)) // wide inputs: both sides of every kink, the tails
		chain = op(dense(chain, 2))
		outs = append(outs, side, chain)
		terms = append(terms, Term{float32(i%3) - 0.7, g.L1(side, randSlice(r, w, 1))})
	}
	// On a per-sample tensor: three MC samples of the chain, each activation in turn, into the predictive.
	layers := func() []Layer { return []Layer{*randLayer(r, w, w), *randLayer(r, w, w), *randLayer(r, w, w)} }
	h := g.DenseSamples(chain, layers())
	for _, op := range ops {
		h = op(g.DenseSamples(h, layers()))
	}
	outs = append(outs, h)
	terms = append(terms, Term{1, g.L1(chain, randSlice(r, w, 1))}, Term{1, g.Predictive(h, nil).Total})
	return g.Sum(terms...), outs
}

// activationsHash runs activationChain forward and backward on fixed inputs and hashes its outputs, the loss
// and the input gradient.
func activationsHash(t *testing.T) string {
	r := rng.New(2031)
	const batch, cols = 5, 9
	g := NewGraph(batch)
	x := g.Input(cols, true)
	loss, outs := activationChain(g, x, r)
	copy(x.Data, randSlice(r, batch*cols, 1))
	g.Forward()
	g.Backward(loss, nil)
	sum := sha256.New()
	for _, o := range outs {
		for _, v := range o.Live() {
			binary.Write(sum, binary.LittleEndian, math.Float32bits(v))
		}
	}
	for _, s := range [][]float32{loss.Live(), x.Grad[:batch*cols]} {
		for _, v := range s {
			binary.Write(sum, binary.LittleEndian, math.Float32bits(v))
		}
	}
	return hex.EncodeToString(sum.Sum(nil))
}

// TestActivationsGolden: see activationsGolden.
func TestActivationsGolden(t *testing.T) {
	if got := activationsHash(t); got != activationsGolden {
		t.Errorf("the activations' stack hashes to %s, want %s (kernel %s)", got, activationsGolden, kernel.Native)
	}
}

// TestActivationsBatchAndAllocations: on a shrunk batch each point gets the bits it gets in the full batch
// (the activations touch only the live rows, per point and per sample), and a forward and backward pass
// allocates nothing.
func TestActivationsBatchAndAllocations(t *testing.T) {
	const capacity, cols = 6, 9
	r := rng.New(2032)
	g := NewGraph(capacity)
	x := g.Input(cols, true)
	loss, _ := activationChain(g, x, r)
	copy(x.Data, randSlice(r, capacity*cols, 1))
	g.Forward()
	g.Backward(loss, nil)
	full := append(append([]float32(nil), loss.Live()...), x.Grad[:capacity*cols]...)
	if err := g.SetBatch(2); err != nil {
		t.Fatal(err)
	}
	for i := 2 * cols; i < capacity*cols; i++ {
		x.Data[i] = float32(math.NaN()) // dead rows: nothing live may read them
	}
	g.Forward()
	g.Backward(loss, nil)
	for i := 0; i < 2; i++ {
		if math.Float32bits(loss.Data[i]) != math.Float32bits(full[i]) {
			t.Errorf("point %d: loss %v in a batch of 2, %v in a batch of %d", i, loss.Data[i], full[i], capacity)
		}
		for j := 0; j < cols; j++ {
			if a, b := x.Grad[i*cols+j], full[capacity+i*cols+j]; math.Float32bits(a) != math.Float32bits(b) {
				t.Fatalf("point %d: ∂loss/∂x[%d] %v in a batch of 2, %v in a batch of %d", i, j, a, b, capacity)
			}
		}
	}
	step := func() {
		g.Forward()
		g.Backward(loss, nil)
	}
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Errorf("%v allocations per forward+backward, want 0", a)
	}
}
