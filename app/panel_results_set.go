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

// renderSet is the set's measures: its label distribution, the set's figures, CARLA's measures. It is one
// piece of raw HTML, not go-app elements: it has no controls, and go-app mounts its elements one JavaScript call
// at a time (about 130 of them, a large part of the page's longest task when a set's first summary came), while
// the browser parses the HTML in one. A new summary replaces it whole, as cheaply.
func renderSet(s clue.Summary, f setFacts) app.UI {
	dist := make([]float32, len(s.LabelDistribution))
	for k, v := range s.LabelDistribution {
		dist[k] = float32(v)
	}
	r := s.Recourse
	var modes []string
	for k, m := range s.Modes {
		if m > 0 {
			modes = append(modes, fmt.Sprintf("%s: %d", served().class(k), m))
		}
	}
	var h htmlText
	h.open("div", "id", "summary", "class", "summary")
	h.open("div")
	h.elem("h3", "Label distribution")
	h.elem("p", "p(y) ∝ 1 / (lowest cost among the explanations labelled y)², as in the paper's appendix E.", "class", "hint")
	barsHTML(&h, "label-bars", dist, "p")
	h.close("div")
	h.open("div")
	h.elem("h3", "The set")
	h.open("table", "class", "numbers")
	sparsity := [][2]string{}
	if sp := s.Sparsity; sp != nil { // a row's: how many features an explanation changes
		sparsity = append(sparsity, [2]string{"features changed min / mean / max", fmt.Sprintf("%.0f / %.1f / %.0f", sp.Min, sp.Mean, sp.Max)})
	}
	if gb := s.GivenBack; gb != nil { // and how many more the search moved, given back (Search settings)
		sparsity = append(sparsity, [2]string{"changes given back min / mean / max", fmt.Sprintf("%.0f / %.1f / %.0f", gb.Min, gb.Mean, gb.Max)})
	}
	for _, kv := range append([][2]string{
		{"accepted", fmt.Sprintf("%d of %d (%s, %d failed)", s.Accepted, s.Restarts, plural.Count(s.Duplicates, "duplicate"), s.Failed)},
		{"labels", fmt.Sprintf("%d distinct: %s", s.DistinctLabels, countsText(s.LabelCounts))},
		{"label entropy", fmt.Sprintf("%.3f nats (%.2f of the maximum)", s.LabelEntropy, s.LabelEntropyNorm)},
		{served().uncertaintyName() + " min / mean / max", fmt.Sprintf("%.3f / %.3f / %.3f", s.H.Min, s.H.Mean, s.H.Max)},
		{"d min / mean / max", fmt.Sprintf("%.1f / %.1f / %.1f", s.D.Min, s.D.Mean, s.D.Max)},
		{"on the shell", fmt.Sprintf("%.0f %%", 100*s.ShellFraction)},
		{"DPP (input / latent)", fmt.Sprintf("%.3g / %.3g", s.Input.DPP, s.Latent.DPP)},
		{"coverage (input / latent)", fmt.Sprintf("%.3f / %.3f", s.Input.Coverage, s.Latent.Coverage)},
		{"prediction coverage", fmt.Sprintf("%.3f", s.PredictionCoverage)},
		{"modes within labels", strings.Join(modes, ", ")},
	}, sparsity...) {
		h.open("tr")
		h.elem("th", kv[0])
		h.elem("td", kv[1])
		h.close("tr")
	}
	h.close("table")
	h.close("div")
	h.open("div", "id", "recourse")
	h.elem("h3", "In the recourse benchmark's terms (CARLA)")
	recourseTable(&h, r, f.CARLA, f.PerExplanation)
	h.elem("p", "δ-CLUE's adaptation counts an explanation as valid when the model is sure of it "+
		"("+served().uncertaintyName()+" below the threshold), even if it keeps x0's label, and measures the accepted ones; CARLA's own code "+
		"counts one as valid when the model's label changed, and measures those. L0: changed by more than "+
		fmt.Sprint(clue.ChangedPixel)+" against CARLA's 1e-5; L2: the root against CARLA's sum of squares; yNN: "+
		"nearest training codes in latent space with their true labels against nearest data in input space "+
		"with the model's labels. The formulas are in docs/measures.md of the source.", "class", "hint")
	h.close("div")
	h.close("div")
	return app.Raw(h.String())
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
func recourseTable(h *htmlText, r clue.Recourse, c clue.CARLA, perExplanation string) {
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
	line := func(measure, a, b string) {
		h.open("tr")
		h.elem("th", measure, "scope", "row")
		h.elem("td", a)
		h.elem("td", b)
		h.close("tr")
	}
	ynnExact := "— (needs the dataset: deltaclue explain in the CLI gives it)"
	if c.YNN >= 0 {
		ynnExact = fmt.Sprintf("%.2f", c.YNN)
	}
	h.open("table", "id", "recourse-table", "class", "numbers")
	h.open("thead")
	h.open("tr")
	h.elem("th", "mean", "scope", "col")
	h.elem("th", "δ-CLUE's", "scope", "col")
	h.elem("th", "CARLA's", "scope", "col")
	h.close("tr")
	h.close("thead")
	h.open("tbody")
	line("validity", fmt.Sprintf("%.2f: sure (accepted)", r.Validity), fmt.Sprintf("%.2f: label changed (%d)", c.Validity, c.Valid))
	line("L0 "+l0Unit(), ours("%.1f (> 0.1)", r.L0.Mean), exact("%.1f (> 1e-5)", c.L0.Mean))
	line("L1", ours("%.2f", r.L1.Mean), exact("%.2f", c.L1.Mean))
	line("L2", ours("%.3f (√Σ)", r.L2.Mean), exact("%.2f (Σ squares)", c.L2.Mean))
	line("yNN (k = "+fmt.Sprint(clue.NeighboursK)+")", ynnText(r.YNN), ynnExact)
	h.open("tr")
	h.elem("th", "time per explanation", "scope", "row")
	h.elem("td", perExplanation, "colspan", "2")
	h.close("tr")
	h.close("tbody")
	h.close("table")
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
			parts = append(parts, fmt.Sprintf("%d×%s", n, served().class(k)))
		}
	}
	return strings.Join(parts, ", ")
}

// l0Unit is what CARLA's L0 counts: an image's pixels, or a row's values as the networks read them (a category
// one-hot, so that changing it counts two).
func l0Unit() string {
	if served().IsTable() {
		return "values"
	}
	return "pixels"
}
