//go:build denseonly || imagesonly

package kind

import (
	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// describeRegression: the dense-only build reads no regression (table_regression.go).
func (t Table) describeRegression(clue.Words, []float64, engine.Uncertainty, []clue.Explanation, clue.Summary, clue.Params) string {
	return ""
}
