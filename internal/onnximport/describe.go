//go:build !js

package onnximport

import (
	"fmt"

	"github.com/deltaclue/deltaclue/weights"
)

// Parts are a bundle's converted networks: the classifier's (one for MC dropout, one per member of a deep
// ensemble), the VAE's encoder (to the latent mean) and its decoder (to the image, or its logits).
type Parts struct {
	Classifier       []*Network
	Encoder, Decoder *Network
	// VAE, with its float32 tensors VAETensors, stands for Encoder and Decoder: a VAE the import trained.
	VAE        *weights.VAE
	VAETensors []weights.Named
}

// Info is what the description needs beside the networks.
type Info struct {
	Name, Title string
	Classes     []string
	Noun        string // what one input is called ("image" when empty)
	// Samples is an MC-dropout classifier's number of fixed masks, drawn from MaskSeed.
	Samples  int
	MaskSeed uint64
	// Columns, when not nil, make the input a table's (issue 41): the networks read the flattened row, one
	// value per number and one per category level, and the VAE's decoder gives each number's standardised mean
	// and each category's logits (weights.LikelihoodMixed).
	Columns weights.Columns
	// Regression, when not nil, makes the classifier a predictor of a number (weights.Regression, format 4):
	// each network ends in its two outputs, the standardised mean and the σ head, and Classes must be the
	// regression's RangeNames.
	Regression *weights.Regression
}

// Describe makes the models' description and their float32 weights files (weights.BundleBNN for the
// classifier, weights.BundleVAE for the VAE), checked as the engine checks a bundle: the networks must chain
// (the encoder from the classifier's input to a latent size the decoder takes, the decoder back to that input,
// the classifier to the classes), and the classifier must end in logits or a softmax over them.
func Describe(p Parts, info Info) (*weights.Description, map[string]*weights.File, error) {
	if len(p.Classifier) == 0 || (p.VAE == nil && (p.Encoder == nil || p.Decoder == nil)) {
		return nil, nil, fmt.Errorf("a bundle needs a classifier, an encoder and a decoder")
	}
	in := p.Classifier[0].In
	table := info.Columns != nil
	if table {
		if err := CheckTableInput(in, info.Columns); err != nil {
			return nil, nil, err
		}
	} else if in.Flat || (in.C != 1 && in.C != 3) {
		return nil, nil, fmt.Errorf("the classifier takes %v; the explainer takes images of 1 (grey) or 3 (RGB) channels (or a table's rows, with a schema)", in)
	}
	d := &weights.Description{Format: weights.DescriptionFormat, Name: info.Name, Title: info.Title, Classes: info.Classes}
	if d.Title == "" {
		d.Title = info.Name
	}
	if table {
		d.Input = weights.Input{Kind: weights.KindTable, Columns: info.Columns, Noun: info.Noun}
		if d.Input.Noun == "" {
			d.Input.Noun = "row"
		}
	} else {
		d.Input = weights.Input{Height: in.H, Width: in.W, Channels: in.C, Range: [2]float64{0, 1}, Drawing: weights.DrawInk, Noun: info.Noun}
		if in.C == 3 {
			d.Input.Drawing = weights.DrawColour
		}
		if d.Input.Noun == "" {
			d.Input.Noun = "image"
		}
	}
	var bnn []weights.Named
	for i, n := range p.Classifier {
		who := "the classifier"
		if len(p.Classifier) > 1 {
			who = fmt.Sprintf("the ensemble's member %d", i+1)
		}
		if n.In != in {
			return nil, nil, fmt.Errorf("%s takes %v, the first member %v", who, n.In, in)
		}
		if info.Regression != nil {
			if err := checkRegressionOutput(who, n, info.Regression); err != nil {
				return nil, nil, err
			}
		} else if !n.Out.Flat || n.Out.Size() != len(info.Classes) {
			return nil, nil, fmt.Errorf("%s gives %v, and the data have %d classes (%v): name its outputs with -classes", who, n.Out, len(info.Classes), info.Classes)
		}
		if n.Final == "Sigmoid" {
			return nil, nil, fmt.Errorf("%s ends in a sigmoid; the explainer reads a classifier's logits or their softmax", who)
		}
		d.Classifier.Networks = append(d.Classifier.Networks, weights.Network{File: weights.BundleBNN, Layers: n.Layers})
		bnn = append(bnn, n.Tensors...)
	}
	if len(p.Classifier) > 1 {
		d.Classifier.Uncertainty, d.Classifier.Samples = weights.UncertaintyEnsemble, len(p.Classifier)
	} else {
		d.Classifier.Uncertainty, d.Classifier.Samples, d.Classifier.MaskSeed = weights.UncertaintyMCDropout, info.Samples, info.MaskSeed
		if !hasDropout(p.Classifier[0].Layers) {
			return nil, nil, fmt.Errorf("the classifier has no dropout, and one deterministic network has no uncertainty to explain: " +
				"say where its dropout acts (-dropout NODE=RATE: eval-mode exports drop it), or give an ensemble's members (-classifier a.onnx,b.onnx,…)")
		}
	}
	vaeTensors := p.VAETensors
	var err error
	if p.VAE != nil {
		d.VAE = *p.VAE
	} else if d.VAE, vaeTensors, err = describeVAE(p.Encoder, p.Decoder, in); err != nil {
		return nil, nil, err
	} else if table {
		if p.Decoder.Final != "" {
			return nil, nil, fmt.Errorf("the decoder ends in a %s; a table's decoder gives each number's standardised mean and each category's logits, before any softmax", p.Decoder.Final)
		}
		d.VAE.Likelihood = weights.LikelihoodMixed
	}
	files := map[string]*weights.File{}
	for name, parts := range map[string][]weights.Named{weights.BundleBNN: bnn, weights.BundleVAE: vaeTensors} {
		for _, t := range parts {
			for _, v := range t.Values {
				if v != v || v > 3.4e38 || v < -3.4e38 {
					return nil, nil, fmt.Errorf("tensor %s holds NaN or infinite values", t.Name)
				}
			}
		}
		model := "bnn"
		if name == weights.BundleVAE {
			model = "vae"
		}
		b, err := weights.Encode(weights.Manifest{Model: model, Dataset: weights.Dataset{Source: "deltaclue import (ONNX)"}}, parts)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if files[name], err = weights.Decode(name, b); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if info.Regression != nil {
		r := *info.Regression
		d.Regression = &r
	}
	d.Format = d.MinFormat() // a chain stays format 1, which every earlier build reads; a regression is format 4
	if err := d.Check(files); err != nil {
		return nil, nil, err
	}
	return d, files, nil
}

// checkRegressionOutput says, in a sentence, that network n (who) does not end as a regression's does: in its two
// outputs, the standardised mean and the σ head (or its log variance), with no softmax or sigmoid after them.
func checkRegressionOutput(who string, n *Network, r *weights.Regression) error {
	head := "the σ head (σ = std·softplus of it: -sigma softplus)"
	if r.Sigma == weights.SigmaLogVariance {
		head = "the log variance (σ = std·e^(it/2): -sigma log-variance)"
	}
	switch {
	case !n.Out.Flat || n.Out.Size() != weights.RegressionOutputs:
		return fmt.Errorf("%s ends in %v, and a regression of %s declared with -target ends in 2 outputs: the standardised mean and %s", who, outputs(n.Out), r.Target, head)
	case n.Final != "":
		return fmt.Errorf("%s ends in a %s; a regression's network ends in its two raw outputs, the standardised mean and %s", who, n.Final, head)
	}
	return nil
}

// outputs says what a network's output is: "1 output", "3 outputs", or its shape when it is not a vector.
func outputs(s weights.Shape) string {
	if !s.Flat {
		return fmt.Sprintf("an output of %v", s)
	}
	if s.Size() == 1 {
		return "1 output"
	}
	return fmt.Sprintf("%d outputs", s.Size())
}

// CheckTableInput says, in a sentence, that a classifier's input in is not the flattened row of the columns:
// one value per number or integer, one per category level.
func CheckTableInput(in weights.Shape, cols weights.Columns) error {
	if in.Flat && in.Size() == cols.Width() {
		return nil
	}
	return fmt.Errorf("the schema's %d columns flatten to %d values (one per number, one per category level) and the classifier reads %v: give the schema of the columns it was trained on, in its order",
		len(cols), cols.Width(), in)
}

func hasDropout(layers []weights.Layer) bool {
	for _, l := range layers {
		if l.Op == weights.OpDropout {
			return true
		}
	}
	return false
}

// describeVAE is the description's VAE of an exported encoder and decoder, with their tensors, checked to chain
// with the classifier's input in.
func describeVAE(enc, dec *Network, in weights.Shape) (weights.VAE, []weights.Named, error) {
	switch {
	case enc.In != in:
		return weights.VAE{}, nil, fmt.Errorf("the encoder takes %v and the classifier %v", enc.In, in)
	case !enc.Out.Flat:
		return weights.VAE{}, nil, fmt.Errorf("the encoder gives %v, not a latent vector", enc.Out)
	case enc.Final != "":
		return weights.VAE{}, nil, fmt.Errorf("the encoder ends in a %s; export it to the latent mean", enc.Final)
	case dec.In.Size() != enc.Out.Size() || !dec.In.Flat:
		return weights.VAE{}, nil, fmt.Errorf("the encoder's latent size is %d and the decoder takes %v", enc.Out.Size(), dec.In)
	case dec.Out != in:
		return weights.VAE{}, nil, fmt.Errorf("the decoder gives %v, not the classifier's input %v", dec.Out, in)
	case dec.Final != "" && dec.Final != "Sigmoid":
		return weights.VAE{}, nil, fmt.Errorf("the decoder ends in a %s; the explainer reads a decoder to the image (or to its logits before a sigmoid)", dec.Final)
	}
	v := weights.VAE{Latent: enc.Out.Size(), Likelihood: weights.LikelihoodGaussian,
		Encoder: weights.Network{File: weights.BundleVAE, Layers: enc.Layers},
		Decoder: weights.Network{File: weights.BundleVAE, Layers: dec.Layers}}
	if dec.Final == "Sigmoid" {
		v.Likelihood = weights.LikelihoodBernoulli
	}
	return v, append(append([]weights.Named(nil), enc.Tensors...), dec.Tensors...), nil
}
