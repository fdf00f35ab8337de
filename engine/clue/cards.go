package clue

import (
	"fmt"
	"sort"
	"strings"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/weights"
)

// ModeCard is one way the set reads the input: a mode (cluster) within a label, shown by its representative.
type ModeCard struct {
	Label          int     `json:"label"`
	Mode           int     `json:"mode"`           // the mode's index within its label
	Representative int     `json:"representative"` // restart of the mode's lowest-cost member
	Count          int     `json:"count"`          // restarts that landed in the mode: its members and their duplicates
	HTotal         float32 `json:"h_total"`        // of the representative
	Distance       float32 `json:"distance"`       // of the representative
	Cost           float32 `json:"cost"`           // of the representative
	P              float64 `json:"p"`              // the label's share of the label distribution p(y)
	Form           int     `json:"form"`           // 1, 2, … in the cards' order within the label
	Forms          int     `json:"forms"`          // the label's number of modes
	// Mean is a regression's predictive mean on the representative (nil for a classifier).
	Mean *float32 `json:"mean,omitempty"`
}

// FormText names the card's mode within its label ("form 2 of 3"), or is empty when the label has one mode.
func (c ModeCard) FormText() string {
	if c.Forms <= 1 {
		return ""
	}
	return fmt.Sprintf("form %d of %d", c.Form, c.Forms)
}

// Sentence says in one sentence what the card shows, for a screen reader; restarts is the set's size.
func (c ModeCard) Sentence(restarts int) string { return Words{}.CardSentence(c, restarts) }

// CardSentence is ModeCard.Sentence in these words.
func (w Words) CardSentence(c ModeCard, restarts int) string {
	what := w.A(c.Label)
	what = strings.ToUpper(what[:1]) + what[1:]
	if f := c.FormText(); f != "" {
		what += ", " + f + ","
	}
	return fmt.Sprintf("%s reached by %s (p(y) %.2f); its cheapest explanation, shown, has H %.2f and d %.1f.",
		what, plural.Of(c.Count, restarts, "restart"), c.P, c.HTotal, c.Distance)
}

// ModeCards groups the accepted explanations by mode, after Summarize marked their modes and duplicates: one
// card per mode, grouped by label in the order of the label distribution p(y) ∝ 1/cost_min(y)² (highest
// first), and within a label the most visited mode first (ties: the cheaper representative), numbered as
// forms 1, 2, … in that order. A duplicate counts in the mode of the explanation it duplicates.
func ModeCards(exps []Explanation, s Summary) []ModeCard {
	byRestart := map[int]int{}
	for i, e := range exps {
		byRestart[e.Restart] = i
	}
	type key struct{ label, mode int }
	cards := map[key]*ModeCard{}
	var order []key
	for _, e := range exps {
		if !e.Accepted || e.Mode < 0 {
			continue
		}
		k := key{e.Label, e.Mode}
		c := cards[k]
		if c == nil {
			c = &ModeCard{Label: e.Label, Mode: e.Mode, Representative: e.Restart, HTotal: e.HTotal, Distance: e.Distance, Cost: e.Cost, Mean: e.Mean}
			if e.Label < len(s.LabelDistribution) {
				c.P = s.LabelDistribution[e.Label]
			}
			cards[k] = c
			order = append(order, k)
		} else if e.Cost < c.Cost || (e.Cost == c.Cost && e.Restart < c.Representative) {
			c.Representative, c.HTotal, c.Distance, c.Cost, c.Mean = e.Restart, e.HTotal, e.Distance, e.Cost, e.Mean
		}
		c.Count++
	}
	for _, e := range exps {
		if !e.Accepted || e.DuplicateOf < 0 {
			continue
		}
		if i, ok := byRestart[e.DuplicateOf]; ok {
			if c := cards[key{exps[i].Label, exps[i].Mode}]; c != nil {
				c.Count++
			}
		}
	}
	out := make([]ModeCard, 0, len(order))
	for _, k := range order {
		out = append(out, *cards[k])
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		switch {
		case x.P != y.P:
			return x.P > y.P
		case x.Label != y.Label:
			return x.Label < y.Label
		case x.Count != y.Count:
			return x.Count > y.Count
		}
		return x.Cost < y.Cost
	})
	for i := range out {
		if i > 0 && out[i-1].Label == out[i].Label {
			out[i].Form = out[i-1].Form + 1
		} else {
			out[i].Form = 1
		}
		if out[i].Label < len(s.Modes) {
			out[i].Forms = s.Modes[out[i].Label]
		}
	}
	return out
}

// Describe says in plain words what the set shows: what the model reads, and which confident readings lie
// nearby with how many restarts found each and how far the cheapest explanation of each is (the one its card
// shows; the closest may be another, costlier one). exps are the set's explanations (after
// Summarize), pred0 the model on x0.
func Describe(pred0 engine.Uncertainty, exps []Explanation, s Summary, p Params) string {
	return Words{}.Describe(pred0, exps, s, p)
}

// NoneSure is what Describe says of a set with no sure explanation: that every restart failed, or that none
// reached an input the model is sure of within δ, and what to try (try: "a larger δ or a higher threshold");
// "" for an empty set.
func (w Words) NoneSure(exps []Explanation, s Summary, p Params, try string) string {
	if s.Restarts > 0 && s.Failed == s.Restarts {
		return fmt.Sprintf(" Every restart failed (its cost became NaN or infinite): try a smaller learning rate than %g.", p.LearningRate)
	}
	if len(exps) == 0 {
		return ""
	}
	if !weights.RegressionLeftOut && w.Regression != nil {
		return fmt.Sprintf(" Within δ = %g no restart reached %s the model is sure of (± %s or less): try %s.", p.Delta, w.AnInput(), Figure(p.HThreshold), try)
	}
	return fmt.Sprintf(" Within δ = %g no restart reached %s the model is sure of (H below %g): try %s.", p.Delta, w.AnInput(), p.HThreshold, try)
}

// Describe is the package's Describe in these words.
func (w Words) Describe(pred0 engine.Uncertainty, exps []Explanation, s Summary, p Params) string {
	if !weights.RegressionLeftOut && w.Regression != nil && pred0.Mean != nil {
		return w.describeRegression(pred0, exps, s, p)
	}
	label0 := pred0.Label()
	var b strings.Builder
	fmt.Fprintf(&b, "The model reads %s (p %.2f, H %.2f nats).", w.A(label0), pred0.Probs[label0], pred0.Total)
	if float64(pred0.Total) < p.HThreshold {
		fmt.Fprintf(&b, " It is already sure (H is below the threshold %g), so the explanations are near copies of the %s.", p.HThreshold, w.noun())
	}
	if s.Accepted == 0 {
		return b.String() + w.NoneSure(exps, s, p, "a larger δ or a higher threshold")
	}
	// Each label is told by its cheapest explanation: the one its first card shows, and the one its p(y) comes from.
	cheapest := make([]int, len(s.LabelCounts))
	for c := range cheapest {
		cheapest[c] = -1
	}
	for i, e := range exps {
		if !e.Accepted || e.Mode < 0 {
			continue
		}
		if k := cheapest[e.Label]; k < 0 || e.Cost < exps[k].Cost || (e.Cost == exps[k].Cost && e.Restart < exps[k].Restart) {
			cheapest[e.Label] = i
		}
	}
	var labels []int
	for c, n := range s.LabelCounts {
		if n > 0 {
			labels = append(labels, c)
		}
	}
	sort.SliceStable(labels, func(a, c int) bool {
		return s.LabelDistribution[labels[a]] > s.LabelDistribution[labels[c]]
	})
	parts := make([]string, len(labels))
	for i, c := range labels {
		parts[i] = fmt.Sprintf("%s (%s", w.A(c), plural.Of(s.LabelCounts[c], s.Restarts, "restart"))
		if c < len(s.Modes) && s.Modes[c] > 1 {
			parts[i] += fmt.Sprintf(" in %d forms", s.Modes[c])
		}
		if k := cheapest[c]; k >= 0 {
			what := "the cheapest"
			if i > 0 {
				what = "cheapest"
			}
			parts[i] += fmt.Sprintf(", %s at d %.1f", what, exps[k].Distance)
		}
		parts[i] += ")"
	}
	list := parts[0]
	if len(parts) > 1 {
		list = strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
	}
	fmt.Fprintf(&b, " Nearby, it would be sure of %s.", list)
	return b.String()
}
