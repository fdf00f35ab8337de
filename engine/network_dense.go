//go:build denseonly

package engine

import (
	"fmt"

	"github.com/deltaclue/deltaclue/weights"
)

// DenseOnly says that this build runs only the dense family of layers (dense, ReLU, sigmoid, MC dropout, flatten,
// reshape): a worker for models that need no more (the digits'), smaller for its first visit. cmd/site builds it
// when every model it serves is such (weights.Description.DenseOnly).
const DenseOnly = true

// layerStep refuses a layer outside the dense family: this build leaves them out.
func layerStep(l weights.Layer, _ []weights.Shape, _ weights.Shape, _ [][]float32, _ func([]int) ([]float32, []float32, error)) (step, error) {
	return step{}, fmt.Errorf("this worker was built for dense models and does not run %s layers (the site serves its full worker for models that need them)", l.Op)
}

// maskStep refuses MC dropout that no dense layer takes: this build leaves that out.
func maskStep([][]float32) (step, error) {
	return step{}, fmt.Errorf("this worker was built for dense models and runs dropout only before a dense layer (the site serves its full worker for models that need more)")
}
