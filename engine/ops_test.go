package engine

import (
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
)

func randSlice(r *rng.Rand, n int, scale float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.Norm() * scale)
	}
	return s
}

func randLayer(r *rng.Rand, in, out int) *Layer {
	l := NewLayer(in, out, randSlice(r, in*out, 1/math.Sqrt(float64(in))), randSlice(r, out, 0.1))
	return &l
}

// gradCheck builds graph = build(input) for a batch of inputs with cols columns, reduces its output to a
// per-point scalar with a fixed random projection, and compares Backward's ∂loss/∂input with central finite
// differences (float32 forward, step eps): elementwise within atol + rtol·|g|, and along random directions
// within 2e-3 relative (or 2e-4 absolute: a float32 forward pass limits finite differences to about that).
// initial fills the input.
func gradCheck(t *testing.T, name string, batch, cols int, initial func(r *rng.Rand, x []float32), build func(g *Graph, x *Tensor) *Tensor) {
	t.Helper()
	r := rng.New(42)
	g := NewGraph(batch)
	x := g.Input(cols, true)
	out := build(g, x)
	loss := g.Dense(out, randLayer(r, out.Cols, 1))
	initial(r, x.Data)
	value := func() float64 {
		g.Forward()
		var s float64
		for _, v := range loss.Live() {
			s += float64(v)
		}
		return s
	}
	value()
	g.Backward(loss, nil)
	grad := append([]float32(nil), x.Grad[:batch*cols]...)
	const eps, atol, rtol = 1e-2, 2e-3, 1e-2
	for i := range grad {
		orig := x.Data[i]
		x.Data[i] = orig + eps
		up := value()
		x.Data[i] = orig - eps
		down := value()
		x.Data[i] = orig
		fd := (up - down) / (2 * eps)
		if math.Abs(fd-float64(grad[i])) > atol+rtol*math.Abs(fd) {
			t.Errorf("%s: ∂/∂x[%d] = %v, finite differences say %v", name, i, grad[i], fd)
			return
		}
	}
	for trial := 0; trial < 3; trial++ {
		dir := randSlice(r, batch*cols, 1)
		orig := append([]float32(nil), x.Data[:batch*cols]...)
		var analytic float64
		for i, d := range dir {
			analytic += float64(d) * float64(grad[i])
		}
		const h = 1e-2
		for i, d := range dir {
			x.Data[i] = orig[i] + h*d
		}
		up := value()
		for i, d := range dir {
			x.Data[i] = orig[i] - h*d
		}
		down := value()
		copy(x.Data, orig)
		fd := (up - down) / (2 * h)
		if math.Abs(fd-analytic) > math.Max(2e-3*math.Abs(analytic), 2e-4) {
			t.Errorf("%s: directional derivative %v, finite differences say %v", name, analytic, fd)
		}
	}
}

func normal(r *rng.Rand, x []float32) {
	for i := range x {
		x[i] = float32(r.Norm())
	}
}

// awayFromKinks fills x with normals kept at least 0.1 from 0, so ±eps never crosses ReLU's or |·|'s kink.
func awayFromKinks(r *rng.Rand, x []float32) {
	for i := range x {
		v := r.Norm()
		if math.Abs(v) < 0.1 {
			v = math.Copysign(0.1+math.Abs(v), v)
		}
		x[i] = float32(v)
	}
}

func TestOpGradients(t *testing.T) {
	r := rng.New(1)
	samples := func() []Layer { // three MC samples' layers 6 → 6
		return []Layer{*randLayer(r, 6, 6), *randLayer(r, 6, 6), *randLayer(r, 6, 6)}
	}
	s1, s2 := samples(), samples()
	zeros := make([]float32, 6)
	dist := []float32{0.1, 0.2, 0.3, 0.15, 0.05, 0.2}
	cases := []struct {
		name  string
		init  func(*rng.Rand, []float32)
		build func(g *Graph, x *Tensor) *Tensor
	}{
		{"dense", normal, func(g *Graph, x *Tensor) *Tensor { return g.Dense(x, randLayer(r, 6, 5)) }},
		{"relu", awayFromKinks, func(g *Graph, x *Tensor) *Tensor { return g.ReLU(x) }},
		{"sigmoid", normal, func(g *Graph, x *Tensor) *Tensor { return g.Sigmoid(x) }},
		{"l1", awayFromKinks, func(g *Graph, x *Tensor) *Tensor { return g.L1(x, zeros) }},
		{"sum", normal, func(g *Graph, x *Tensor) *Tensor {
			a := g.Dense(x, randLayer(r, 6, 1))
			b := g.Dense(x, randLayer(r, 6, 1))
			return g.Sum(Term{0.7, a}, Term{-1.5, b}, Term{2, a})
		}},
		// Per-sample tensors reach a per-point output through Predictive.
		{"dense per sample, shared input", normal, func(g *Graph, x *Tensor) *Tensor { return g.Predictive(g.DenseSamples(x, s1), nil).Total }},
		{"dense per sample, per-sample input", normal, func(g *Graph, x *Tensor) *Tensor {
			return g.Predictive(g.DenseSamples(g.DenseSamples(x, s1), s2), nil).Aleatoric
		}},
		{"predictive p̄", normal, func(g *Graph, x *Tensor) *Tensor { return g.Predictive(g.DenseSamples(x, s1), nil).Probs }},
		{"predictive H total", normal, func(g *Graph, x *Tensor) *Tensor { return g.Predictive(g.DenseSamples(x, s1), nil).Total }},
		{"predictive H aleatoric", normal, func(g *Graph, x *Tensor) *Tensor { return g.Predictive(g.DenseSamples(x, s1), nil).Aleatoric }},
		{"predictive H epistemic", normal, func(g *Graph, x *Tensor) *Tensor { return g.Predictive(g.DenseSamples(x, s1), nil).Epistemic }},
		{"predictive cross-entropy", normal, func(g *Graph, x *Tensor) *Tensor { return g.Predictive(g.DenseSamples(x, s1), dist).CrossEnt }},
		{"predictive cross-entropy, a target per point", normal, func(g *Graph, x *Tensor) *Tensor {
			perPoint := make([]float32, g.Capacity()*6)
			for i := range perPoint {
				perPoint[i] = dist[(i*7+i/6)%6]
			}
			return g.Predictive(g.DenseSamples(x, s1), perPoint).CrossEnt
		}},
		{"predictive, all at once", normal, func(g *Graph, x *Tensor) *Tensor {
			p := g.Predictive(g.DenseSamples(x, s1), dist)
			return g.Sum(Term{1, p.Total}, Term{0.5, p.Aleatoric}, Term{-2, p.Epistemic}, Term{0.3, p.CrossEnt}, Term{1, g.Dense(p.Probs, randLayer(r, 6, 1))})
		}},
	}
	for _, c := range cases {
		for _, batch := range []int{1, 4} {
			gradCheck(t, c.name, batch, 6, c.init, c.build)
		}
	}
}

func TestForwardValues(t *testing.T) {
	g := NewGraph(2)
	x := g.Input(3, false)
	copy(x.Data, []float32{1, 2, 3, -1, 0, 1})
	identity := NewLayer(3, 3, []float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, make([]float32, 3))
	pred := g.Predictive(g.DenseSamples(x, []Layer{identity}), []float32{0, 0, 1})
	p, h := pred.Probs, pred.Total
	d := g.L1(x, []float32{1, 1, 1})
	relu := g.ReLU(x)
	g.Forward()
	e1, e2, e3 := math.Exp(1), math.Exp(2), math.Exp(3)
	s := e1 + e2 + e3
	wantP := []float64{e1 / s, e2 / s, e3 / s}
	var wantH float64
	for j, w := range wantP {
		if math.Abs(float64(p.Data[j])-w) > 1e-7 {
			t.Errorf("softmax[%d] = %v, want %v", j, p.Data[j], w)
		}
		wantH -= w * math.Log(w)
	}
	if math.Abs(float64(h.Data[0])-wantH) > 1e-6 || pred.Aleatoric.Data[0] != h.Data[0] || math.Abs(float64(pred.Epistemic.Data[0])) > 1e-7 {
		t.Errorf("entropies %v %v %v, want %v, the same, 0 (one MC sample)", h.Data[0], pred.Aleatoric.Data[0], pred.Epistemic.Data[0], wantH)
	}
	if ce := pred.CrossEnt.Data[0]; math.Abs(float64(ce)+math.Log(wantP[2])) > 1e-6 {
		t.Errorf("cross-entropy %v, want %v", ce, -math.Log(wantP[2]))
	}
	if d.Data[0] != 3 || d.Data[1] != 3 {
		t.Errorf("L1 %v, want [3 3]", d.Data[:2])
	}
	if relu.Data[3] != 0 || relu.Data[5] != 1 {
		t.Errorf("relu %v", relu.Data[:6])
	}
	x.Data[0] = float32(math.NaN())
	g.Forward()
	if !math.IsNaN(float64(relu.Data[0])) {
		t.Error("ReLU swallowed a NaN")
	}
}

func TestActiveBatch(t *testing.T) {
	// Shrinking the batch computes the first rows exactly as the full batch does, and touches no other row.
	r := rng.New(3)
	l := randLayer(r, 5, 4)
	per := []Layer{*randLayer(r, 4, 3), *randLayer(r, 4, 3)}
	g := NewGraph(6)
	x := g.Input(5, true)
	out := g.Predictive(g.DenseSamples(g.ReLU(g.Dense(x, l)), per), nil).Epistemic
	normal(r, x.Data)
	g.Forward()
	g.Backward(out, nil)
	full := append([]float32(nil), out.Data[:6]...)
	fullGrad := append([]float32(nil), x.Grad[:30]...)
	if err := g.SetBatch(3); err != nil {
		t.Fatal(err)
	}
	out.Data[4] = -7
	g.Forward()
	g.Backward(out, nil)
	for i := 0; i < 3; i++ {
		if out.Data[i] != full[i] {
			t.Fatalf("row %d: %v with batch 3, %v with batch 6", i, out.Data[i], full[i])
		}
	}
	for i := 0; i < 15; i++ {
		if x.Grad[i] != fullGrad[i] {
			t.Fatalf("grad %d differs with batch 3", i)
		}
	}
	if out.Data[4] != -7 {
		t.Fatal("a row outside the batch was written")
	}
	if g.SetBatch(0) == nil || g.SetBatch(7) == nil {
		t.Fatal("SetBatch accepted a batch outside 1..capacity")
	}
}
