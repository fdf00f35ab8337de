package weights

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Regression is what a predictor of a number declares (format 4; nil for a classifier). Its networks (the
// MC-dropout network or each ensemble member) end in two outputs, o0 and o1, read as a Gaussian over the target:
// its mean μ = Mean + Std·o0 and its standard deviation σ = Std·softplus(o1) (SigmaSoftplus) or
// Std·exp(o1/2) (SigmaLogVariance: o1 is the standardised log variance). Mean and Std are the target's
// standardisation, as a table's numbers have theirs; the networks work in standardised units.
//
// The search explains the predictive standard deviation over the posterior samples, √(mean σ_k² + var μ_k) (CLUE's
// total; the first term the aleatoric variance, the second the epistemic), and accepts a result when it is at
// most Sure, in the target's unit. The predictive mean is not a label: the page, the cards and the summary speak
// of ranges of it, Ranges' edges in ascending order, whose names are the description's Classes ("30–40 MPa"):
// the probability of a range is the predictive mixture's mass in it, the first and the last open-ended.
type Regression struct {
	Target string    `json:"target"` // the predicted quantity's name: "Strength"
	Unit   string    `json:"unit"`   // its unit: "MPa" ("" for none)
	Mean   float64   `json:"mean"`
	Std    float64   `json:"std"`
	Sigma  string    `json:"sigma"`  // SigmaSoftplus or SigmaLogVariance
	Sure   float64   `json:"sure"`   // τ: a prediction is sure when its σ is at most this, in Unit
	Ranges []float64 `json:"ranges"` // the modes' ranges: len(Classes)+1 ascending edges
}

// How a regression network's second output is its standard deviation.
const (
	SigmaSoftplus    = "softplus"     // σ = Std·log(1 + e^{o1})
	SigmaLogVariance = "log-variance" // σ = Std·e^{o1/2}
)

// FormatRegression is the format of a description with a Regression (4).
const FormatRegression = 4

// RegressionOutputs is the number of values a regression network ends in: the mean's and the σ's.
const RegressionOutputs = 2

// MaxRanges bounds the number of ranges a regression's modes are.
const MaxRanges = 20

// IsRegression says whether the model predicts a number.
func (d *Description) IsRegression() bool { return d.Regression != nil }

// FullPage says whether the model needs the page built for every kind of model: a table's rows or a
// regression (the page built for classifiers of images, the digits' first visit, leaves both out).
func (d *Description) FullPage() bool { return d.Input.IsTable() || d.IsRegression() }

// Outputs is the number of values each of the classifier's networks ends in: one per class, or a regression's
// two.
func (d *Description) Outputs() int {
	if d.IsRegression() {
		return RegressionOutputs
	}
	return len(d.Classes)
}

// checkRegression checks a regression's declaration: its names, its standardisation, τ and the ranges, whose
// names must be the classes (RangeNames).
func (d *Description) checkRegression() error {
	r := d.Regression
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case r.Target == "" || len(r.Target) > 64 || strings.ContainsAny(r.Target, "\n\r\t"):
		return fmt.Errorf("the regression's target %q must be named in 1 to 64 bytes on one line", clip(r.Target))
	case len(r.Unit) > 16 || strings.ContainsAny(r.Unit, "\n\r\t"):
		return fmt.Errorf("the regression's unit %q must be at most 16 bytes on one line", clip(r.Unit))
	case !finite(r.Mean) || !finite(r.Std) || r.Std <= 0:
		return fmt.Errorf("the regression's target standardisation (mean %g, std %g) needs a finite mean and a std above 0", r.Mean, r.Std)
	case r.Sigma != SigmaSoftplus && r.Sigma != SigmaLogVariance:
		return fmt.Errorf("the regression's sigma %q: %q or %q (how the networks' second output is the standard deviation)", clip(r.Sigma), SigmaSoftplus, SigmaLogVariance)
	case !finite(r.Sure) || r.Sure <= 0:
		return fmt.Errorf("the regression's threshold of sure, σ ≤ %g %s, must be above 0", r.Sure, r.Unit)
	case len(r.Ranges) < 3 || len(r.Ranges) > MaxRanges+1:
		return fmt.Errorf("the regression has %d range edges: 3 to %d (2 to %d ranges)", len(r.Ranges), MaxRanges+1, MaxRanges)
	case d.Search != nil && d.Search.HThreshold != nil:
		return fmt.Errorf(`a regression's threshold is its "sure" (σ in %s), not the search defaults' "h_threshold"`, r.unitOr("its unit"))
	}
	for i, e := range r.Ranges {
		if !finite(e) || i > 0 && !(e > r.Ranges[i-1]) {
			return fmt.Errorf("the regression's range edges %v must be finite and ascending", r.Ranges)
		}
	}
	want := r.RangeNames()
	if len(d.Classes) != len(want) {
		return fmt.Errorf("the regression's %d ranges need %d classes, their names (%q), not %d", len(want), len(want), want, len(d.Classes))
	}
	for i, c := range d.Classes {
		if c != want[i] {
			return fmt.Errorf("the regression's range %d is named %q, not %q", i, c, want[i])
		}
	}
	return nil
}

func (r *Regression) unitOr(none string) string {
	if r.Unit == "" {
		return none
	}
	return r.Unit
}

// RangeNames are the names of the ranges, the description's classes: "below 20 MPa", "20–30 MPa", …, "60 MPa
// or more".
func (r *Regression) RangeNames() []string {
	unit := ""
	if r.Unit != "" {
		unit = " " + r.Unit
	}
	n := len(r.Ranges) - 1
	names := make([]string, n)
	for i := range names {
		lo, hi := FormatValue(r.Ranges[i]), FormatValue(r.Ranges[i+1])
		switch i {
		case 0:
			names[i] = "below " + hi + unit
		case n - 1:
			names[i] = lo + unit + " or more"
		default:
			names[i] = lo + "–" + hi + unit
		}
	}
	return names
}

// Range is the index of the range v falls in (the first and the last open-ended; an edge starts its range).
func (r *Regression) Range(v float64) int {
	n := len(r.Ranges) - 1
	for i := 1; i < n; i++ {
		if v < r.Ranges[i] {
			return i - 1
		}
	}
	return n - 1
}

// FormatValue writes a value of the target as people write it: the shortest decimal that reads back (20, 2.5).
func FormatValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
