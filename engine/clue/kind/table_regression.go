package kind

import (
	"fmt"
	"strings"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// describeRegression is Describe for a predictor of a number: "The model predicts 35.2 MPa ± 9.12 for this mix
// (sure is ± 3 or less). Nearby, it would be sure of 41.3 MPa (± 2.8) if Cement rose from 200 to 260 kg/m³ (12 of
// 100 restarts, at d 1.3) or …".
func (t Table) describeRegression(w clue.Words, row0 []float64, pred0 engine.Uncertainty, exps []clue.Explanation, s clue.Summary, p clue.Params) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The model predicts %s for this %s", w.Prediction(*pred0.Mean, pred0.Total), w.Noun)
	if float64(pred0.Total) <= p.HThreshold {
		fmt.Fprintf(&b, "; it is already sure (± %s or less), so the explanations change it little.", clue.Figure(p.HThreshold))
	} else {
		fmt.Fprintf(&b, " (sure is ± %s or less).", clue.Figure(p.HThreshold))
	}
	if s.Accepted == 0 {
		return b.String() + w.NoneSure(exps, s, p, "a larger δ, a higher threshold or fewer locks")
	}
	parts := w.SureOf(exps, s, func(e clue.Explanation) string {
		if row := t.Row(e.Image); row != nil {
			return t.InWords(row0, row)
		}
		return ""
	})
	fmt.Fprintf(&b, " Nearby, it would be sure of %s.", plural.Or(parts))
	return b.String()
}
