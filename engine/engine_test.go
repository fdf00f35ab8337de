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
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// shippedModels loads the shipped weights files and builds the engine's models from them.
func shippedModels(t testing.TB) (*weights.File, *weights.File, *VAE, *BNN) {
	t.Helper()
	vf, err := weights.ShippedVAE()
	if err != nil {
		t.Fatal(err)
	}
	bf, err := weights.ShippedBNN()
	if err != nil {
		t.Fatal(err)
	}
	v, err := LoadVAE(vf)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadBNN(bf)
	if err != nil {
		t.Fatal(err)
	}
	return vf, bf, v, b
}

func loadShipped(t testing.TB) (*VAE, *BNN) {
	_, _, v, b := shippedModels(t)
	return v, b
}

// benchObjective builds the distance loss around test digit 0 with n points scattered within radius 2.
func benchObjective(t testing.TB, n int) *Objective {
	v, b := loadShipped(t)
	s, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	return scatteredObjective(t, v, b, s.Float(0, nil), n)
}

// scatteredObjective builds the objective around the image x0 (λx = 0.03, λy = 0.1) with n points scattered
// around its code (0.5 a dimension, seed 9).
func scatteredObjective(t testing.TB, v *VAE, b *BNN, x0 []float32, n int) *Objective {
	return scatteredObjectiveWith(t, v, b, x0, n, LossWeights{Total: 1, LambdaX: 0.03, LambdaY: 0.1}, 0.5)
}

// scatteredObjectiveWith is scatteredObjective with the loss's weights w and the points' spread a dimension.
func scatteredObjectiveWith(t testing.TB, v *VAE, b *BNN, x0 []float32, n int, w LossWeights, spread float64) *Objective {
	t.Helper()
	z0 := v.Encode(x0)
	o, err := NewObjective(v, b, n, w, x0, b.Classify(x0)[0].Probs)
	if err != nil {
		t.Fatal(err)
	}
	r := rng.New(9)
	for i := 0; i < n; i++ {
		for d := 0; d < v.Latent; d++ {
			o.Z.Data[i*v.Latent+d] = z0[d] + float32(r.Norm()*spread)
		}
	}
	return o
}

// goldenObjective is the SHA-256 of the bits of the cost, p̄, uncertainties and ∂L/∂z of benchObjective(t, 13)
// natively. The same test runs under GOOS=js GOARCH=wasm (Node), with the pure-Go and with the SIMD kernel: the
// engine gives the same bits everywhere. (Regenerate it only when the models or the engine's arithmetic change
// on purpose.)
const goldenObjective = "dc0503891019b94bbc0d1d6d43f035277569bd6741894b27d6f9142c90d5cf9e"

// objectiveHash runs the objective forward and backward and hashes the bits of its cost, p̄, uncertainties,
// distances, decoded images and ∂L/∂z.
func objectiveHash(o *Objective) string {
	o.Forward()
	o.Backward()
	h := sha256.New()
	for _, s := range [][]float32{o.Cost.Live(), o.Pred.Probs.Live(), o.Pred.Total.Live(), o.Pred.Aleatoric.Live(),
		o.Pred.Epistemic.Live(), o.Distance.Live(), o.Image.Live(), o.Z.Grad[:o.Z.Rows()*o.Z.Cols]} {
		binary.Write(h, binary.LittleEndian, s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestGoldenBitsEverywhere(t *testing.T) {
	if got := objectiveHash(benchObjective(t, 13)); got != goldenObjective {
		t.Fatalf("objective bits hash %s, want %s (kernel SIMD=%v)", got, goldenObjective, kernel.SIMD)
	}
}

func TestZeroAllocationsPerStep(t *testing.T) {
	o := benchObjective(t, 20)
	step := func() {
		o.Forward()
		o.Backward()
	}
	step()
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per forward+backward, want 0", a)
	}
	o.Graph.SetBatch(7)
	if a := testing.AllocsPerRun(5, step); a != 0 {
		t.Fatalf("%v allocations per step with a shrunk batch, want 0", a)
	}
}

func TestLoadRejectsWrongArchitecture(t *testing.T) {
	vf, _ := weights.ShippedVAE()
	bf, _ := weights.ShippedBNN()
	if _, err := LoadVAE(bf); err == nil {
		t.Error("LoadVAE accepted the BNN")
	}
	if _, err := LoadBNN(vf); err == nil {
		t.Error("LoadBNN accepted the VAE")
	}
	bad := *bf
	bad.Manifest.Architecture.Dropout = 1
	if _, err := LoadBNN(&bad); err == nil {
		t.Error("LoadBNN accepted dropout 1")
	}
	bad = *bf
	bad.Manifest.Architecture.Layers = []int{784, 300, 128, 10}
	if _, err := LoadBNN(&bad); err == nil {
		t.Error("LoadBNN accepted widths that do not match the tensors")
	}
}

func TestObjectiveRejectsBadInput(t *testing.T) {
	v, b := loadShipped(t)
	x0 := make([]float32, b.Input.Size())
	if _, err := NewObjective(v, b, 4, LossWeights{Total: 1}, x0[:10], nil); err == nil {
		t.Error("a short x0 was accepted")
	}
	if _, err := NewObjective(v, b, 4, LossWeights{}, x0, nil); err == nil {
		t.Error("an all-zero loss was accepted")
	}
	if _, err := NewObjective(v, b, 4, LossWeights{Total: 1, LambdaY: 1}, x0, nil); err == nil {
		t.Error("λy without y0 was accepted")
	}
}

func TestNaNPropagates(t *testing.T) {
	// The engine's NaN policy: a NaN latent point gives a NaN cost and NaN gradient for that point only,
	// never a panic and never a finite-looking number; the search (engine/clue) drops such points.
	o := benchObjective(t, 3)
	o.Z.Data[o.Z.Cols] = float32(math.NaN())
	o.Forward()
	o.Backward()
	if !math.IsNaN(float64(o.Cost.Data[1])) {
		t.Fatalf("cost of a NaN point is %v", o.Cost.Data[1])
	}
	for _, i := range []int{0, 2} {
		if c := o.Cost.Data[i]; math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			t.Fatalf("point %d caught the NaN: cost %v", i, c)
		}
		for _, g := range o.Z.Grad[i*o.Z.Cols : (i+1)*o.Z.Cols] {
			if math.IsNaN(float64(g)) {
				t.Fatalf("point %d's gradient caught the NaN", i)
			}
		}
	}
}

// PointStepMultiplyAdds is the count of multiply-adds in one forward and backward pass of the objective for
// one latent point (matrix products only; everything else is linear in the widths and far smaller).
func TestPointStepCount(t *testing.T) {
	v, b := loadShipped(t)
	got := PointStepMultiplyAdds(v, b)
	if got != 2836480 {
		t.Fatalf("point-step multiply-adds %d, want 2,836,480 (decoder 16-256-512-784, BNN 784-256-128-10, K=20)", got)
	}
}

// stepAll runs the objective's forward and backward pass once, then b.N times on the clock.
func stepAll(b *testing.B, o *Objective) {
	o.Forward()
	o.Backward()
	b.ResetTimer()
	for range b.N {
		o.Forward()
		o.Backward()
	}
}

// BenchmarkPointStep times one forward and backward pass of the objective at batches of 100, 50, 10 and 1
// points, with compaction off and on side by side (so that with -count they alternate). GFLOP/s counts the
// dense multiply-adds (PointStepMultiplyAdds) whether or not compaction skips some.
func BenchmarkPointStep(b *testing.B) {
	for _, n := range []int{100, 50, 10, 1} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("batch%d/compact=%v", n, map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
				withCompaction(on, func() {
					v, bnn := loadShipped(b)
					stepAll(b, benchObjective(b, n))
					flops := 2 * float64(PointStepMultiplyAdds(v, bnn)) * float64(n) * float64(b.N)
					b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
					b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/step")
				})
			})
		}
	}
}
