package clue

// What a regression's sentences say (left out of the dense-only worker, which reads no regression).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// sureOf is a regression's threshold of sure, τ.
func sureOf(d *weights.Description) float64 { return d.Regression.Sure }

// Value is a regression's value with its unit: "41.3 MPa" (three significant digits, never an exponent).
func (w Words) Value(v float32) string {
	s := Figure(float64(v))
	if w.Regression != nil && w.Regression.Unit != "" {
		s += " " + w.Regression.Unit
	}
	return s
}

// Prediction is what a regression predicts with its uncertainty: "35.2 MPa ± 9.12".
func (w Words) Prediction(mean, sigma float32) string {
	return w.Value(mean) + " ± " + Figure(float64(sigma))
}

// describeRegression is Describe for a predictor of a number: what it predicts, with its standard deviation,
// and the values it would be sure of nearby, a range at a time, each told by its cheapest explanation.
func (w Words) describeRegression(pred0 engine.Uncertainty, exps []Explanation, s Summary, p Params) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The model predicts %s", w.Prediction(*pred0.Mean, pred0.Total))
	if float64(pred0.Total) <= p.HThreshold {
		fmt.Fprintf(&b, "; it is already sure (± %s or less), so the explanations are near copies of the %s.", Figure(p.HThreshold), w.noun())
	} else {
		fmt.Fprintf(&b, " (sure is ± %s or less).", Figure(p.HThreshold))
	}
	if s.Accepted == 0 {
		return b.String() + w.NoneSure(exps, s, p, "a larger δ or a higher threshold")
	}
	parts := w.SureOf(exps, s, func(Explanation) string { return "" })
	fmt.Fprintf(&b, " Nearby, it would be sure of %s.", plural.Or(parts))
	return b.String()
}

// SureOf lists, a range at a time in the order of the label distribution, the value the cheapest sure
// explanation of each range predicts, its σ, how it differs (how, "" for nothing: a row's changes), the restarts
// that reach the range and the cheapest's distance: "41.3 MPa (± 2.8) if …  (12 of 100 restarts, at d 1.3)".
func (w Words) SureOf(exps []Explanation, s Summary, how func(Explanation) string) []string {
	var parts []string
	for _, l := range SaidLabels(exps, s) {
		e := exps[l.Cheapest]
		if e.Mean == nil {
			continue
		}
		part := fmt.Sprintf("%s (± %s)", w.Value(*e.Mean), Figure(float64(e.HTotal)))
		if h := how(e); h != "" {
			part += " if " + h
		}
		part += fmt.Sprintf(" (%s", plural.Of(s.LabelCounts[l.Label], s.Restarts, "restart"))
		if l.Label < len(s.Modes) && s.Modes[l.Label] > 1 {
			part += fmt.Sprintf(" in %d forms", s.Modes[l.Label])
		}
		parts = append(parts, part+fmt.Sprintf(", at d %.1f)", e.Distance))
	}
	return parts
}

// SaidLabel is a label the set reaches and the index of its cheapest accepted explanation (the one its first
// mode card shows and its p(y) comes from).
type SaidLabel struct{ Label, Cheapest int }

// SaidLabels are the labels the accepted explanations reach, in the order of the label distribution p(y)
// (highest first), as Describe orders them.
func SaidLabels(exps []Explanation, s Summary) []SaidLabel {
	cheapest := make([]int, len(s.LabelCounts))
	for c := range cheapest {
		cheapest[c] = -1
	}
	for i, e := range exps {
		if !e.Accepted || e.Mode < 0 || e.Label < 0 || e.Label >= len(cheapest) {
			continue
		}
		if k := cheapest[e.Label]; k < 0 || e.Cost < exps[k].Cost || (e.Cost == exps[k].Cost && e.Restart < exps[k].Restart) {
			cheapest[e.Label] = i
		}
	}
	var out []SaidLabel
	for c, k := range cheapest {
		if k >= 0 {
			out = append(out, SaidLabel{c, k})
		}
	}
	for i := 1; i < len(out); i++ { // stable, by p(y) descending
		for j := i; j > 0 && s.LabelDistribution[out[j].Label] > s.LabelDistribution[out[j-1].Label]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// sure is the regression's τ.
func (w Words) sure() float64 { return w.Regression.Sure }

// describeReachesRegression is DescribeReaches for a predictor of a number: at which radius it can first be
// sure of a value in each range, and of which value: "Up to δ = 4: it can be sure within ± 2.4 MPa at δ = 1.5,
// predicting 41.3 MPa (40–50 MPa); ± 2.9 at δ = 3, predicting 31 MPa (30–40 MPa); no other range appears (2 of 6)."
func (w Words) describeReachesRegression(reaches []Reach, l Ladder) string {
	var parts []string
	for i, r := range reaches {
		e := r.Explanation
		if e.Mean == nil {
			continue
		}
		within := "± " + Figure(float64(e.HTotal))
		if i == 0 {
			within = "it can be sure within ± " + Figure(float64(e.HTotal))
			if w.Regression.Unit != "" {
				within += " " + w.Regression.Unit
			}
		}
		parts = append(parts, fmt.Sprintf("%s at δ = %s, predicting %s (%s)", within, strconv.FormatFloat(r.Delta, 'g', -1, 64), w.Value(*e.Mean), w.Class(r.Label)))
	}
	s := fmt.Sprintf("Up to δ = %g: %s", l.Radii[len(l.Radii)-1], strings.Join(parts, "; "))
	if n, k := len(parts), w.classes(); n < k {
		s += fmt.Sprintf("; no other range appears (%d of %d)", n, k)
	}
	return s + "."
}
