//go:build denseonly || imagesonly

package testbundle

import "github.com/deltaclue/deltaclue/weights"

// regress: the dense-only build reads no regression (regression.go).
func regress(*weights.Description, *weights.Regression) {}
