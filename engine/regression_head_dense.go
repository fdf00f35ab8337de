//go:build denseonly || imagesonly

package engine

import "github.com/deltaclue/deltaclue/weights"

// regressionHead: the dense-only worker reads no regression (weights.RegressionLeftOut).
func regressionHead(*weights.Description) *RegressionHead { return nil }
