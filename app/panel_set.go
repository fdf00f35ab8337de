// The set's summary, inside the results panel: the label distribution and the set's metrics.

package app

import (
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/plural"
)

func (e *Explainer) renderSummary() app.UI {
	s := e.summary
	dist := make([]float32, len(s.LabelDistribution))
	for k, v := range s.LabelDistribution {
		dist[k] = float32(v)
	}
	r := s.Recourse
	perExplanation := "—"
	if e.elapsed > 0 && len(e.results) > 0 {
		perExplanation = fmt.Sprintf("%.1f ms (%s for %d on %s)", 1000*e.elapsed.Seconds()/float64(len(e.results)),
			fmtDuration(e.elapsed), len(e.results), plural.Count(e.runWorkers, "worker"))
	}
	var modes []string
	for k, m := range s.Modes {
		if m > 0 {
			modes = append(modes, fmt.Sprintf("%d: %d", k, m))
		}
	}
	return app.Div().ID("summary").Class("summary").Body(
		app.Div().Body(
			app.H3().Text("Label distribution"),
			app.P().Class("hint").Text("p(y) ∝ 1 / (lowest cost among the explanations labelled y)², as in the paper's appendix E."),
			bars("label-bars", dist, "p"),
		),
		app.Div().Body(
			app.H3().Text("The set"),
			app.Table().Class("numbers").Body(
				row("accepted", fmt.Sprintf("%d of %d (%s, %d failed)", s.Accepted, s.Restarts, plural.Count(s.Duplicates, "duplicate"), s.Failed)),
				row("labels", fmt.Sprintf("%d distinct: %s", s.DistinctLabels, countsText(s.LabelCounts))),
				row("label entropy", fmt.Sprintf("%.3f nats (%.2f of the maximum)", s.LabelEntropy, s.LabelEntropyNorm)),
				row("H min / mean / max", fmt.Sprintf("%.3f / %.3f / %.3f", s.H.Min, s.H.Mean, s.H.Max)),
				row("d min / mean / max", fmt.Sprintf("%.1f / %.1f / %.1f", s.D.Min, s.D.Mean, s.D.Max)),
				row("on the shell", fmt.Sprintf("%.0f %%", 100*s.ShellFraction)),
				row("DPP (input / latent)", fmt.Sprintf("%.3g / %.3g", s.Input.DPP, s.Latent.DPP)),
				row("coverage (input / latent)", fmt.Sprintf("%.3f / %.3f", s.Input.Coverage, s.Latent.Coverage)),
				row("prediction coverage", fmt.Sprintf("%.3f", s.PredictionCoverage)),
				row("modes within labels", strings.Join(modes, ", ")),
			),
		),
		app.Div().ID("recourse").Body(
			app.H3().Text("In the recourse benchmark's terms (CARLA)"),
			app.Table().Class("numbers").Body(
				row("validity", fmt.Sprintf("%.2f (accepted / restarts)", r.Validity)),
				row("proximity L0", fmt.Sprintf("%.1f pixels changed by more than %g (mean)", r.L0.Mean, clue.ChangedPixel)),
				row("proximity L1 / L2", fmt.Sprintf("%.1f / %.2f (mean)", r.L1.Mean, r.L2.Mean)),
				row("plausibility yNN", ynnText(r.YNN)),
				row("time per explanation", perExplanation),
			),
			app.P().Class("hint").Text("Over the accepted explanations. The formulas are in docs/measures.md of the source."),
		),
	)
}

func ynnText(v float64) string {
	if v < 0 {
		return "— (the models carry no training codes)"
	}
	return fmt.Sprintf("%.2f (of the %d training codes nearest each, the share with its label)", v, clue.NeighboursK)
}

func countsText(c []int) string {
	var parts []string
	for k, n := range c {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d×%d", n, k))
		}
	}
	return strings.Join(parts, ", ")
}
