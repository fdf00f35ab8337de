package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/weights"
)

// amortisedAnswers answers the problem's image with the models' translations ts towards each plausible label
// (p̄ ≥ 0.05), timing each, next to the searched set's cheapest accepted explanation of that label.
func amortisedAnswers(prob *clue.Problem, ts []glam.Translation, p clue.Params, exps []clue.Explanation) []glam.Reported {
	from := prob.Pred0.Label()
	var out []glam.Reported
	for _, b := range glam.Plausible(prob.Pred0.Probs, glam.PlausibleMin) {
		start := time.Now()
		as := glam.Explain(prob.Models(), ts, prob.X0, prob.Z0, from, []int{b}, p.HThreshold)
		ms := float64(time.Since(start).Microseconds()) / 1000
		for _, a := range as {
			out = append(out, glam.Reported{From: a.From, To: a.To, Sure: a.Sure, K: a.K, Shift: a.Shift, Label: a.Label, HTotal: a.HTotal,
				Distance: a.Distance, Image: a.Image, Milliseconds: ms})
		}
	}
	glam.Compare(out, exps)
	return out
}

// amortisedLine says the amortised answers of m's models in a line.
func amortisedLine(as []glam.Reported, m *models) string {
	if len(m.translations) == 0 {
		return fmt.Sprintf("GLAM-CLUE: the %q models have no translations (%s), so there are no amortised answers", m.Name(), weights.BundleGlobal)
	}
	if len(as) == 0 {
		return "GLAM-CLUE: no translation from this label towards a plausible one"
	}
	var parts []string
	for _, a := range as {
		s := fmt.Sprintf("%s→%s ", m.class(a.From), m.class(a.To))
		if a.Sure {
			s += fmt.Sprintf("sure (H %.2f) at k = %g, d %.1f", a.HTotal, a.K, a.Distance)
		} else {
			s += fmt.Sprintf("not sure (reads %s, H %.2f) even at k = %g", m.class(a.Label), a.HTotal, a.K)
		}
		if a.SearchFound {
			s += fmt.Sprintf(" (searched: d %.1f)", a.SearchDistance)
		}
		parts = append(parts, s+fmt.Sprintf(", %.1f ms", a.Milliseconds))
	}
	return "GLAM-CLUE, amortised: " + strings.Join(parts, "; ")
}
