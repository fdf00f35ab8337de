package training

import (
	"fmt"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// VAEConfig configures the VAE: an MLP encoder Layers → (μ, log σ²) of dimension Latent, a decoder mirroring
// it, a Bernoulli likelihood on the pixel intensities and a standard normal prior.
type VAEConfig struct {
	Loop
	Layers []int `json:"layers"` // encoder widths, input first: [784, 512, 256]
	Latent int   `json:"latent"`
}

// DefaultVAE is the shipped VAE's configuration.
var DefaultVAE = VAEConfig{
	Loop:   Loop{Seed: 1, Batch: 128, LR: 1e-3, MaxEpochs: 300, Patience: 20, Augment: DefaultAugment},
	Layers: []int{mnist.Pixels, 512, 256}, Latent: 16,
}

// Architecture returns the weights-file architecture of the configured VAE.
func (c VAEConfig) Architecture() weights.Architecture {
	dec := []int{c.Latent}
	for i := len(c.Layers) - 1; i >= 0; i-- {
		dec = append(dec, c.Layers[i])
	}
	return weights.Architecture{Layers: c.Layers, Latent: c.Latent, Decoder: dec, Activation: "relu",
		Output: "sigmoid", Likelihood: "bernoulli"}
}

func (c VAEConfig) layers() []layer {
	a := c.Architecture()
	last := c.Layers[len(c.Layers)-1]
	ls := stackLayers(weights.StackEncoder, c.Layers)
	ls = append(ls, layer{weights.StackEncoderMean, 0, last, c.Latent}, layer{weights.StackEncoderLogVar, 0, last, c.Latent})
	return append(ls, stackLayers(weights.StackDecoder, a.Decoder)...)
}

// negELBOGraph returns −ELBO per image [N] for images x and reparameterisation noise eps [N, latent].
func negELBOGraph(p Params, a weights.Architecture, x, eps *Node) *Node {
	mean, logVar := EncoderGraph(p, a, x)
	z := Add(mean, Mul(Exp(MulScalar(logVar, 0.5)), eps))
	logits := DecoderLogitsGraph(p, a, z)
	recon := ReduceSum(Sub(Softplus(logits), Mul(x, logits)), -1) // Bernoulli NLL with logits
	kl := MulScalar(ReduceSum(Sub(Sub(OnePlus(logVar), Square(mean)), Exp(logVar)), -1), -0.5)
	return Add(recon, kl)
}

// noise returns a [n, latent] tensor of standard normal draws from r.
func noise(r *rng.Rand, n, latent int) *tensors.Tensor {
	e := make([]float32, n*latent)
	for i := range e {
		e[i] = float32(r.Norm())
	}
	return tensors.FromFlatDataAndDimensions(e, n, latent)
}

// TrainVAE trains the VAE on train with early stopping on the validation ELBO and returns the best epoch's
// weights as named tensors, with the training history.
func TrainVAE(backend compute.Backend, c VAEConfig, train, val *mnist.Set) ([]weights.Named, map[string]any) {
	a := c.Architecture()
	layers := c.layers()
	store := newStore(layers, rng.Derive(c.Seed, 0))
	p := StoreParams(store)
	step := adamStep(backend, store, c.LR, func(scope *model.Scope, in []*Node) *Node {
		return ReduceAllMean(negELBOGraph(p, a, in[0], in[1]))
	})
	eval := model.MustNewExec(backend, store, func(scope *model.Scope, x, eps *Node) *Node {
		return ReduceAllSum(negELBOGraph(p, a, x, eps))
	})
	noiseRand := rng.New(rng.Derive(c.Seed, 2))
	validate := func() (float64, string) {
		r := rng.New(rng.Derive(c.Seed, 3)) // the same noise every epoch, so scores compare
		var total float64
		batchChunks(val.Len(), 500, func(lo, hi int) {
			total += float64(eval.MustCall1(floats(val, lo, hi), noise(r, hi-lo, c.Latent)).Value().(float32))
		})
		elbo := -total / float64(val.Len())
		return -elbo, fmt.Sprintf("validation ELBO %.2f nats/image", elbo)
	}
	best, bestEpoch, history := c.run("vae", func() []weights.Named { return snapshot(store, layers) }, train, func(epoch int, batch []int, images []float32) {
		step.MustCall(tensors.FromFlatDataAndDimensions(images, len(batch), mnist.Pixels), noise(noiseRand, len(batch), c.Latent))
	}, validate)
	return best, map[string]any{"config": c, "best_epoch": bestEpoch, "epochs": len(history)}
}

// VAEQuality holds the VAE's measures on a labelled set.
type VAEQuality struct {
	ELBO float64 `json:"elbo_per_image"` // nats, mean over images of a 10-sample ELBO estimate
	// ReconLabelAgreement is the fraction of digits whose reconstruction decoder(encoder-mean(x)) gets the same
	// BNN label as x.
	ReconLabelAgreement float64 `json:"recon_label_agreement"`
}

// MeasureVAE measures the VAE in file vae against set, with bnn to label images. The ELBO needs the encoder's
// log-variance head: from logVar (the shipped VAE keeps it there, weights.ShippedVAELogVar), or from vae itself
// when logVar is nil (the float32 export of training).
func MeasureVAE(backend compute.Backend, vae, logVar, bnn *weights.File, set *mnist.Set) VAEQuality {
	va, ba := vae.Manifest.Architecture, bnn.Manifest.Architecture
	pv, pb := FileParams(vae, logVar), FileParams(bnn)
	const samples = 10
	elboExec := MustNewExec(backend, func(x, eps *Node) *Node { return ReduceAllSum(negELBOGraph(pv, va, x, eps)) })
	agree := MustNewExec(backend, func(x *Node) *Node {
		recon := Sigmoid(DecoderLogitsGraph(pv, va, EncoderMeanGraph(pv, va, x)))
		same := Equal(ArgMax(BNNPredictiveGraph(pb, ba, x), -1), ArgMax(BNNPredictiveGraph(pb, ba, recon), -1))
		return ReduceAllSum(ConvertDType(same, x.DType()))
	})
	r := rng.New(12345)
	var q VAEQuality
	batchChunks(set.Len(), 500, func(lo, hi int) {
		x := floats(set, lo, hi)
		for range samples {
			q.ELBO -= float64(elboExec.MustExec(x, noise(r, hi-lo, va.Latent))[0].Value().(float32))
		}
		q.ReconLabelAgreement += float64(agree.MustExec(x)[0].Value().(float32))
	})
	q.ELBO /= float64(samples * set.Len())
	q.ReconLabelAgreement /= float64(set.Len())
	return q
}
