//go:build !imagesonly && !denseonly

package app

// A predictor of a number in the model's view: its prediction with its band (μ ± σ, the sure band ± τ beside
// it) drawn by the page as SVG, and its standard deviation's parts in the target's unit. Left out of the page
// built for classifiers of images (regression_imagesonly.go).

import (
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// regressionView is the model's view of a regression's input: nil for a classifier.
func regressionView(in *searchworker.Inspection, threshold float64) app.UI {
	m := served()
	p := in.Prediction
	if m.regression == nil || p.Mean == nil {
		return nil
	}
	w, r := m.words(), m.regression
	recon := "—"
	if q := in.Reconstructed; q.Mean != nil {
		recon = w.Prediction(*q.Mean, q.Total)
	}
	sure := app.If(float64(p.Total) <= threshold, func() app.UI {
		return app.P().ID("sure-note").Class("banner").Text(fmt.Sprintf("The model is already sure of this %s: σ = %s %s is within the threshold of ± %s. "+
			"There is little to explain: δ-CLUE will show near copies of it. Explain still works; a higher threshold or a larger δ shows other values.",
			m.noun(), clue.Figure(float64(p.Total)), r.Unit, clue.Figure(threshold)))
	})
	return app.Div().ID("model-view").Body(
		app.P().Body(app.Text(fmt.Sprintf("It predicts %s ", r.Target)), app.Strong().ID("pred-label").Text(w.Prediction(*p.Mean, p.Total)),
			app.Text(fmt.Sprintf(" (%s %s; its most probable range %s).", "sure is ± "+clue.Figure(threshold), "or less", m.class(argmax(p.Probs))))),
		app.Raw(bandSVG("pred-band", *p.Mean, p.Total, threshold)),
		bars("pred-bars", p.Probs, "p"),
		app.Table().Class("numbers").Body(
			row("predictive σ", "± "+w.Value(p.Total)),
			row("aleatoric (data noise)", "± "+w.Value(p.Aleatoric)),
			row("epistemic (model ignorance)", "± "+w.Value(p.Epistemic)),
			row("on its reconstruction", recon),
		),
		sure,
	)
}

// bandSVG draws a prediction on the target's span (the description's first and last range edges): the mean as a
// mark, μ ± σ as a band, and ± τ around it as the width "sure" would be, with the span's ends and the ranges'
// edges as ticks; its title says it in words, so colour is never all it has.
func bandSVG(id string, mean, sigma float32, tau float64) string {
	r := served().regression
	lo, hi := r.Ranges[0], r.Ranges[len(r.Ranges)-1]
	const w, h, pad = 320.0, 44.0, 10.0
	x := func(v float64) float64 { return pad + (min(max(v, lo), hi)-lo)/(hi-lo)*(w-2*pad) }
	mu, s := float64(mean), float64(sigma)
	words := served().words()
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="%s" class="band" viewBox="0 0 %g %g" width="100%%" role="img" aria-label="%s" style="max-width:%gpx">`, id, w, h,
		figures.Escape(fmt.Sprintf("predicted %s, band from %s to %s; sure would be ± %s", words.Prediction(mean, sigma),
			clue.Figure(mu-s), clue.Figure(mu+s), clue.Figure(tau))), w)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="22" x2="%.1f" y2="22" stroke="#9ca3af"/>`, x(lo), x(hi))
	for _, e := range r.Ranges {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="17" x2="%.1f" y2="27" stroke="#9ca3af"/><text x="%.1f" y="40" font-size="9" text-anchor="middle" fill="#4b5563">%s</text>`,
			x(e), x(e), x(e), clue.Figure(e))
	}
	fmt.Fprintf(&b, `<rect x="%.1f" y="15" width="%.1f" height="14" fill="none" stroke="#059669" stroke-dasharray="3 2"><title>sure: ± %s</title></rect>`,
		x(mu-tau), max(x(mu+tau)-x(mu-tau), 1), clue.Figure(tau))
	fmt.Fprintf(&b, `<rect x="%.1f" y="17" width="%.1f" height="10" fill="#2563eb" fill-opacity="0.35"><title>μ ± σ</title></rect>`,
		x(mu-s), max(x(mu+s)-x(mu-s), 1))
	fmt.Fprintf(&b, `<line x1="%.1f" y1="12" x2="%.1f" y2="32" stroke="#1d4ed8" stroke-width="2"/><text x="%.1f" y="10" font-size="10" text-anchor="middle" fill="#111">%s</text>`,
		x(mu), x(mu), x(mu), figures.Escape(words.Value(mean)))
	b.WriteString(`</svg>`)
	return b.String()
}

// explanationBand is an explanation's prediction drawn as the model's view draws the input's (bandSVG), for its
// card and its detail: its mean, μ ± σ, and the width sure would be at the run's threshold.
func explanationBand(id string, mean *float32, sigma float32, threshold float64) app.UI {
	return app.Raw(`<div class="card-band">` + bandSVG(id, *mean, sigma, threshold) + `</div>`)
}

// uncertaintyText is a result's uncertainty on the cards: "H 0.24", or a regression's "41.3 MPa ± 2.38".
func uncertaintyText(mean *float32, h float32) string { return served().words().UncertaintyOf(mean, h) }
