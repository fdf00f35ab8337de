package figures

import (
	"fmt"
	"slices"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// TradeoffOf is the trade-off chart of a set of explanations among the given number of classes: every one that
// did not fail, each label's Pareto front (clue.LabelFronts) and the H threshold. The page and the CLI draw
// the same chart with it.
func TradeoffOf(exps []clue.Explanation, classes int, threshold float64) TradeoffChart {
	byRestart := map[int]clue.Explanation{}
	var pts []TradeoffPoint
	distance := ""
	for _, e := range exps {
		byRestart[e.Restart] = e
		if e.Changed != nil { // a row's explanation (an image's has no columns to change)
			distance = "L1, standardised"
		}
		if e.Failed == "" {
			pts = append(pts, TradeoffPoint{Restart: e.Restart, Label: e.Label, D: float64(e.Distance), H: float64(e.HTotal), Accepted: e.Accepted})
		}
	}
	var fronts []Front
	for label, restarts := range clue.LabelFronts(exps, classes) {
		if len(restarts) == 0 {
			continue
		}
		f := Front{Label: label}
		for _, r := range restarts {
			f.D, f.H = append(f.D, float64(byRestart[r].Distance)), append(f.H, float64(byRestart[r].HTotal))
		}
		fronts = append(fronts, f)
	}
	sigma := slices.ContainsFunc(exps, func(e clue.Explanation) bool { return e.Mean != nil }) // a regression's
	return TradeoffChart{Points: pts, Fronts: fronts, Threshold: threshold, Selected: -1, Distance: distance, Sigma: sigma,
		Title: fmt.Sprintf("Uncertainty against distance (%s)", plural.Count(len(pts), "explanation"))}
}

// SweepOf is the sweep chart of a ladder whose radius i has finished when steps[i] is not nil (the page draws a
// sweep in progress; the CLI passes every step).
func SweepOf(l clue.Ladder, steps []*clue.SweepStep, threshold float64) SweepChart {
	rows := make([]SweepRow, len(l.Radii))
	for i, d := range l.Radii {
		rows[i] = SweepRow{Delta: d, Restarts: l.N}
		if st := steps[i]; st != nil {
			rows[i] = SweepRow{Delta: d, Dist: st.Summary.LabelDistribution, Distinct: st.Summary.DistinctLabels,
				BestH: st.Summary.BestH(), Accepted: st.Summary.Accepted, Restarts: st.Summary.Restarts, Done: true}
		}
	}
	return SweepChart{Rows: rows, Threshold: threshold, Title: fmt.Sprintf("What the model is sure of as δ grows (n = %d each)", l.N)}
}
