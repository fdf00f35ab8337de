package clue

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/weights"
)

// A δ sweep runs the same input and parameters over a ladder of radii, each radius a separate search with
// δ and n taken from the ladder (and the same seed), to show how the readings change as the ball grows.

// AtRadius returns the parameters of the ladder's i-th search.
func (l Ladder) AtRadius(p Params, i int) Params {
	p.Delta, p.N = l.Radii[i], l.N
	return p
}

// SweepStep is one radius of a sweep: its search's explanations and their summary.
type SweepStep struct {
	Delta        float64       `json:"delta"`
	Summary      Summary       `json:"summary"`
	Explanations []Explanation `json:"explanations"`
}

// Reach is how far a label is: the smallest radius of the ladder at which the search found an accepted
// explanation with that label, and the cheapest such explanation there.
type Reach struct {
	Label       int         `json:"label"`
	Delta       float64     `json:"delta"`
	Explanation Explanation `json:"explanation"`
}

// Reaches returns the reach of every label found anywhere in the sweep, nearest first (ties by label). The
// steps must be in increasing δ.
func Reaches(steps []SweepStep) []Reach {
	var out []Reach
	found := map[int]bool{}
	for _, st := range steps {
		best := map[int]int{}
		for i, e := range st.Explanations {
			if !e.Accepted || found[e.Label] {
				continue
			}
			if j, ok := best[e.Label]; !ok || e.Cost < st.Explanations[j].Cost {
				best[e.Label] = i
			}
		}
		var labels []int
		for c := range best {
			labels = append(labels, c)
		}
		sort.Ints(labels)
		for _, c := range labels {
			found[c] = true
			out = append(out, Reach{Label: c, Delta: st.Delta, Explanation: st.Explanations[best[c]]})
		}
	}
	return out
}

// DescribeReaches says how far each label is, in a sentence: "Within δ ≤ 4: a confident 9 is 1 away, a 4 is
// 1.5 away, an 8 needs 3; no other label appears." label0 is the model's reading of x0.
func DescribeReaches(reaches []Reach, l Ladder, label0 int) string {
	return Words{}.DescribeReaches(reaches, l, label0)
}

// DescribeReaches is the package's DescribeReaches in these words.
func (w Words) DescribeReaches(reaches []Reach, l Ladder, label0 int) string {
	if len(reaches) == 0 {
		return fmt.Sprintf("Up to δ = %g, no restart reached %s the model is sure of: try larger radii or a higher threshold.",
			l.Radii[len(l.Radii)-1], w.AnInput())
	}
	if !weights.RegressionLeftOut && w.Regression != nil {
		return w.describeReachesRegression(reaches, l)
	}
	parts := make([]string, len(reaches))
	for i, r := range reaches {
		what := w.A(r.Label)
		if i == 0 {
			what = "a confident " + strings.TrimPrefix(strings.TrimPrefix(what, "an "), "a ")
		}
		verb := "is " + strconv.FormatFloat(r.Delta, 'g', -1, 64) + " away"
		if i > 0 && r.Delta > reaches[0].Delta*1.5 {
			verb = "needs " + strconv.FormatFloat(r.Delta, 'g', -1, 64)
		}
		if r.Label == label0 {
			what += " (as the model reads it now)"
		}
		parts[i] = what + " " + verb
	}
	s := fmt.Sprintf("Up to δ = %g: %s", l.Radii[len(l.Radii)-1], strings.Join(parts, ", "))
	if n, k := len(reaches), w.classes(); n < k {
		verb := "do"
		if n == 1 {
			verb = "does"
		}
		s += fmt.Sprintf("; no other label appears (%d of %d %s)", n, k, verb)
	}
	return s + "."
}

// Sweep runs the ladder's searches in order natively and summarises each; onStep, if non-nil, receives each
// radius as it finishes. The explanations equal separate Searches with AtRadius's parameters.
func Sweep(ctx Stopper, prob *Problem, p Params, l Ladder, onStep func(SweepStep)) ([]SweepStep, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	var steps []SweepStep
	for i := range l.Radii {
		pi := l.AtRadius(p, i)
		exps, err := Search(ctx, prob, pi, nil, nil)
		if err != nil {
			return steps, err
		}
		st := SweepStep{Delta: pi.Delta, Explanations: exps,
			Summary: Summarize(prob.X0, prob.Z0, prob.models.BNN.Classes, pi, exps)}
		steps = append(steps, st)
		if onStep != nil {
			onStep(st)
		}
	}
	return steps, nil
}

// BestH is the lowest H among the accepted explanations of a summary, or NaN if none was accepted.
func (s Summary) BestH() float64 {
	if s.Accepted == 0 {
		return math.NaN()
	}
	return s.H.Min
}
