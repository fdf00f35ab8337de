package engine

import (
	"fmt"

	"github.com/deltaclue/deltaclue/weights"
)

// VAE is the variational autoencoder on the engine: an encoder network to the latent mean μφ(x), and a decoder
// network whose output is the image's logits (Bernoulli likelihood: the image is their sigmoid, μθ(z)) or the
// image itself (Gaussian mean), as the model's description says (weights.Description, built by Load).
type VAE struct {
	Latent    int
	Image     Shape // the decoded image's shape: the classifier's input
	encoder   *network
	decoder   *network
	bernoulli bool

	encodes, decodes *oneShots // Encode's and DecodeImages's graphs, kept to run again
}

// BNN is the classifier whose uncertainty is explained, on the engine: an MC-dropout network (its K fixed masks
// folded into the weights of the layers after its dropout layers, so that from the first of them on it runs as
// K networks) or a deep ensemble of K networks, predicting the mean of the K softmax outputs.
type BNN struct {
	Classes int // the classes, or a regression's ranges
	// Regression, for a predictor of a number, is how its networks' two outputs are a Gaussian (nil for a
	// classifier); Predict's target is then the one predictive mean y0.
	Regression *RegressionHead
	K          int
	Input      Shape // the image it reads
	nets       []*network
	ensemble   bool

	classifies *oneShots // Classify's graphs, kept to run again
}

// LoadVAE builds the VAE of a weights file made before model descriptions (the digits' MLP VAE, as its manifest
// states it: weights.DescribeFiles).
func LoadVAE(f *weights.File) (*VAE, error) {
	if f.Manifest.Model != "vae" {
		return nil, fmt.Errorf("%s: model %q, want a vae", f.Name, f.Manifest.Model)
	}
	d := weights.DescribeFiles(f, nil)
	files := map[string]*weights.File{d.VAE.Encoder.File: f}
	if err := d.CheckVAE(files); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	return loadVAE(d, files)
}

// LoadBNN builds the BNN of a weights file made before model descriptions (the digits' MC-dropout MLP, as its
// manifest states it), with its fixed MC-dropout masks.
func LoadBNN(f *weights.File) (*BNN, error) {
	if f.Manifest.Model != "bnn" {
		return nil, fmt.Errorf("%s: model %q, want a bnn", f.Name, f.Manifest.Model)
	}
	d := weights.DescribeFiles(nil, f)
	files := map[string]*weights.File{d.Classifier.Networks[0].File: f}
	if err := d.CheckClassifier(files); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	return loadClassifier(d, files)
}

// EncodeMean adds the encoder mean μφ(x) of images x [batch, Image.Size()] to g, giving [batch, Latent].
func (v *VAE) EncodeMean(g *Graph, x *Tensor) *Tensor { return v.encoder.apply(g, x) }

// Decode adds the decoder to g: the logits and the image μθ(z) of latent points z [batch, Latent], each
// [batch, Image.Size()] (a Gaussian decoder's logits are its image).
func (v *VAE) Decode(g *Graph, z *Tensor) (logits, image *Tensor) {
	logits = v.decoder.apply(g, z)
	if !v.bernoulli {
		return logits, logits
	}
	return logits, g.Sigmoid(logits)
}

// Prediction holds the BNN's outputs in a graph.
type Prediction struct {
	// Probs is the posterior predictive p̄ = mean of the K softmax outputs [batch, C]; a regression's, the
	// probabilities of its ranges (regressionOp).
	Probs     *Tensor
	Samples   *Tensor // the K networks' softmax outputs [K·batch, C]
	Total     *Tensor // H(p̄), nats [batch, 1]
	Aleatoric *Tensor // mean over k of H(p_k) [batch, 1]
	Epistemic *Tensor // Total − Aleatoric, the mutual information [batch, 1]
	CrossEnt  *Tensor // −Σ_j y0_j log p̄_j against Predict's target [batch, 1]; nil without a target
	// Mean is a regression's predictive mean [batch, 1] (nil for a classifier), whose standard deviations (in the
	// target's unit) Total, Aleatoric and Epistemic are, and CrossEnt the standardised squared distance to the
	// target's; Samples is nil.
	Mean *Tensor
	// fillProbs, for a regression, writes row r of Probs from the last forward pass: its ranges' probabilities
	// cost more than the rest of the op and only readouts need them, never a step (ProbsRow).
	fillProbs func(r int)
}

// ProbsRow is row r of Probs after the last forward pass: read it through here, not through Probs.Row, where
// the op writes it only when asked (a regression's ranges).
func (p Prediction) ProbsRow(r int) []float32 {
	if p.fillProbs != nil {
		p.fillProbs(r)
	}
	return p.Probs.Row(r)
}

// Predict adds the classifier's posterior predictive and its uncertainties for images x [batch, Input.Size()]
// to g, and the cross-entropy against target when it is non-nil. Layers before the first dropout run once per
// point; the layers after it once per point and MC sample (an ensemble's members each once per point).
func (b *BNN) Predict(g *Graph, x *Tensor, target []float32) Prediction {
	var out *Tensor
	if !b.ensemble {
		out = b.nets[0].apply(g, x)
	} else {
		members := make([]*Tensor, len(b.nets))
		for k, n := range b.nets {
			members[k] = n.apply(g, x)
		}
		out = g.Stack(members...)
	}
	if !weights.RegressionLeftOut && b.Regression != nil { // (left out, the linker drops the regression's code)
		return g.Regressive(out, *b.Regression, target)
	}
	return g.Predictive(out, target)
}

// PointStepMultiplyAdds counts the multiply-adds of one forward and backward pass of the δ-CLUE objective for
// one latent point: the decoder forward and its input gradient, the classifier's layers before its first dropout
// once and those after it once per MC sample (an ensemble's members each once), forward and input gradient.
// (Elementwise work is linear in the widths: under 1 % more.)
func PointStepMultiplyAdds(v *VAE, b *BNN) int {
	n := v.decoder.multiplyAdds()
	for _, net := range b.nets {
		n += net.multiplyAdds()
	}
	return 2 * n
}
