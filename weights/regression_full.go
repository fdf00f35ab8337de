//go:build !denseonly && !imagesonly

package weights

// RegressionLeftOut says that this build reads no regression (regression_left.go); this one reads them.
const RegressionLeftOut = false
