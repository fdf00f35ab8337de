package engine

import (
	"fmt"

	"github.com/deltaclue/deltaclue/weights"
)

// LossWeights weights the terms of the δ-CLUE objective
//
//	L(z) = wT·H_total + wA·H_aleatoric + wE·H_epistemic + λx·d_x(μθ(z), x0) + λy·d_y(p̄(μθ(z)), p̄(x0))
//
// where d_x is the L1 distance (summed over pixels, or its mean per pixel when DistanceMean) and d_y the
// cross-entropy of the prediction on the decoded image against the prediction on x0.
type LossWeights struct {
	Total, Aleatoric, Epistemic float32
	LambdaX                     float32
	DistanceMean                bool
	LambdaY                     float32
}

// Objective is the δ-CLUE loss of a batch of latent points as an engine graph: set the points in Z, call
// Forward (and Backward for ∂L/∂z in Z.Grad), read the outputs.
type Objective struct {
	Graph    *Graph
	Z        *Tensor    // latent points [batch, Latent], with gradient
	Logits   *Tensor    // decoder logits [batch, Image.Size()]
	Image    *Tensor    // decoded images μθ(z) [batch, Image.Size()]
	Pred     Prediction // the BNN on the decoded images
	Distance *Tensor    // summed L1 distance to x0 [batch, 1], whatever the loss's normalisation
	Cost     *Tensor    // L(z) [batch, 1]
}

// NewObjective builds the objective for batches of up to capacity points around the image x0 (one image of the VAE's and the classifier's shape),
// whose BNN prediction is y0 (its p̄, or a regression's predictive mean, used by the λy term; may be nil when
// LambdaY = 0).
func NewObjective(v *VAE, b *BNN, capacity int, w LossWeights, x0, y0 []float32) (*Objective, error) {
	if len(x0) != v.Image.Size() || v.Image != b.Input {
		return nil, fmt.Errorf("x0 has %d values; the VAE decodes %v images and the classifier reads %v", len(x0), v.Image, b.Input)
	}
	if err := checkY0(b, w, y0); err != nil {
		return nil, err
	}
	g := NewGraph(capacity)
	o := &Objective{Graph: g}
	o.Z = g.Input(v.Latent, true)
	o.Logits, o.Image = v.Decode(g, o.Z)
	var target []float32
	if w.LambdaY != 0 {
		target = y0
	}
	o.Pred = b.Predict(g, o.Image, target)
	o.Distance = g.L1(o.Image, append([]float32(nil), x0...))
	if err := o.sum(w, v.Image.Size()); err != nil {
		return nil, err
	}
	return o, nil
}

// checkY0 says what is wrong with the λy term's y0, when it is used: a classifier's p̄ of its classes, or a
// regression's one predictive mean.
func checkY0(b *BNN, w LossWeights, y0 []float32) error {
	switch {
	case w.LambdaY == 0:
		return nil
	case !weights.RegressionLeftOut && b.Regression != nil && len(y0) != 1:
		return fmt.Errorf("y0 has %d values, want a regression's one predictive mean", len(y0))
	case (weights.RegressionLeftOut || b.Regression == nil) && len(y0) != b.Classes:
		return fmt.Errorf("y0 has %d values, want %d classes", len(y0), b.Classes)
	}
	return nil
}

// sum makes the cost from the objective's terms; DistanceMean divides d_x by values.
func (o *Objective) sum(w LossWeights, values int) error {
	var terms []Term
	for _, t := range []Term{{w.Total, o.Pred.Total}, {w.Aleatoric, o.Pred.Aleatoric}, {w.Epistemic, o.Pred.Epistemic}} {
		if t.Coef != 0 {
			terms = append(terms, t)
		}
	}
	if w.LambdaX != 0 {
		lx := w.LambdaX
		if w.DistanceMean {
			lx /= float32(values)
		}
		terms = append(terms, Term{lx, o.Distance})
	}
	if w.LambdaY != 0 {
		terms = append(terms, Term{w.LambdaY, o.Pred.CrossEnt})
	}
	if len(terms) == 0 {
		return fmt.Errorf("every weight of the loss is zero")
	}
	o.Cost = o.Graph.Sum(terms...)
	return nil
}

// Forward evaluates the objective at the live points of Z.
func (o *Objective) Forward() { o.Graph.Forward() }

// Backward computes ∂L_i/∂z_i for every live point into Z.Grad, after Forward.
func (o *Objective) Backward() { o.Graph.Backward(o.Cost, nil) }

// Encode returns the encoder means μφ(x) of images [n·Image.Size()] as [n·Latent].
func (v *VAE) Encode(images []float32) []float32 {
	var out []float32
	v.encodes.forward(images, v.Image.Size(), func(s *oneShot) { out = append([]float32(nil), s.out.Live()...) })
	return out
}

// DecodeImages returns the decoded images μθ(z) [n·Image.Size()] of latent points [n·Latent].
func (v *VAE) DecodeImages(z []float32) []float32 {
	var out []float32
	v.decodes.forward(z, v.Latent, func(s *oneShot) { out = append([]float32(nil), s.out.Live()...) })
	return out
}

// Uncertainty is the BNN's verdict on one image. A regression's: Probs are its ranges', Mean its predictive
// mean, and Total, Aleatoric and Epistemic its standard deviations in the target's unit.
type Uncertainty struct {
	Probs     []float32 `json:"probs"` // p̄, one per class
	Total     float32   `json:"h_total"`
	Aleatoric float32   `json:"h_aleatoric"`
	Epistemic float32   `json:"h_epistemic"`
	Mean      *float32  `json:"mean,omitempty"` // a regression's predictive mean; nil for a classifier
}

// Label is the most probable class (the first of ties).
func (u Uncertainty) Label() int {
	best := 0
	for k, p := range u.Probs {
		if p > u.Probs[best] {
			best = k
		}
	}
	return best
}

// Classify returns the BNN's prediction for each of the images [n·Input.Size()].
func (b *BNN) Classify(images []float32) []Uncertainty {
	out := make([]Uncertainty, len(images)/b.Input.Size())
	b.classifies.forward(images, b.Input.Size(), func(s *oneShot) {
		for i := range out {
			out[i] = Uncertainty{Probs: append([]float32(nil), s.p.ProbsRow(i)...),
				Total: s.p.Total.Data[i], Aleatoric: s.p.Aleatoric.Data[i], Epistemic: s.p.Epistemic.Data[i]}
			if !weights.RegressionLeftOut && s.p.Mean != nil {
				m := s.p.Mean.Data[i]
				out[i].Mean = &m
			}
		}
	})
	return out
}
