//go:build !js

package engine

import (
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/training"
)

func heldOutImage(t testing.TB, i int) []float32 {
	t.Helper()
	s, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	return s.Float(i, nil)
}

// nearKink moves z along the first decoder layer's weight column of unit j so that unit's pre-activation
// becomes exactly target (computed in float64): a point where a ReLU sits next to its kink.
func nearKink(v *VAE, z []float32, j int, target float64) []float32 {
	l := v.decoder.steps[0].dense
	pre := float64(l.B[j])
	var norm2 float64
	for i := 0; i < l.In; i++ {
		w := float64(l.W[i*l.Out+j])
		pre += float64(z[i]) * w
		norm2 += w * w
	}
	out := make([]float32, len(z))
	for i := range z {
		out[i] = float32(float64(z[i]) - (pre-target)/norm2*float64(l.W[i*l.Out+j]))
	}
	return out
}

// TestObjectiveAgreesWithGomlx checks the engine's forward values and ∂L/∂z against gomlx's float64
// graph.Gradient of the same loss on the shipped weights, for several loss weights and batch sizes, and at
// points where a decoder ReLU sits 1e-4 from its kink. Tolerance: relative error ≤ 1e-4 per point (vector
// norm for images, probabilities and gradients; |a−b| ≤ 1e-4·max(|b|, 1e-2) for scalars).
func TestObjectiveAgreesWithGomlx(t *testing.T) {
	vf, bf, v, b := shippedModels(t)
	x0 := heldOutImage(t, 0)
	z0 := v.Encode(x0)
	y0 := b.Classify(x0)[0].Probs
	r := rng.New(5)
	settings := []struct {
		name string
		w    LossWeights
	}{
		{"uncertainty", LossWeights{Total: 1}},
		{"distance", LossWeights{Total: 1, LambdaX: 0.03}},
		{"everything", LossWeights{Total: 0.5, Aleatoric: 0.3, Epistemic: 0.2, LambdaX: 2, DistanceMean: true, LambdaY: 0.5}},
		{"epistemic only", LossWeights{Epistemic: 1}},
	}
	for _, s := range settings {
		for _, n := range []int{1, 7, 100} {
			z := make([]float32, n*v.Latent)
			for i := 0; i < n; i++ {
				radius := 3 * r.Float64()
				for d := 0; d < v.Latent; d++ {
					z[i*v.Latent+d] = z0[d] + float32(r.Norm()*radius/4)
				}
			}
			if n == 7 { // three points next to a ReLU kink of the first decoder layer
				for i, tgt := range []float64{1e-4, -1e-4, 1e-4} {
					copy(z[i*v.Latent:(i+1)*v.Latent], nearKink(v, z[i*v.Latent:(i+1)*v.Latent], 3+40*i, tgt))
				}
			}
			o, err := NewObjective(v, b, n, s.w, x0, y0)
			if err != nil {
				t.Fatal(err)
			}
			copy(o.Z.Data, z)
			o.Forward()
			o.Backward()
			ref := training.Oracle(vf, bf, training.OracleWeights{Total: float64(s.w.Total), Aleatoric: float64(s.w.Aleatoric),
				Epistemic: float64(s.w.Epistemic), LambdaX: float64(s.w.LambdaX), DistanceMean: s.w.DistanceMean,
				LambdaY: float64(s.w.LambdaY)}, f64(z), n, f64(x0), f64(y0))
			worst := 0.0
			for i := 0; i < n; i++ {
				check := func(what string, e float64) {
					worst = math.Max(worst, e)
					if e > 1e-4 {
						t.Errorf("%s, batch %d, point %d: %s relative error %.2e", s.name, n, i, what, e)
					}
				}
				lat, c := v.Latent, b.Classes
				check("image", relErr(o.Image.Row(i), ref.Image[i*v.Image.Size():(i+1)*v.Image.Size()], 1e-6))
				check("p̄", relErr(o.Pred.ProbsRow(i), ref.Probs[i*c:(i+1)*c], 1e-6))
				check("∂L/∂z", relErr(o.Z.Grad[i*lat:(i+1)*lat], ref.Grad[i*lat:(i+1)*lat], 1e-6))
				for _, sc := range []struct {
					what string
					got  float32
					want float64
				}{{"H total", o.Pred.Total.Data[i], ref.Total[i]}, {"H aleatoric", o.Pred.Aleatoric.Data[i], ref.Aleatoric[i]},
					{"H epistemic", o.Pred.Epistemic.Data[i], ref.Epistemic[i]}, {"distance", o.Distance.Data[i], ref.Dist[i]},
					{"cost", o.Cost.Data[i], ref.Cost[i]}} {
					check(sc.what, math.Abs(float64(sc.got)-sc.want)/math.Max(math.Abs(sc.want), 1e-2))
				}
			}
			t.Logf("%-15s batch %3d: worst relative error %.2e", s.name, n, worst)
		}
	}
}

// TestEncoderAgreesWithGomlx checks μφ(x) on a few test digits.
func TestEncoderAgreesWithGomlx(t *testing.T) {
	vf, _, v, _ := shippedModels(t)
	var images []float32
	for i := 0; i < 5; i++ {
		images = append(images, heldOutImage(t, 100*i)...)
	}
	got := v.Encode(images)
	want := training.EncoderMeans(vf, f64(images), 5)
	for i := 0; i < 5; i++ {
		if e := relErr(got[i*v.Latent:(i+1)*v.Latent], want[i*v.Latent:(i+1)*v.Latent], 1e-6); e > 1e-4 {
			t.Errorf("digit %d: encoder mean relative error %.2e", i, e)
		}
	}
}
