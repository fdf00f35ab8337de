// The set's summary, inside the results panel: the label distribution and the set's metrics.

package app

import (
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// setFacts is what the set's measures show beyond its summary.
type setFacts struct {
	CARLA          clue.CARLA
	PerExplanation string // the time per explanation, in words
}

func (e *Explainer) setFacts() setFacts {
	f := setFacts{CARLA: e.carla(), PerExplanation: "—"}
	if e.set.elapsed > 0 && len(e.work.Run.Results) > 0 {
		f.PerExplanation = fmt.Sprintf("%.1f ms (%s for %d on %s)", 1000*e.set.elapsed.Seconds()/float64(len(e.work.Run.Results)),
			fmtDuration(e.set.elapsed), len(e.work.Run.Results), plural.Count(e.work.Run.Workers, "worker"))
	}
	return f
}

// renderSet is the set's measures: its label distribution, the set's figures, CARLA's measures.
func renderSet(s clue.Summary, f setFacts) app.UI {
	dist := make([]float32, len(s.LabelDistribution))
	for k, v := range s.LabelDistribution {
		dist[k] = float32(v)
	}
	r := s.Recourse
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
			recourseTable(r, f.CARLA, f.PerExplanation),
			app.P().Class("hint").Text("δ-CLUE's adaptation counts an explanation as valid when the model is sure of it "+
				"(H below the threshold), even if it keeps x0's label, and measures the accepted ones; CARLA's own code "+
				"counts one as valid when the model's label changed, and measures those. L0: changed by more than "+
				fmt.Sprint(clue.ChangedPixel)+" against CARLA's 1e-5; L2: the root against CARLA's sum of squares; yNN: "+
				"nearest training codes in latent space with their true labels against nearest data in input space "+
				"with the model's labels. The formulas are in docs/measures.md of the source."),
		),
	)
}

// carla is the results' recourse measures as CARLA's code defines them, but for yNN, which needs the dataset:
// made with the summary (see setSummary), not at every render of the page.
func (e *Explainer) carla() clue.CARLA {
	if e.in.Inspect == nil || e.set.carlaOf == nil {
		return clue.CARLA{YNN: -1}
	}
	return *e.set.carlaOf
}

// recourseTable shows each CARLA measure twice: as δ-CLUE adapts it, and as CARLA's code defines it.
func recourseTable(r clue.Recourse, c clue.CARLA, perExplanation string) app.UI {
	exact := func(format string, v float64) string {
		if c.Valid == 0 {
			return "— (no label changed)"
		}
		return fmt.Sprintf(format, v)
	}
	ours := func(format string, v float64) string {
		if r.Validity == 0 {
			return "— (none accepted)"
		}
		return fmt.Sprintf(format, v)
	}
	line := func(measure, a, b string) app.UI {
		return app.Tr().Body(app.Th().Scope("row").Text(measure), app.Td().Text(a), app.Td().Text(b))
	}
	ynnExact := "— (needs the dataset: deltaclue explain in the CLI gives it)"
	if c.YNN >= 0 {
		ynnExact = fmt.Sprintf("%.2f", c.YNN)
	}
	return app.Table().ID("recourse-table").Class("numbers").Body(
		app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("mean"), app.Th().Scope("col").Text("δ-CLUE's"),
			app.Th().Scope("col").Text("CARLA's"))),
		app.TBody().Body(
			line("validity", fmt.Sprintf("%.2f: sure (accepted)", r.Validity), fmt.Sprintf("%.2f: label changed (%d)", c.Validity, c.Valid)),
			line("L0 pixels", ours("%.1f (> 0.1)", r.L0.Mean), exact("%.1f (> 1e-5)", c.L0.Mean)),
			line("L1", ours("%.2f", r.L1.Mean), exact("%.2f", c.L1.Mean)),
			line("L2", ours("%.3f (√Σ)", r.L2.Mean), exact("%.2f (Σ squares)", c.L2.Mean)),
			line("yNN (k = "+fmt.Sprint(clue.NeighboursK)+")", ynnText(r.YNN), ynnExact),
			app.Tr().Body(app.Th().Scope("row").Text("time per explanation"), app.Td().ColSpan(2).Text(perExplanation)),
		),
	)
}

func ynnText(v float64) string {
	if v < 0 {
		return "— (the models carry no training codes)"
	}
	return fmt.Sprintf("%.2f (latent codes)", v)
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
