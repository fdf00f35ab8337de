package engine

import "github.com/deltaclue/deltaclue/weights"

// regressionHead is the head a regression's description declares.
func regressionHead(d *weights.Description) *RegressionHead {
	r := d.Regression
	return &RegressionHead{Mean: r.Mean, Std: r.Std, LogVar: r.Sigma == weights.SigmaLogVariance,
		InnerEdges: append([]float64(nil), r.Ranges[1:len(r.Ranges)-1]...)}
}
