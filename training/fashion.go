package training

import (
	"fmt"
	"github.com/deltaclue/deltaclue/internal/fashion"
	"github.com/deltaclue/deltaclue/weights"
)

// The Fashion-MNIST models' architecture (docs/models.md says why): a small convolutional MC-dropout classifier
// and a convolutional VAE, each sized for a search that runs 100 points × 100 steps in a browser.
//
// The classifier downsamples with strided 3×3 convolutions (no pooling: the engine's max-pool is its slowest
// layer, and a stride learns its own downsampling) to 64×7×7, then one hidden dense layer of 128 units and
// dropout before the last layer alone: the engine folds a dropout mask into the layer after it, which then runs
// once per posterior sample, so dropout after the convolutions would run the 3136→128 layer 20 times per
// point; before the 128→10 layer, the 20 samples cost 20 small products.
//
// The VAE mirrors DCGAN's shape: 4×4 stride-2 convolutions to 64×7×7 and a dense layer to a 16-dimensional
// latent mean (and log-variance, for the ELBO), and a decoder from a dense layer to 32×7×7 through two 4×4
// stride-2 transposed convolutions (to 16×14×14, then 1×28×28) to Bernoulli logits, as the digits' VAE gives.

// FashionName is the Fashion models' name in links and on the command line.
const FashionName = "fashion"

// FashionLatent is the VAE's latent size, the digits'.
const FashionLatent = 16

func conv(name string, out, k, stride, pad int) weights.Layer {
	return weights.Layer{Op: weights.OpConv, Out: out, Kernel: [2]int{k, k}, Stride: [2]int{stride, stride},
		Padding: [2]int{pad, pad}, Weights: name + "/weights", Bias: name + "/biases"}
}

func convT(name string, out, k, stride, pad int) weights.Layer {
	l := conv(name, out, k, stride, pad)
	l.Op = weights.OpConvTranspose
	return l
}

func denseLayer(name string, out int) weights.Layer {
	return weights.Layer{Op: weights.OpDense, Out: out, Weights: name + "/weights", Bias: name + "/biases"}
}

func opLayer(op string) weights.Layer { return weights.Layer{Op: op} }

// FashionDescription is the Fashion models' description with the classifier's dropout rate.
func FashionDescription(rate float64) *weights.Description {
	relu := opLayer(weights.OpReLU)
	encoderTrunk := []weights.Layer{conv("encoder/0", 32, 4, 2, 1), relu, conv("encoder/1", 64, 4, 2, 1), relu,
		opLayer(weights.OpFlatten)}
	return &weights.Description{
		Format: 1, Name: FashionName, Title: "Clothes and shoes (Fashion-MNIST)",
		Input: weights.Input{Height: 28, Width: 28, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk, Noun: "garment",
			Framing: weights.FrameFill, PickFirst: true},
		Classes: append([]string(nil), fashion.Classes...),
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyMCDropout, Samples: 20, MaskSeed: 7,
			Networks: []weights.Network{{File: weights.BundleBNN, Layers: []weights.Layer{
				conv("bnn/0", 32, 3, 2, 1), relu, conv("bnn/1", 64, 3, 2, 1), relu, opLayer(weights.OpFlatten),
				denseLayer("bnn/2", 128), relu, {Op: weights.OpDropout, Rate: rate}, denseLayer("bnn/3", 10),
			}}}},
		VAE: weights.VAE{Latent: FashionLatent, Likelihood: weights.LikelihoodBernoulli,
			Encoder: weights.Network{File: weights.BundleVAE, Layers: append(append([]weights.Layer(nil), encoderTrunk...),
				denseLayer("encoder_mean/0", FashionLatent))},
			LogVariance: &weights.Network{File: weights.BundleVAE, Layers: append(append([]weights.Layer(nil), encoderTrunk...),
				denseLayer("encoder_logvar/0", FashionLatent))},
			Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
				denseLayer("decoder/0", 32*7*7), relu, {Op: weights.OpReshape, Shape: []int{32, 7, 7}},
				convT("decoder/1", 16, 4, 2, 1), relu, convT("decoder/2", 1, 4, 2, 1),
			}},
		},
	}
}

// DefaultFashionClassifier is how the Fashion classifier is trained: Adam, batches of 128, early stopping on
// the validation NLL, images mirrored half the time, two candidate dropout rates.
var DefaultFashionClassifier = ClassifierConfig{
	Loop:     Loop{Seed: 32, Batch: 128, LR: 1e-3, MaxEpochs: 40, Patience: 4, Augment: Augment{FlipProb: 0.5}},
	Dropouts: []float64{0.5},
}

// DefaultFashionVAE is how the Fashion VAE is trained: at most 14 epochs (an epoch takes 2–4 minutes on 2 cores in
// gomlx's pure-Go backend), at twice the classifier's step size.
var DefaultFashionVAE = Loop{Seed: 31, Batch: 128, LR: 2e-3, MaxEpochs: 14, Patience: 3, Augment: Augment{FlipProb: 0.5}}

// DropoutRate is the rate of the first dropout layer of d's classifier (0 without one).
func DropoutRate(d *weights.Description) float64 {
	for _, l := range d.Classifier.Networks[0].Layers {
		if l.Op == weights.OpDropout {
			return l.Rate
		}
	}
	return 0
}

// ConvVAE is the convolutional VAE `deltaclue import` trains for a classifier that comes without one, for
// inputs of shape in (sides divisible by 4): Fashion's design at any size and channels, encoder conv 4×4/2 → 32
// → 64, a dense latent mean and log-variance head on the same trunk; decoder dense to 32 × (H/4) × (W/4),
// transposed conv → 16 → the input's channels, Bernoulli.
func ConvVAE(in weights.Shape, latent int) (weights.VAE, error) {
	if in.Flat || in.H%4 != 0 || in.W%4 != 0 || in.H < 4 || in.W < 4 {
		return weights.VAE{}, fmt.Errorf("the VAE trained for you halves the image twice, so its sides must be multiples of 4, not %d×%d: train your own and export it (-encoder, -decoder)", in.W, in.H)
	}
	relu := opLayer(weights.OpReLU)
	trunk := []weights.Layer{conv("encoder/0", 32, 4, 2, 1), relu, conv("encoder/1", 64, 4, 2, 1), relu, opLayer(weights.OpFlatten)}
	return weights.VAE{Latent: latent, Likelihood: weights.LikelihoodBernoulli,
		Encoder:     weights.Network{File: weights.BundleVAE, Layers: append(append([]weights.Layer(nil), trunk...), denseLayer("encoder_mean/0", latent))},
		LogVariance: &weights.Network{File: weights.BundleVAE, Layers: append(append([]weights.Layer(nil), trunk...), denseLayer("encoder_logvar/0", latent))},
		Decoder: weights.Network{File: weights.BundleVAE, Layers: []weights.Layer{
			denseLayer("decoder/0", 32*in.H/4*in.W/4), relu, {Op: weights.OpReshape, Shape: []int{32, in.H / 4, in.W / 4}},
			convT("decoder/1", 16, 4, 2, 1), relu, convT("decoder/2", in.C, 4, 2, 1),
		}},
	}, nil
}
