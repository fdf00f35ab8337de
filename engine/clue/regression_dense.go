//go:build denseonly || imagesonly

package clue

import (
	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/weights"
)

// The dense-only worker reads no regression (weights.RegressionLeftOut): what regression.go says is left out.

func sureOf(*weights.Description) float64 { return 0 }

func (w Words) describeRegression(engine.Uncertainty, []Explanation, Summary, Params) string {
	return ""
}

func (w Words) sure() float64 { return 0 }

func (w Words) describeReachesRegression([]Reach, Ladder) string { return "" }
