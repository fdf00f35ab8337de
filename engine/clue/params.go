// Package clue is the δ-CLUE search (Ley, Bhatt & Weller, 2021, Algorithm 1) on the engine, with the set's
// metrics: given an uncertain image x0, it finds n latent points within distance δ of z0 = μφ(x0) that minimise
// L(z) = H(y | μθ(z)) + λx·d_x + λy·d_y by projected gradient descent (Adam) from n starting points, and keeps
// those whose decoded image the BNN is sure about (H < H_threshold).
//
// Everything is deterministic: the same image, parameters and seed give bit-identical explanations natively
// and in WASM, and each restart's result depends only on its own index, so restarts can be split across
// workers and merged (except with the joint diversity term, which couples them).
package clue

import (
	"fmt"
	"math"
	"strings"

	"github.com/deltaclue/deltaclue/weights"
)

// Scheme is an initialisation scheme (the paper's appendix C).
type Scheme int

// The schemes: S1 random direction with radius ~ U(0, δ); S2 along the path to the nearest low-uncertainty
// training point of each class; S3 random direction with radius ~ half-normal(δ/2) cut at δ; S4 uniform in the
// ball; S5 along the gradient path of p(class y) for each class; S6 (not the paper's: from GLAM-CLUE, its sequel)
// at the amortised points, x0's code moved along the learned translations from the label read, with jitter.
const (
	S1 Scheme = 1 + iota
	S2
	S3
	S4
	S5
	S6
)

func (s Scheme) String() string { return fmt.Sprintf("S%d", int(s)) }

// MarshalText writes "S1".."S6".
func (s Scheme) MarshalText() ([]byte, error) {
	if s < S1 || s > S6 {
		return nil, fmt.Errorf("no scheme %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads "S1".."S6" (or "s1".."s6").
func (s *Scheme) UnmarshalText(b []byte) error {
	for v := S1; v <= S6; v++ {
		if strings.EqualFold(string(b), v.String()) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("scheme %q: want one of S1, S2, S3, S4, S5, S6", b)
}

// Norm is the latent distance ρ(z, z0).
type Norm int

// L2 is the paper's choice; LInf the max-norm alternative.
const (
	L2 Norm = iota
	LInf
)

// MarshalText writes "l2" or "linf".
func (n Norm) MarshalText() ([]byte, error) {
	return []byte(map[Norm]string{L2: "l2", LInf: "linf"}[n]), nil
}

// UnmarshalText reads "l2" or "linf".
func (n *Norm) UnmarshalText(b []byte) error {
	switch strings.ToLower(string(b)) {
	case "l2":
		*n = L2
	case "linf":
		*n = LInf
	default:
		return fmt.Errorf("rho %q: want l2 or linf", b)
	}
	return nil
}

// Constraint says how the δ-ball is enforced.
type Constraint int

// Project puts a point that leaves the ball back on its surface after every step (the paper's method);
// Filter searches unconstrained and then accepts only results inside the ball (the paper's appendix D).
const (
	Project Constraint = iota
	Filter
)

// MarshalText writes "project" or "filter".
func (c Constraint) MarshalText() ([]byte, error) {
	return []byte(map[Constraint]string{Project: "project", Filter: "filter"}[c]), nil
}

// UnmarshalText reads "project" or "filter".
func (c *Constraint) UnmarshalText(b []byte) error {
	switch strings.ToLower(string(b)) {
	case "project":
		*c = Project
	case "filter":
		*c = Filter
	default:
		return fmt.Errorf("constraint %q: want project or filter", b)
	}
	return nil
}

// Convergence is the rule that stops a restart before MaxSteps. Both compare the restart's costs c[t] (c[t] is
// the cost of z_t, the point after t updates) with the tolerance max(RelTol·c[0], AbsTol).
type Convergence int

const (
	// Spread, the default, is this project's rule: at step t ≥ max(MinSteps, Window) the restart stops when the
	// spread of its last Window+1 costs, max − min of c[t−Window] … c[t], is below the tolerance, and it returns
	// z_t, the point it stopped at. With the defaults it can fire from step 3.
	Spread Convergence = iota
	// CLUERule is the rule of CLUE's code (Antorán et al., repository cambridge-mlg/CLUE, interpret/CLUE.py:
	// CLUE.update_stopvec and CLUE.apply_stopvec): at step t > MinSteps it compares only the endpoints,
	// |c[t−Window] − c[t]| < RelTol·c[0] or < AbsTol, and it returns z_{t−Window+1}, the point Window−1 updates
	// before the one that fired (CLUE freezes its results there). With the defaults it fires from step 4 and
	// returns z_{t−2}. It is checked from step max(MinSteps+1, Window) (CLUE's code, with min_steps below
	// n_early_stop, would compare with costs not yet computed) and not at MaxSteps (CLUE's loop never checks
	// the cost of its last point): a restart that does not fire returns z_MaxSteps under both rules.
	CLUERule
)

// MarshalText writes "spread" or "clue".
func (c Convergence) MarshalText() ([]byte, error) {
	switch c {
	case Spread:
		return []byte("spread"), nil
	case CLUERule:
		return []byte("clue"), nil
	}
	return nil, fmt.Errorf("clue: no convergence rule %d", int(c))
}

// UnmarshalText reads "spread" or "clue".
func (c *Convergence) UnmarshalText(b []byte) error {
	switch strings.ToLower(string(b)) {
	case "spread":
		*c = Spread
	case "clue":
		*c = CLUERule
	default:
		return fmt.Errorf("convergence %q: want spread or clue", b)
	}
	return nil
}

func (c Convergence) String() string {
	b, err := c.MarshalText()
	if err != nil {
		return fmt.Sprintf("Convergence(%d)", int(c))
	}
	return string(b)
}

// Params are every setting of a search. Defaults() documents each default.
type Params struct {
	Delta  float64 `json:"delta"`  // radius δ of the latent ball
	N      int     `json:"n"`      // number of restarts (S2 and S5 make 10·⌊n/10⌋)
	Scheme Scheme  `json:"scheme"` // initialisation scheme

	// The loss: wT·H_total + wA·H_aleatoric + wE·H_epistemic + λx·d_x + λy·d_y.
	WTotal       float64 `json:"w_total"`
	WAleatoric   float64 `json:"w_aleatoric"`
	WEpistemic   float64 `json:"w_epistemic"`
	LambdaX      float64 `json:"lambda_x"`      // weight of the L1 distance to x0
	DistanceMean bool    `json:"distance_mean"` // d_x as mean per pixel (CLUE's code) instead of summed (the paper)
	LambdaY      float64 `json:"lambda_y"`      // weight of the cross-entropy to the prediction on x0
	LambdaD      float64 `json:"lambda_d"`      // weight of the joint diversity term −λ_D·log det K (∇-CLUE)

	Rho        Norm       `json:"rho"`
	Constraint Constraint `json:"constraint"`

	LearningRate float64 `json:"learning_rate"` // Adam's step size (β = 0.9, 0.999; ε = 1e-8)
	MaxSteps     int     `json:"max_steps"`     // updates per restart at most

	// Convergence: the rule (Spread, this project's, by default; or CLUERule, CLUE's code's) and its
	// settings. Spread: after MinSteps updates, a restart stops when its cost moved less than
	// max(RelTol·|initial cost|, AbsTol) over the last Window updates (max minus min of those costs).
	Convergence Convergence `json:"convergence"`
	Window      int         `json:"window"`
	RelTol      float64     `json:"rel_tol"`
	AbsTol      float64     `json:"abs_tol"`
	MinSteps    int         `json:"min_steps"`

	// Lock names the columns of a model of rows that every explanation keeps at x0's value (besides those whose
	// change rule is "never"); empty for images, and refused for a model of images.
	Lock ColumnList `json:"lock,omitempty"`

	// Sparse, for a model of rows, gives back each sure explanation's changes the model stays sure without, the
	// smallest first (sparse.go); false for images, true by default for rows (DefaultsFor).
	Sparse bool `json:"sparse,omitempty"`

	HThreshold float64 `json:"h_threshold"` // accept a result when H_total < this (nats)
	DedupL1    float64 `json:"dedup_l1"`    // accepted results within this L1 image distance of a cheaper one are duplicates
	Seed       uint64  `json:"seed"`
}

// MaxImageValues is the most values an input may have (a model description's bound): the largest L1 distance
// between two images of intensities in [0, 1], so the most DedupL1 can mean.
const MaxImageValues = weights.MaxInputValues

// Defaults returns the default parameters: the paper's Distance Random variant (L_H+d with λx = 0.03 on the
// summed L1 distance, scheme S1, projected onto the L2 ball) at δ = DefaultDelta with n = 100; Adam with
// learning rate 0.1 for at most 100 steps; the Spread convergence rule with CLUE's settings (window 3, 1 % or
// 1e-3, after 3 steps);
// H_threshold 0.3 nats (the BNN's predictive p̄ is then at least ≈ 0.95 on one class); duplicates within L1
// distance 10 (1.3 % of a pixel on average); seed 1.
func Defaults() Params {
	return Params{Delta: DefaultDelta, N: 100, Scheme: S1, WTotal: 1, LambdaX: 0.03, Rho: L2, Constraint: Project,
		LearningRate: 0.1, MaxSteps: 100, Window: 3, RelTol: 0.01, AbsTol: 1e-3, MinSteps: 3,
		HThreshold: 0.3, DedupL1: 10, Seed: 1}
}

// DefaultDelta is the default radius.
const DefaultDelta = 2.0

// DefaultsFor returns the default parameters for the model d describes: Defaults(), with the δ, λx and
// threshold its description gives (weights.Description.Search, which `deltaclue import` measures for a model
// the digits' do not fit). Every place that starts from defaults with a model in hand starts here: the page's
// form and its "Use the defaults", the costly-link ratio, the worker's early answers and the command line.
// A nil description, or one without search defaults (the digits', Fashion's), gives Defaults() itself.
func DefaultsFor(d *weights.Description) Params {
	p := Defaults()
	if !weights.RegressionLeftOut && d != nil && d.Regression != nil { // a regression's threshold is its σ ≤ τ, in the target's unit
		p.HThreshold = sureOf(d)
	}
	p.Sparse = d != nil && d.Input.IsTable()
	if d == nil || d.Search == nil {
		return p
	}
	s := d.Search
	if s.Delta != nil {
		p.Delta = *s.Delta
	}
	if s.LambdaX != nil {
		p.LambdaX = *s.LambdaX
	}
	if s.HThreshold != nil {
		p.HThreshold = *s.HThreshold
	}
	if s.DedupL1 != nil {
		p.DedupL1 = *s.DedupL1
	}
	return p
}

// MaxDelta is the largest radius δ (a model's search defaults are bounded by it too).
const MaxDelta = weights.MaxSearchDelta

// Classes sets the restarts of schemes S2 and S5: a multiple of it (the digits' ten classes), spread over the
// model's own classes (perClass).
const Classes = 10

// ParamError says which parameter is wrong and why.
type ParamError struct {
	Field  string
	Value  any
	Reason string
}

func (e *ParamError) Error() string { return fmt.Sprintf("%s = %v: %s", e.Field, e.Value, e.Reason) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Validate checks every parameter and returns a *ParamError naming the first bad one.
func (p Params) Validate() error {
	num := func(field string, v, lo, hi float64, open bool) error {
		if !finite(v) || v > hi || v < lo || (open && v == lo) {
			bracket := "["
			if open {
				bracket = "("
			}
			return &ParamError{field, v, fmt.Sprintf("must be a number in %s%g, %g]", bracket, lo, hi)}
		}
		return nil
	}
	integer := func(field string, v, lo, hi int) error {
		if v < lo || v > hi {
			return &ParamError{field, v, fmt.Sprintf("must be a whole number from %d to %d", lo, hi)}
		}
		return nil
	}
	checks := []error{
		num("delta", p.Delta, 0, MaxDelta, true),
		integer("n", p.N, 1, 1000),
		num("w_total", p.WTotal, 0, 1000, false),
		num("w_aleatoric", p.WAleatoric, 0, 1000, false),
		num("w_epistemic", p.WEpistemic, 0, 1000, false),
		num("lambda_x", p.LambdaX, 0, weights.MaxSearchWeight, false),
		num("lambda_y", p.LambdaY, 0, 1000, false),
		num("lambda_d", p.LambdaD, 0, 1000, false),
		num("learning_rate", p.LearningRate, 0, 10, true),
		integer("max_steps", p.MaxSteps, 1, 10000),
		integer("window", p.Window, 1, 100),
		num("rel_tol", p.RelTol, 0, 1, false),
		num("abs_tol", p.AbsTol, 0, 1000, false),
		integer("min_steps", p.MinSteps, 0, 10000),
		num("h_threshold", p.HThreshold, 0, 100, true),
		num("dedup_l1", p.DedupL1, 0, MaxImageValues, false),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	switch {
	case p.Scheme < S1 || p.Scheme > S6:
		return &ParamError{"scheme", int(p.Scheme), "must be S1, S2, S3, S4, S5 or S6"}
	case (p.Scheme == S2 || p.Scheme == S5) && p.N < Classes:
		return &ParamError{"n", p.N, fmt.Sprintf("schemes S2 and S5 start ⌊n/%d⌋ restarts per class, so n must be at least %d", Classes, Classes)}
	case p.Rho != L2 && p.Rho != LInf:
		return &ParamError{"rho", int(p.Rho), "must be l2 or linf"}
	case p.Constraint != Project && p.Constraint != Filter:
		return &ParamError{"constraint", int(p.Constraint), "must be project or filter"}
	case p.Convergence != Spread && p.Convergence != CLUERule:
		return &ParamError{"convergence", int(p.Convergence), "must be spread or clue"}
	case p.WTotal+p.WAleatoric+p.WEpistemic+p.LambdaX+p.LambdaY == 0:
		return &ParamError{"w_total", p.WTotal, "every weight of the loss is zero: there is nothing to minimise"}
	case p.MinSteps > p.MaxSteps:
		return &ParamError{"min_steps", p.MinSteps, fmt.Sprintf("must not exceed max_steps (%d)", p.MaxSteps)}
	}
	return p.Lock.check()
}

// ValidateFor is Validate, then what the models make possible: scheme S2 starts toward the anchors of the
// classes that have some (spreading its restarts over them), so it needs the anchors file and at least one class
// with anchors. It returns a *ParamError naming the first bad parameter and why, in a sentence.
func (p Params) ValidateFor(m *Models) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := p.validateLocks(m); err != nil {
		return err
	}
	if p.Sparse && !m.readsRows() {
		return &ParamError{"sparse", p.Sparse, "the models read images: only a row's changes can be given back"}
	}
	if p.Scheme == S2 {
		switch {
		case m.Anchors == nil:
			return &ParamError{"scheme", p.Scheme, "the models have no anchors (" + weights.BundleAnchors + "), the training codes S2 starts toward: choose another scheme"}
		case len(m.AnchoredClasses()) == 0:
			return &ParamError{"scheme", p.Scheme, "the classifier reads no training image of any class with confidence, so S2 has no anchors to start toward: choose another scheme"}
		}
	}
	return nil
}

// Restarts is the number of restarts the parameters make: n, or 10·⌊n/10⌋ for S2 and S5.
func (p Params) Restarts() int {
	if p.Scheme == S2 || p.Scheme == S5 {
		return Classes * (p.N / Classes)
	}
	return p.N
}
