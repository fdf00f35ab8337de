//go:build !js

package translations

import (
	"fmt"
	"math"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/training"
)

// LearnOnEngine learns a group's translation t towards label b as training.TrainDescribedTranslation does (the
// same loss, the mean over the members of H_total − log p̄_b + λx·‖μθ(z_i + t) − x_i‖₁, and the same full-batch
// Adam from t = 0: gomlx's defaults, β = 0.9, 0.999, ε = 1e-7), with the engine's gradients instead of gomlx's
// graphs: on a convolutional model the engine takes a fraction of the time. z are the n members' codes, x their
// inputs. It returns t and the loss before each step and after the last (Steps + 1 values).
func LearnOnEngine(vae *engine.VAE, bnn *engine.BNN, z, x []float32, n, b int, c training.TranslationConfig) ([]float32, []float64, error) {
	latent, size := vae.Latent, vae.Image.Size()
	switch {
	case n <= 0 || len(z) != n*latent || len(x) != n*size:
		return nil, nil, fmt.Errorf("translation: %d members need %d code values and %d input values, got %d and %d", n, n*latent, n*size, len(z), len(x))
	case b < 0 || b >= bnn.Classes:
		return nil, nil, fmt.Errorf("translation: no label %d (the classifier has %d)", b, bnn.Classes)
	case c.Steps < 0 || !(c.LR > 0) || !(c.LambdaX >= 0):
		return nil, nil, fmt.Errorf("translation: bad configuration %+v", c)
	}
	g := engine.NewGraph(n)
	zt := g.Input(latent, true)
	_, image := vae.Decode(g, zt)
	onehot := make([]float32, bnn.Classes)
	onehot[b] = 1
	pred := bnn.Predict(g, image, onehot) // its CrossEnt is −log p̄_b
	dist := g.L1Rows(image, x)
	cost := g.Sum(engine.Term{Coef: 1, X: pred.Total}, engine.Term{Coef: 1, X: pred.CrossEnt}, engine.Term{Coef: float32(c.LambdaX), X: dist})
	if err := g.SetBatch(n); err != nil {
		return nil, nil, err
	}
	t := make([]float32, latent)
	m1, m2 := make([]float64, latent), make([]float64, latent)
	const beta1, beta2, eps = 0.9, 0.999, 1e-7
	evaluate := func(grad bool) (float64, []float64) {
		for i := 0; i < n; i++ {
			row := zt.Row(i)
			for j := range row {
				row[j] = z[i*latent+j] + t[j]
			}
		}
		g.Forward()
		var loss float64
		for i := 0; i < n; i++ {
			loss += float64(cost.Data[i])
		}
		if !grad {
			return loss / float64(n), nil
		}
		g.Backward(cost, nil)
		gt := make([]float64, latent)
		for i := 0; i < n; i++ {
			for j, v := range zt.Grad[i*latent : (i+1)*latent] {
				gt[j] += float64(v)
			}
		}
		for j := range gt {
			gt[j] /= float64(n)
		}
		return loss / float64(n), gt
	}
	losses := make([]float64, 0, c.Steps+1)
	for s := 1; s <= c.Steps; s++ {
		loss, gt := evaluate(true)
		losses = append(losses, loss)
		d1, d2 := 1/(1-math.Pow(beta1, float64(s))), 1/(1-math.Pow(beta2, float64(s)))
		for j, gj := range gt {
			m1[j] = beta1*m1[j] + (1-beta1)*gj
			m2[j] = beta2*m2[j] + (1-beta2)*gj*gj
			t[j] -= float32(c.LR * m1[j] * d1 / (math.Sqrt(m2[j]*d2) + eps))
		}
	}
	loss, _ := evaluate(false)
	return t, append(losses, loss), nil
}
