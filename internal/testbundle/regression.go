package testbundle

import "github.com/deltaclue/deltaclue/weights"

// GreyRegression is Grey as a predictor of a number (format 4): its classifier ends in a mean and a standard
// deviation (softplus) of a target standardised by mean 50 and std 20, its classes four ranges of it, sure at
// σ ≤ 14.5 (its seeded weights are far from sure of anything).
func GreyRegression(seed uint64) (*Bundle, error) {
	return grey(seed, &weights.Regression{Target: "Strength", Unit: "MPa", Mean: 50, Std: 20, Sigma: weights.SigmaSoftplus, Sure: 14.5,
		Ranges: []float64{0, 30, 50, 70, 100}})
}

// TableRegression is Table as a predictor of a number (format 4, σ from a log variance), its classes three
// ranges of the target.
func TableRegression(seed uint64) (*Bundle, error) {
	return table(seed, &weights.Regression{Target: "Strength", Unit: "MPa", Mean: 50, Std: 20, Sigma: weights.SigmaLogVariance, Sure: 24,
		Ranges: []float64{0, 40, 60, 100}})
}

// regress makes d a regression's description when reg is given: format 4, its classes the ranges' names.
func regress(d *weights.Description, reg *weights.Regression) {
	if reg != nil {
		d.Format, d.Name, d.Regression, d.Classes = weights.FormatRegression, d.Name+"-regression", reg, reg.RangeNames()
	}
}
