package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
)

// withCompaction runs f with compaction set to on, and restores the setting.
func withCompaction(on bool, f func()) {
	old := compaction
	compaction = on
	defer func() { compaction = old }()
	f()
}

// objectiveOutputs is every output and gradient of an objective's live points, by name.
func objectiveOutputs(o *Objective) map[string][]float32 {
	out := map[string][]float32{
		"cost": o.Cost.Live(), "logits": o.Logits.Live(), "image": o.Image.Live(), "distance": o.Distance.Live(),
		"p̄": o.Pred.Probs.Live(), "samples": o.Pred.Samples.Live(), "H total": o.Pred.Total.Live(),
		"H aleatoric": o.Pred.Aleatoric.Live(), "H epistemic": o.Pred.Epistemic.Live(),
		"∂L/∂z": o.Z.Grad[:o.Z.Rows()*o.Z.Cols],
	}
	if o.Pred.CrossEnt != nil {
		out["cross-entropy"] = o.Pred.CrossEnt.Live()
	}
	for k, v := range out {
		out[k] = append([]float32(nil), v...)
	}
	return out
}

// sameBits compares want and got bit for bit; in NaN rows (nanRow) a NaN only has to be a NaN in both.
func sameBits(t *testing.T, what string, want, got map[string][]float32, nanRow func(name string, i int) bool) {
	t.Helper()
	for name, w := range want {
		g := got[name]
		if len(g) != len(w) {
			t.Fatalf("%s: %s has %d values, want %d", what, name, len(g), len(w))
		}
		for i := range w {
			if nanRow != nil && nanRow(name, i) && (math.IsNaN(float64(w[i])) || math.IsNaN(float64(g[i]))) {
				if !math.IsNaN(float64(w[i])) || !math.IsNaN(float64(g[i])) {
					t.Fatalf("%s: %s[%d] = %v compacted, %v not: want NaN in both", what, name, i, g[i], w[i])
				}
				continue
			}
			if math.Float32bits(w[i]) != math.Float32bits(g[i]) {
				t.Fatalf("%s: %s[%d] = %v (%#08x) compacted, %v (%#08x) not", what, name, i, g[i],
					math.Float32bits(g[i]), w[i], math.Float32bits(w[i]))
			}
		}
	}
}

// TestCompactionBitForBit runs the δ-CLUE objective on the shipped models with and without compaction, on
// random batches of 100, 50, 10 and 1 points (spread widely, tightly, and all at one point, so that from few to
// most hidden units are zero for the whole batch), for several losses, and compares every output and ∂L/∂z
// bit for bit. The same graphs run both ways and many batches in a row, so the gather caches are exercised
// (unchanged selections, partly changed, wholly changed), and batches shrink as in a search.
func TestCompactionBitForBit(t *testing.T) {
	v, b := loadShipped(t)
	s, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	losses := []LossWeights{
		{Total: 1, LambdaX: 0.03, LambdaY: 0.1},
		{Aleatoric: 0.5, Epistemic: 2, LambdaX: 1, DistanceMean: true},
		{Total: 1},
	}
	r := rng.New(5)
	for li, w := range losses {
		digit := []int{0, 7, 1735}[li]
		x0 := s.Float(digit, nil)
		z0 := v.Encode(x0)
		y0 := b.Classify(x0)[0].Probs
		for _, capacity := range []int{100, 50, 10, 1} {
			o, err := NewObjective(v, b, capacity, w, x0, y0)
			if err != nil {
				t.Fatal(err)
			}
			for trial, spread := range []float64{0.5, 2, 0.05, 0, 1, 1e-3, 3} {
				batch := capacity
				if trial >= 4 && capacity > 1 {
					batch = capacity - capacity/3*(trial-3)/2 // shrink, as converged points leave
				}
				if err := o.Graph.SetBatch(batch); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < batch; i++ {
					for d := 0; d < v.Latent; d++ {
						o.Z.Data[i*v.Latent+d] = z0[d] + float32(r.Norm()*spread)
					}
				}
				var want, got map[string][]float32
				withCompaction(false, func() { o.Forward(); o.Backward(); want = objectiveOutputs(o) })
				withCompaction(true, func() { o.Forward(); o.Backward(); got = objectiveOutputs(o) })
				sameBits(t, fmt.Sprintf("loss %d, capacity %d, batch %d, spread %g", li, capacity, batch, spread), want, got, nil)
			}
		}
	}
}

// TestCompactionNaNPoint: a NaN point stays NaN with compaction, and the other points keep their bits.
func TestCompactionNaNPoint(t *testing.T) {
	o := benchObjective(t, 10)
	o.Z.Data[3*o.Z.Cols+5] = float32(math.NaN())
	var want, got map[string][]float32
	withCompaction(false, func() { o.Forward(); o.Backward(); want = objectiveOutputs(o) })
	withCompaction(true, func() { o.Forward(); o.Backward(); got = objectiveOutputs(o) })
	sameBits(t, "a NaN point", want, got, func(name string, i int) bool {
		per := len(want[name]) / 10
		if name == "samples" {
			per = len(want[name]) / (10 * 20)
			return (i/per)%10 == 3
		}
		return i/per == 3
	})
}

// TestCompactionSmallGraphs compares compaction on and off on small random graphs with what the models do not
// have: weights with zero rows in per-point layers, tensors with two readers (a ReLU's input, a ReLU's output,
// a packed per-sample output, a per-sample ReLU output), ReLU outputs read at full width, layers whose units all
// die, batches of equal points, a batch that shrinks; and under cost models that pick every way to compact
// (gather everything, gather nothing).
func TestCompactionSmallGraphs(t *testing.T) {
	defer setCosts(kernel.Native)
	for _, costs := range [][3]float64{{costMove, costRow, cost2D}, {0, 0, 0}, {1e9, 1e9, 1e9}, {0, 1e9, 1e9}, {1e9, 0, 0}} {
		costMove, costRow, cost2D = costs[0], costs[1], costs[2]
		smallGraphs(t, fmt.Sprintf("costs %v", costs))
	}
}

func smallGraphs(t *testing.T, what string) {
	r := rng.New(11)
	withZeroRows := func(in, out int, zero func(i int) bool) Layer {
		w := randSlice(r, in*out, 1/math.Sqrt(float64(in)))
		for i := 0; i < in; i++ {
			if zero(i) {
				for j := 0; j < out; j++ {
					w[i*out+j] = float32(math.Copysign(0, float64(w[i*out+j]))) // ±0
				}
			}
		}
		return NewLayer(in, out, w, randSlice(r, out, 0.3))
	}
	const capacity, k = 9, 3
	g := NewGraph(capacity)
	x := g.Input(12, true)
	l1 := withZeroRows(12, 20, func(i int) bool { return i%5 == 2 })
	a1 := g.Dense(x, &l1)
	h1 := g.ReLU(a1)
	dist := g.L1(a1, randSlice(r, 20, 0.5))       // a1 has two readers
	side := g.Dense(h1, randLayer(r, 20, 1))      // and so has h1,
	full := g.L1(h1, randSlice(r, 20, 0.5))       // one of them at full width
	h3 := g.ReLU(g.Dense(x, randLayer(r, 12, 7))) // h3: two dense readers, and its input one
	side3 := g.Sum(Term{1, g.Dense(h3, randLayer(r, 7, 1))}, Term{-1, g.Dense(h3, randLayer(r, 7, 1))})
	var s1, s2, s3 []Layer
	for i := 0; i < k; i++ {
		s1 = append(s1, withZeroRows(20, 16, func(j int) bool { return (j+i)%4 == 0 }))
		s2 = append(s2, withZeroRows(16, 6, func(j int) bool { return (j*7+i)%3 == 0 }))
		s3 = append(s3, withZeroRows(16, 6, func(j int) bool { return (j*7+i)%3 == 0 })) // s2's zero rows
	}
	keep := [][]int32{s2[0].nzRows, nil, s2[2].nzRows}
	a2 := g.denseSamples(h1, s1, keep)
	h2 := g.ReLU(a2)
	dropped := map[int]bool{}
	for _, kk := range keep {
		if kk == nil {
			continue
		}
		kept := map[int32]bool{}
		for _, j := range kk {
			kept[j] = true
		}
		for j := 0; j < 16; j++ {
			dropped[j] = dropped[j] || !kept[int32(j)]
		}
	}
	// a2, packed, also has a full-width reader, which (as denseSamples asks) ignores the dropped columns.
	ignore := withZeroRows(16, 5, func(j int) bool { return dropped[j] })
	raw := g.Predictive(g.Dense(a2, &ignore), nil)
	raw2 := g.Predictive(g.Dense(h2, &ignore), nil)                                            // h2 too: a ReLU of a packed input, read at full width
	lone := g.Dense(g.ReLU(a1), randLayer(r, 20, 1))                                           // a ReLU whose input has other readers, its output one
	dead := NewLayer(20, 8, randSlice(r, 160, 0.1), []float32{-9, -9, -9, -9, -9, -9, -9, -9}) // every unit dies
	deadOut := g.Dense(g.ReLU(g.Dense(h1, &dead)), randLayer(r, 8, 1))
	p := g.Predictive(g.DenseSamples(h2, s2), []float32{0.1, 0.2, 0.3, 0.1, 0.2, 0.1})
	p3 := g.Predictive(g.DenseSamples(h2, s3), nil) // h2 has two readers
	loss := g.Sum(Term{1, p.Total}, Term{0.5, p.Aleatoric}, Term{0.3, p.CrossEnt}, Term{-0.7, side},
		Term{2, deadOut}, Term{0.05, dist}, Term{0.02, full}, Term{0.3, side3}, Term{0.2, raw.Epistemic}, Term{0.4, p3.Total},
		Term{0.3, raw2.Total}, Term{0.6, lone})
	outputs := func() map[string][]float32 {
		m := map[string][]float32{"loss": loss.Live(), "p̄": p.Probs.Live(), "samples": p.Samples.Live(),
			"side": side.Live(), "raw": raw.Probs.Live(), "∂x": x.Grad[:x.Rows()*x.Cols]}
		for n, v := range m {
			m[n] = append([]float32(nil), v...)
		}
		return m
	}
	for trial := 0; trial < 12; trial++ {
		batch := capacity - trial%4*2
		if err := g.SetBatch(batch); err != nil {
			t.Fatal(err)
		}
		scale := []float64{1, 0.01, 3, 0.2}[trial%4]
		for i := range x.Data {
			x.Data[i] = float32(r.Norm() * scale)
		}
		if trial%3 == 1 {
			for i := 0; i < batch*12; i++ {
				x.Data[i] = x.Data[i%12] // all points equal
			}
		}
		var want, got map[string][]float32
		withCompaction(false, func() { g.Forward(); g.Backward(loss, nil); want = outputs() })
		withCompaction(true, func() { g.Forward(); g.Backward(loss, nil); got = outputs() })
		sameBits(t, fmt.Sprintf("%s, trial %d, batch %d", what, trial, batch), want, got, nil)
	}
}

// kernel.ReluBits is `if v <= 0 { v = 0 }` on the bits, for every float32 class.
func TestReluBits(t *testing.T) {
	r := rng.New(9)
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00000), math.Float32frombits(0x7f800001),
		math.Float32frombits(0xff800001), math.Float32frombits(1), math.Float32frombits(0x80000001), math.MaxFloat32, -math.MaxFloat32}
	for i := 0; i < 100000; i++ {
		vals = append(vals, math.Float32frombits(uint32(r.Uint64())))
	}
	for _, v := range vals {
		want := v
		if v <= 0 {
			want = 0
		}
		if got := kernel.ReluBits(math.Float32bits(v)); got != math.Float32bits(want) {
			t.Fatalf("ReluBits(%#08x) = %#08x, want %#08x", math.Float32bits(v), got, math.Float32bits(want))
		}
	}
}
