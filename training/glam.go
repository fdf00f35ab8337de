package training

import (
	"fmt"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/deltaclue/deltaclue/weights"
)

// TranslationConfig is how a GLAM-CLUE translation is learned (TrainTranslation).
type TranslationConfig struct {
	LR      float64 `json:"learning_rate"` // Adam's step size
	Steps   int     `json:"steps"`         // full-batch Adam steps over the group's members, from t = 0
	LambdaX float64 `json:"lambda_x"`      // weight of the L1 distance of the decoded image to the member (the page's λx)
}

// DefaultTranslation is what `make train` learns the shipped translations with.
var DefaultTranslation = TranslationConfig{LR: 0.05, Steps: 120, LambdaX: 0.03}

// TranslationLoss is the group loss of GLAM-CLUE (Ley, Bhatt & Weller, 2022) towards label b, per member i
// with code z_i and image x_i, at the translated point z_i + t:
//
//	H_total(μθ(z_i + t)) − log p̄_b(μθ(z_i + t)) + λx·‖μθ(z_i + t) − x_i‖₁
//
// with p̄ the BNN's MC-dropout predictive over its fixed masks; the loss is the mean over the members.
func TranslationLoss(vae, bnn weights.Architecture, p Params, t, z, x *Node, b int, lambdaX float64) *Node {
	image := Sigmoid(DecoderLogitsGraph(p, vae, Add(z, t)))
	pbar := BNNPredictiveGraph(p, bnn, image)
	ht := Neg(ReduceSum(Mul(pbar, Log(pbar)), -1))
	classes := bnn.Layers[len(bnn.Layers)-1]
	onehot := make([]float32, classes)
	onehot[b] = 1
	ce := Neg(ReduceSum(Mul(Const(z.Graph(), tensors.FromFlatDataAndDimensions(onehot, 1, classes)), Log(pbar)), -1))
	dist := ReduceSum(Abs(Sub(image, x)), -1)
	return ReduceAllMean(Add(Add(ht, ce), MulScalar(dist, lambdaX)))
}

// TrainTranslation learns the translation t ∈ ℝ^latent that takes a group's members (codes z [n·latent], the
// encoder means of images x [n·784]) towards label b, by full-batch Adam on TranslationLoss from t = 0, and
// returns t and the loss before each step and after the last (Steps + 1 values). The same inputs give the same
// t: no randomness is drawn.
func TrainTranslation(backend compute.Backend, vae, bnn *weights.File, z, x []float32, n, b int, c TranslationConfig) ([]float32, []float64, error) {
	va, ba := vae.Manifest.Architecture, bnn.Manifest.Architecture
	latent, classes := va.Latent, ba.Layers[len(ba.Layers)-1]
	switch {
	case n <= 0 || len(z) != n*latent || len(x) != n*784:
		return nil, nil, fmt.Errorf("translation: %d members need %d code values and %d pixels, got %d and %d", n, n*latent, n*784, len(z), len(x))
	case b < 0 || b >= classes:
		return nil, nil, fmt.Errorf("translation: no label %d (the BNN has %d)", b, classes)
	case c.Steps < 0 || !(c.LR > 0) || !(c.LambdaX >= 0):
		return nil, nil, fmt.Errorf("translation: bad configuration %+v", c)
	}
	store := model.NewStore()
	if _, err := store.Scope("/glam").CreateVariable("t", tensors.FromFlatDataAndDimensions(make([]float32, latent), 1, latent)); err != nil {
		return nil, nil, err
	}
	p := FileParams(vae, bnn)
	loss := func(scope *model.Scope, in []*Node) *Node {
		t := store.GetVariable("/glam/t").NodeValue(in[0].Graph())
		return TranslationLoss(va, ba, p, t, in[0], in[1], b, c.LambdaX)
	}
	step := adamStep(backend, store, c.LR, loss)
	evaluate := model.MustNewExec(backend, store, loss)
	zt, xt := tensors.FromFlatDataAndDimensions(z, n, latent), tensors.FromFlatDataAndDimensions(x, n, 784)
	scalar := func(out *tensors.Tensor) float64 {
		return float64(tensors.MustCopyFlatData[float32](out)[0])
	}
	losses := make([]float64, 0, c.Steps+1)
	for s := 0; s < c.Steps; s++ {
		losses = append(losses, scalar(step.MustCall1(zt, xt)))
	}
	losses = append(losses, scalar(evaluate.MustCall1(zt, xt)))
	t := tensors.MustCopyFlatData[float32](store.GetVariable("/glam/t").MustValue())
	return t, losses, nil
}

// DescribedTranslationLoss is TranslationLoss for the models of any description (tensors from p): the decoder's
// image is the sigmoid of its logits (Bernoulli) or its output (Gaussian).
func DescribedTranslationLoss(d *weights.Description, p Tensors, t, z, x *Node, b int, lambdaX float64) *Node {
	image := NewVAEGraphs(p, d).Logits(Add(z, t))
	if d.VAE.Likelihood == weights.LikelihoodBernoulli {
		image = Sigmoid(image)
	}
	pbar := PredictiveGraph(p, d, image)
	ht := Neg(ReduceSum(Mul(pbar, Log(pbar)), -1))
	classes := len(d.Classes)
	onehot := make([]float32, classes)
	onehot[b] = 1
	ce := Neg(ReduceSum(Mul(Const(z.Graph(), tensors.FromFlatDataAndDimensions(onehot, 1, classes)), Log(pbar)), -1))
	dist := ReduceSum(Abs(Sub(image, x)), -1)
	return ReduceAllMean(Add(Add(ht, ce), MulScalar(dist, lambdaX)))
}

// TrainDescribedTranslation is TrainTranslation for the models of any description, their tensors from p.
func TrainDescribedTranslation(backend compute.Backend, d *weights.Description, p Tensors, z, x []float32, n, b int, c TranslationConfig) ([]float32, []float64, error) {
	latent, classes, size := d.VAE.Latent, len(d.Classes), d.Input.Size()
	switch {
	case n <= 0 || len(z) != n*latent || len(x) != n*size:
		return nil, nil, fmt.Errorf("translation: %d members need %d code values and %d input values, got %d and %d", n, n*latent, n*size, len(z), len(x))
	case b < 0 || b >= classes:
		return nil, nil, fmt.Errorf("translation: no label %d (the classifier has %d)", b, classes)
	case c.Steps < 0 || !(c.LR > 0) || !(c.LambdaX >= 0):
		return nil, nil, fmt.Errorf("translation: bad configuration %+v", c)
	}
	store := model.NewStore()
	if _, err := store.Scope("/glam").CreateVariable("t", tensors.FromFlatDataAndDimensions(make([]float32, latent), 1, latent)); err != nil {
		return nil, nil, err
	}
	loss := func(scope *model.Scope, in []*Node) *Node {
		t := store.GetVariable("/glam/t").NodeValue(in[0].Graph())
		return DescribedTranslationLoss(d, p, t, in[0], in[1], b, c.LambdaX)
	}
	step := adamStep(backend, store, c.LR, loss)
	evaluate := model.MustNewExec(backend, store, loss)
	zt, xt := tensors.FromFlatDataAndDimensions(z, n, latent), tensors.FromFlatDataAndDimensions(x, n, size)
	scalar := func(out *tensors.Tensor) float64 { return float64(tensors.MustCopyFlatData[float32](out)[0]) }
	losses := make([]float64, 0, c.Steps+1)
	for s := 0; s < c.Steps; s++ {
		losses = append(losses, scalar(step.MustCall1(zt, xt)))
	}
	losses = append(losses, scalar(evaluate.MustCall1(zt, xt)))
	return tensors.MustCopyFlatData[float32](store.GetVariable("/glam/t").MustValue()), losses, nil
}
