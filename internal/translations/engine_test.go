//go:build !js

package translations

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

func filesOf(b *testbundle.Bundle) []*weights.File {
	var out []*weights.File
	for _, f := range b.Files {
		out = append(out, f)
	}
	return out
}

// TestEngineLearnerAgreesWithGomlx: a translation learned with the engine's gradients follows the same path as
// the gomlx learner's (the loss before every step and the t it ends at), on the grey convolutional test bundle
// (MC dropout, a transposed convolution, Bernoulli) and the colour ensemble.
func TestEngineLearnerAgreesWithGomlx(t *testing.T) {
	for _, build := range []func(uint64) (*testbundle.Bundle, error){testbundle.Grey, testbundle.Colour} {
		b, err := build(3)
		if err != nil {
			t.Fatal(err)
		}
		vae, bnn, err := engine.Load(b.Description, b.Files)
		if err != nil {
			t.Fatal(err)
		}
		p, err := training.FileTensors(filesOf(b)...)
		if err != nil {
			t.Fatal(err)
		}
		const n = 5
		r := rand.New(rand.NewPCG(1, 2))
		size := vae.Image.Size()
		x := make([]float32, n*size)
		for i := range x {
			x[i] = r.Float32()
		}
		z := vae.Encode(x)
		cfg := training.TranslationConfig{LR: 0.05, Steps: 25, LambdaX: 0.03}
		to := 1
		tg, lg, err := training.TrainDescribedTranslation(training.Backend(), b.Description, p, z, x, n, to, cfg)
		if err != nil {
			t.Fatal(err)
		}
		te, le, err := LearnOnEngine(vae, bnn, z, x, n, to, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(le) != len(lg) {
			t.Fatalf("%s: %d losses, gomlx %d", b.Description.Name, len(le), len(lg))
		}
		for s := range le {
			if d := math.Abs(le[s] - lg[s]); d > 1e-4*math.Max(1, math.Abs(lg[s])) {
				t.Errorf("%s: loss before step %d is %.6f, gomlx's %.6f", b.Description.Name, s, le[s], lg[s])
			}
		}
		var norm float64
		for j := range te {
			norm = math.Max(norm, math.Abs(float64(tg[j])))
			if d := math.Abs(float64(te[j] - tg[j])); d > 1e-3 {
				t.Errorf("%s: t[%d] = %.5f, gomlx's %.5f", b.Description.Name, j, te[j], tg[j])
			}
		}
		if norm < 0.05 {
			t.Errorf("%s: the translation hardly moved (max |t_j| %.3g): the test shows nothing", b.Description.Name, norm)
		}
		t.Logf("%s: loss %.4f → %.4f (gomlx %.4f → %.4f)", b.Description.Name, le[0], le[len(le)-1], lg[0], lg[len(lg)-1])
	}
}
