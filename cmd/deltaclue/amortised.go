package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
)

// amortisedAnswers answers the problem's image with the shipped translations towards each plausible label
// (p̄ ≥ 0.05), timing each, next to the searched set's cheapest accepted explanation of that label.
func amortisedAnswers(prob *clue.Problem, p clue.Params, exps []clue.Explanation) ([]glam.Reported, error) {
	ts, err := glam.Shipped()
	if err != nil {
		return nil, err
	}
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
	return out, nil
}

// amortisedLine says the amortised answers in a line.
func amortisedLine(as []glam.Reported) string {
	if len(as) == 0 {
		return "GLAM-CLUE: no translation from this label towards a plausible one"
	}
	var parts []string
	for _, a := range as {
		s := fmt.Sprintf("%d→%d ", a.From, a.To)
		if a.Sure {
			s += fmt.Sprintf("sure (H %.2f) at k = %g, d %.1f", a.HTotal, a.K, a.Distance)
		} else {
			s += fmt.Sprintf("not sure (reads %d, H %.2f) even at k = %g", a.Label, a.HTotal, a.K)
		}
		if a.SearchFound {
			s += fmt.Sprintf(" (searched: d %.1f)", a.SearchDistance)
		}
		parts = append(parts, s+fmt.Sprintf(", %.1f ms", a.Milliseconds))
	}
	return "GLAM-CLUE, amortised: " + strings.Join(parts, "; ")
}
