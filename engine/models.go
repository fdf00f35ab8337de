package engine

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/engine/mcmask"
	"github.com/deltaclue/deltaclue/weights"
)

// Pixels is the number of pixels of an input image (28×28).
const Pixels = 784

// VAE is the variational autoencoder on the engine: an MLP encoder to the latent mean (and log-variance), and
// an MLP decoder whose sigmoid output is the Bernoulli mean image μθ(z).
type VAE struct {
	Latent  int
	encoder []Layer // image → last hidden layer, ReLU after each
	mean    Layer   // last hidden layer → μφ(x)
	decoder []Layer // z → logits, ReLU between layers

	encodes, decodes *oneShots // Encode's and DecodeImages's graphs, kept to run again
}

// BNN is the MC-dropout classifier on the engine: an MLP with ReLU, its hidden activations multiplied by K
// fixed dropout masks, predicting the mean of the K networks' softmax outputs.
type BNN struct {
	Classes int
	K       int
	first   Layer     // the first layer, before any dropout: shared by the K networks
	samples [][]Layer // samples[l][k]: layer l+1 of network k, its input's dropout mask folded into its rows

	classifies *oneShots // Classify's graphs, kept to run again
}

func layersOf(f *weights.File, stack string, widths []int) ([]Layer, error) {
	dense, err := f.MLP(stack, widths)
	if err != nil {
		return nil, err
	}
	out := make([]Layer, len(dense))
	for i, d := range dense {
		out[i] = NewLayer(d.In, d.Out, d.W, d.B)
	}
	return out, nil
}

// LoadVAE builds the VAE of a weights file, checking that its architecture is one the engine runs.
func LoadVAE(f *weights.File) (*VAE, error) {
	a := f.Manifest.Architecture
	switch {
	case f.Manifest.Model != "vae":
		return nil, fmt.Errorf("%s: model %q, want a vae", f.Name, f.Manifest.Model)
	case len(a.Layers) < 2 || a.Layers[0] != Pixels:
		return nil, fmt.Errorf("%s: encoder widths %v must start at %d", f.Name, a.Layers, Pixels)
	case len(a.Decoder) < 2 || a.Decoder[0] != a.Latent || a.Decoder[len(a.Decoder)-1] != Pixels || a.Latent < 1:
		return nil, fmt.Errorf("%s: decoder widths %v must run from the latent size %d to %d", f.Name, a.Decoder, a.Latent, Pixels)
	case a.Activation != "relu" || a.Output != "sigmoid":
		return nil, fmt.Errorf("%s: activation %q and output %q, the engine runs relu and sigmoid", f.Name, a.Activation, a.Output)
	}
	v := &VAE{Latent: a.Latent}
	var err error
	if v.encoder, err = layersOf(f, weights.StackEncoder, a.Layers); err != nil {
		return nil, err
	}
	mean, err := layersOf(f, weights.StackEncoderMean, []int{a.Layers[len(a.Layers)-1], a.Latent})
	if err != nil {
		return nil, err
	}
	v.mean = mean[0]
	if v.decoder, err = layersOf(f, weights.StackDecoder, a.Decoder); err != nil {
		return nil, err
	}
	v.initOneShots()
	return v, nil
}

// LoadBNN builds the BNN of a weights file with its fixed MC-dropout masks, checking its architecture.
func LoadBNN(f *weights.File) (*BNN, error) {
	a := f.Manifest.Architecture
	switch {
	case f.Manifest.Model != "bnn":
		return nil, fmt.Errorf("%s: model %q, want a bnn", f.Name, f.Manifest.Model)
	case len(a.Layers) < 3 || a.Layers[0] != Pixels || a.Layers[len(a.Layers)-1] < 2:
		return nil, fmt.Errorf("%s: widths %v: need %d inputs, a hidden layer and at least 2 classes", f.Name, a.Layers, Pixels)
	case a.Activation != "relu" || a.Output != "softmax":
		return nil, fmt.Errorf("%s: activation %q and output %q, the engine runs relu and softmax", f.Name, a.Activation, a.Output)
	case !(a.Dropout >= 0 && a.Dropout < 1) || a.MCSamples < 1 || a.MCSamples > 1000:
		return nil, fmt.Errorf("%s: dropout %v with %d MC samples: need 0 ≤ dropout < 1 and 1..1000 samples", f.Name, a.Dropout, a.MCSamples)
	}
	dense, err := f.MLP(weights.StackBNN, a.Layers)
	if err != nil {
		return nil, err
	}
	b := &BNN{Classes: a.Layers[len(a.Layers)-1], K: a.MCSamples}
	b.first = NewLayer(dense[0].In, dense[0].Out, dense[0].W, dense[0].B)
	masks := mcmask.Draw(a)
	for l, d := range dense[1:] {
		per := make([]Layer, b.K)
		for k := range per {
			// (h ⊙ m)·W = h·(diag(m)·W): scale row i of W by the mask of input unit i.
			w := make([]float32, len(d.W))
			kernel.ScaleRows(w, d.W, masks[k][l], d.In, d.Out)
			per[k] = NewLayer(d.In, d.Out, w, d.B)
		}
		b.samples = append(b.samples, per)
	}
	b.initOneShots()
	return b, nil
}

// mlp applies layers with ReLU between them (not after the last).
func mlp(g *Graph, x *Tensor, layers []Layer) *Tensor {
	for i := range layers {
		x = g.Dense(x, &layers[i])
		if i < len(layers)-1 {
			x = g.ReLU(x)
		}
	}
	return x
}

// EncodeMean adds the encoder mean μφ(x) of images x [batch, 784] to g, giving [batch, Latent].
func (v *VAE) EncodeMean(g *Graph, x *Tensor) *Tensor {
	return g.Dense(g.ReLU(mlp(g, x, v.encoder)), &v.mean)
}

// Decode adds the decoder to g: the logits and the Bernoulli mean image μθ(z) = sigmoid(logits) of latent
// points z [batch, Latent], each [batch, 784].
func (v *VAE) Decode(g *Graph, z *Tensor) (logits, image *Tensor) {
	logits = mlp(g, z, v.decoder)
	return logits, g.Sigmoid(logits)
}

// Prediction holds the BNN's outputs in a graph.
type Prediction struct {
	Probs     *Tensor // posterior predictive p̄ = mean of the K softmax outputs [batch, C]
	Samples   *Tensor // the K networks' softmax outputs [K·batch, C]
	Total     *Tensor // H(p̄), nats [batch, 1]
	Aleatoric *Tensor // mean over k of H(p_k) [batch, 1]
	Epistemic *Tensor // Total − Aleatoric, the mutual information [batch, 1]
	CrossEnt  *Tensor // −Σ_j y0_j log p̄_j against Predict's target [batch, 1]; nil without a target
}

// Predict adds the BNN's posterior predictive and its uncertainties for images x [batch, 784] to g, and the
// cross-entropy against target when it is non-nil. The first layer runs once per point; the layers after the
// first dropout run once per point and MC sample.
func (b *BNN) Predict(g *Graph, x *Tensor, target []float32) Prediction {
	h := g.ReLU(g.Dense(x, &b.first))
	for l, per := range b.samples {
		// Compaction computes only the units the next layer's mask keeps (the rows of its folded weights that
		// are not all zero): the others are multiplied by exact zeros.
		var keep [][]int32
		if l < len(b.samples)-1 {
			for k := range per {
				keep = append(keep, b.samples[l+1][k].nzRows) // nil: all
			}
		}
		h = g.denseSamples(h, per, keep)
		if l < len(b.samples)-1 {
			h = g.ReLU(h)
		}
	}
	return g.Predictive(h, target)
}

// PointStepMultiplyAdds counts the multiply-adds of one forward and backward pass of the δ-CLUE objective for
// one latent point: the decoder forward and its input gradient, the BNN's first layer once and its later layers
// once per MC sample, forward and input gradient. (Elementwise work is linear in the widths: under 1 % more.)
func PointStepMultiplyAdds(v *VAE, b *BNN) int {
	n := 0
	for _, l := range v.decoder {
		n += l.In * l.Out
	}
	n += b.first.In * b.first.Out
	for _, per := range b.samples {
		n += b.K * per[0].In * per[0].Out
	}
	return 2 * n
}
