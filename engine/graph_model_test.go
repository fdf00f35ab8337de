//go:build !denseonly

package engine

import (
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/testbundle"
)

// graphModels loads internal/testbundle's Graph model: networks that are graphs with every layer of format 2
// (residual adds, a concat, a per-channel mul, grouped, depthwise and dilated convolutions, every activation,
// global pooling, batch normalisation, a dropout no weighted layer takes).
func graphModels(t testing.TB) (*VAE, *BNN) {
	t.Helper()
	b, err := testbundle.Graph(11)
	if err != nil {
		t.Fatal(err)
	}
	v, c, err := Load(b.Description, b.Files)
	if err != nil {
		t.Fatal(err)
	}
	return v, c
}

// ringImage is a soft ring on an image of shape s, a little brighter channel by channel.
func ringImage(s Shape) []float32 {
	x := make([]float32, s.Size())
	for ch := 0; ch < s.C; ch++ {
		for y := 0; y < s.H; y++ {
			for xx := 0; xx < s.W; xx++ {
				r := math.Hypot(float64(y)-float64(s.H-1)/2, float64(xx)-float64(s.W-1)/2) / float64(s.H) * 4
				x[(ch*s.H+y)*s.W+xx] = float32(math.Exp(-(r-1)*(r-1)*3) * (0.6 + 0.2*float64(ch)))
			}
		}
	}
	return x
}

// graphObjective is the objective of the graph model around a ring, n points scattered around its code.
func graphObjective(t testing.TB, n int, w LossWeights) *Objective {
	t.Helper()
	v, b := graphModels(t)
	return scatteredObjectiveWith(t, v, b, ringImage(b.Input), n, w, 0.7)
}

// goldenGraphObjective is the SHA-256 of the bits of the graph model's objective (graphObjective(t, 9), cost,
// p̄, uncertainties, distances, images and ∂L/∂z), first computed natively: the same bits natively with every
// kernel, compaction on or off, and in WebAssembly with both kernels.
const goldenGraphObjective = "f2f33668085334aac1103d7ebbe7bd4108195c48a27cb48278f24b0bdcfea0f2"

// TestGraphModelGolden: see goldenGraphObjective.
func TestGraphModelGolden(t *testing.T) {
	for _, compact := range []bool{true, false} {
		withCompaction(compact, func() {
			if got := objectiveHash(graphObjective(t, 9, LossWeights{Total: 1, LambdaX: 0.03, LambdaY: 0.1})); got != goldenGraphObjective {
				t.Errorf("compaction %v: the graph model's objective hashes to %s, want %s (kernel %s, SIMD %v)", compact, got, goldenGraphObjective, kernel.Native, kernel.SIMD)
			}
		})
	}
}

// TestGraphModelPointsIndependent: each point of a batch gets the bits it gets alone or in another batch (a
// worker's share of the restarts), through every graph layer, an MC-dropout mask on activations included.
func TestGraphModelPointsIndependent(t *testing.T) {
	w := LossWeights{Total: 1, LambdaX: 0.03}
	all := graphObjective(t, 6, w)
	all.Forward()
	all.Backward()
	lat := all.Z.Cols
	for _, i := range []int{0, 4} {
		one := graphObjective(t, 1, w)
		copy(one.Z.Data, all.Z.Data[i*lat:(i+1)*lat])
		one.Forward()
		one.Backward()
		if one.Cost.Data[0] != all.Cost.Data[i] {
			t.Errorf("point %d: cost %v alone, %v in the batch", i, one.Cost.Data[0], all.Cost.Data[i])
		}
		for d := 0; d < lat; d++ {
			if one.Z.Grad[d] != all.Z.Grad[i*lat+d] {
				t.Errorf("point %d: ∂L/∂z[%d] %v alone, %v in the batch", i, d, one.Z.Grad[d], all.Z.Grad[i*lat+d])
				break
			}
		}
	}
	// A shrunk batch keeps the first points' bits.
	all.Graph.SetBatch(3)
	before := append([]float32(nil), all.Cost.Data[:3]...)
	all.Forward()
	all.Backward()
	for i := range 3 {
		if all.Cost.Data[i] != before[i] {
			t.Errorf("point %d: cost %v in a batch of 3, %v in a batch of 6", i, all.Cost.Data[i], before[i])
		}
	}
}

// TestGraphModelGradient: ∂L/∂z of the whole objective through every graph layer against central finite
// differences of the cost along random directions (float32: the difference quotient's rounding is ~1e-4).
func TestGraphModelGradient(t *testing.T) {
	for _, w := range []LossWeights{{Total: 1}, {Total: 0.5, Aleatoric: 0.3, Epistemic: 0.2, LambdaX: 0.05, LambdaY: 0.5}} {
		o := graphObjective(t, 4, w)
		lat := o.Z.Cols
		o.Forward()
		o.Backward()
		grad := append([]float32(nil), o.Z.Grad[:4*lat]...)
		z := append([]float32(nil), o.Z.Data[:4*lat]...)
		r := rng.New(3)
		const eps = 5e-4
		for trial := range 3 {
			dir := make([]float32, len(z))
			for i := range dir {
				dir[i] = float32(r.Norm())
			}
			cost := func(sign float64) []float64 {
				for i := range z {
					o.Z.Data[i] = float32(float64(z[i]) + sign*eps*float64(dir[i]))
				}
				o.Forward()
				c := make([]float64, 4)
				for i := range c {
					c[i] = float64(o.Cost.Data[i])
				}
				return c
			}
			plus, minus := cost(1), cost(-1)
			for i := range 4 {
				fd := (plus[i] - minus[i]) / (2 * eps)
				var an float64
				for d := 0; d < lat; d++ {
					an += float64(grad[i*lat+d]) * float64(dir[i*lat+d])
				}
				if math.Abs(fd-an) > 2e-3+2e-2*math.Abs(an) {
					t.Errorf("weights %+v, direction %d, point %d: ∂L/∂z·v %.5f, finite differences %.5f", w, trial, i, an, fd)
				}
			}
		}
	}
}

// TestGraphModelZeroAllocations: a step of the graph model allocates nothing, at full and at a shrunk batch.
func TestGraphModelZeroAllocations(t *testing.T) {
	o := graphObjective(t, 8, LossWeights{Total: 1, LambdaX: 0.03})
	step := func() {
		o.Forward()
		o.Backward()
	}
	step()
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per step, want 0", a)
	}
	o.Graph.SetBatch(3)
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per step with a shrunk batch, want 0", a)
	}
}
