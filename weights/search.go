package weights

import (
	"fmt"
	"math"
)

// SearchDefaults are a model's own defaults for the δ-CLUE search, where the digits' (clue.Defaults: δ 2,
// λx 0.03, a threshold of 0.3 nats, chosen for their 16-dimensional latent space and ten classes) do not fit
// it: `deltaclue import` measures them on the test items the model is least sure of (docs/your-model.md). Each
// is optional; one left out is the digits'. clue.DefaultsFor reads them: the page's settings, its links and the
// command line start from them.
type SearchDefaults struct {
	Delta      *float64 `json:"delta,omitempty"`       // the radius δ of the latent ball, in (0, MaxSearchDelta]
	LambdaX    *float64 `json:"lambda_x,omitempty"`    // the weight λx of the summed L1 distance to the input, in [0, MaxSearchWeight]
	HThreshold *float64 `json:"h_threshold,omitempty"` // accept an explanation when H_total is below this (nats), in (0, ln classes]
	// DedupL1 is the L1 distance between two inputs (as the networks read them) within which the cheaper makes the
	// other a duplicate, in (0, MaxInputValues]: the digits' 10 is 1.3 % of 784 pixels, and a table's flattened row
	// of a few dozen standardised values wants far less.
	DedupL1 *float64 `json:"dedup_l1,omitempty"`
}

// The bounds of a search's δ and of the loss's weights (clue.Params.Validate checks them too).
const (
	MaxSearchDelta  = 20
	MaxSearchWeight = 1000
)

// checkSearch checks the search defaults, if there are any: each finite and in range, the threshold at most
// ln(classes), the entropy of a guess spread evenly over the classes (a higher one accepts anything).
func (d *Description) checkSearch() error {
	s := d.Search
	if s == nil {
		return nil
	}
	if s.Delta == nil && s.LambdaX == nil && s.HThreshold == nil && s.DedupL1 == nil {
		return fmt.Errorf(`the model's search defaults give none of "delta", "lambda_x", "h_threshold" and "dedup_l1": give one, or leave "search" out`)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if s.Delta != nil {
		if v := *s.Delta; !finite(v) || v <= 0 || v > MaxSearchDelta {
			return fmt.Errorf("the model's search defaults give δ = %g: it must be above 0 and at most %d", v, MaxSearchDelta)
		}
	}
	if s.LambdaX != nil {
		if v := *s.LambdaX; !finite(v) || v < 0 || v > MaxSearchWeight {
			return fmt.Errorf("the model's search defaults give λx = %g: it must be from 0 to %d", v, MaxSearchWeight)
		}
	}
	if s.DedupL1 != nil {
		if v := *s.DedupL1; !finite(v) || v <= 0 || v > MaxInputValues {
			return fmt.Errorf("the model's search defaults give dedup_l1 = %g: it must be above 0 and at most %d", v, MaxInputValues)
		}
	}
	if s.HThreshold != nil {
		top := math.Log(float64(len(d.Classes)))
		if v := *s.HThreshold; !finite(v) || v <= 0 || v > top {
			return fmt.Errorf("the model's search defaults give a threshold of %g nats: it must be above 0 and at most ln %d ≈ %.4g nats, the entropy of an even guess among the %d classes",
				v, len(d.Classes), top, len(d.Classes))
		}
	}
	return nil
}
