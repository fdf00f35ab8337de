//go:build denseonly

package engine

import (
	"errors"

	"github.com/deltaclue/deltaclue/weights"
)

// The dense-only worker (the digits' first visit) leaves the row head out: a model of rows is served the full
// worker (weights.Description.DenseOnly is false for a table), so these are never reached there.

var errRowsLeftOut = errors.New("this worker was built for dense image models and does not search rows (the site serves its full worker for a model of rows)")

// RowHead is the full worker's row head (rows.go); this build has none.
type RowHead struct {
	Columns weights.Columns
	X0      []float32
	Locked  []bool
}

// NewRowHead refuses: this build leaves rows out.
func NewRowHead(weights.Columns, []float64, []bool) (*RowHead, error) { return nil, errRowsLeftOut }

// CheckRow refuses: this build leaves rows out.
func (h *RowHead) CheckRow([]float32) error { return errRowsLeftOut }

// NewRowObjective refuses: this build leaves rows out.
func NewRowObjective(*VAE, *BNN, int, LossWeights, *RowHead, []float32) (*Objective, error) {
	return nil, errRowsLeftOut
}

// DecodeRow is never reached in this build (NewRowHead refuses first).
func (v *VAE) DecodeRow(*Graph, *Tensor, *RowHead) (raw, row *Tensor) { panic(errRowsLeftOut) }

// NewRowScorer refuses: this build leaves rows out.
func NewRowScorer(*BNN, int, LossWeights, *RowHead, []float32) (*Objective, error) {
	return nil, errRowsLeftOut
}

// Part is never reached in this build (NewRowHead refuses first).
func (h *RowHead) Part([]float32, int) float64 { panic(errRowsLeftOut) }
