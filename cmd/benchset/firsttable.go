//go:build !js

package main

// The first minute's tables: Chromium's rows per build side by side (with the ratio of this tree to the
// base), and the engines' cold link side by side (with the ratio to the first engine). Every cell is the
// median [min–max] over the runs; a phase the page does not publish is blank.

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// firstRow is one line of a first-minute table: a label, the configuration it reads and how it reads a
// sample (NaN for nothing), and its precision (0: ms; 2: a ratio).
type firstRow struct {
	label string
	cfg   string
	get   func(FirstSample) float64
	prec  int
}

// phase reads a visit's phase, NaN when missing.
func phase(v *Visit, key string) float64 {
	if v == nil {
		return math.NaN()
	}
	if t, ok := v.Phases[key]; ok {
		return t
	}
	return math.NaN()
}

// phaseKeys is every phase the samples of a configuration have, in the table's order.
func phaseKeys(samples []FirstSample, cfg string, visit func(FirstSample) *Visit) []string {
	var keys []string
	for _, s := range samples {
		if v := visit(s); s.Config == cfg && v != nil {
			for k := range v.Phases {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	return phaseOrder(keys)
}

// firstRows are the rows of the first minute's table, the phases those the samples hold.
func firstRows(samples []FirstSample) []firstRow {
	cold := func(s FirstSample) *Visit { return s.Cold }
	second := func(s FirstSample) *Visit { return s.Second }
	phases := func(cfg string, visit func(FirstSample) *Visit) []firstRow {
		var rows []firstRow
		for _, k := range phaseKeys(samples, cfg, visit) {
			if k == phShown {
				continue // the row's head
			}
			rows = append(rows, firstRow{"    " + k, cfg, func(s FirstSample) float64 { return phase(visit(s), k) }, 0})
		}
		return rows
	}
	elapsed := func(s FirstSample) float64 {
		if s.Cold == nil {
			return math.NaN()
		}
		return s.Cold.ElapsedMs
	}
	againMs := func(s FirstSample) float64 {
		if s.AgainMs == 0 {
			return math.NaN()
		}
		return s.AgainMs
	}
	ratio := func(s FirstSample) float64 {
		if s.Cold == nil || s.AgainMs == 0 {
			return math.NaN()
		}
		return s.Cold.ElapsedMs / s.AgainMs
	}
	warm := func(s FirstSample) float64 { // the later half of the searches clicked again: tiered up
		if len(s.WarmMs) < warmSearches {
			return math.NaN()
		}
		later := slices.Clone(s.WarmMs[warmSearches/2:])
		slices.Sort(later)
		return later[len(later)/2]
	}
	onScreen := func(v func(FirstSample) *Visit) func(FirstSample) float64 {
		return func(s FirstSample) float64 { return v(s).onScreen() }
	}
	var rows []firstRow
	rows = append(rows, firstRow{"default link, cold → set on screen", fLink, onScreen(cold), 0})
	rows = append(rows, phases(fLink, cold)...)
	rows = append(rows,
		firstRow{"  the link's search (first in the page)", fLink, elapsed, 0},
		firstRow{"  the same search clicked again", fLink, againMs, 0},
		firstRow{"  first ÷ again", fLink, ratio, 2},
		firstRow{"second visit (same profile) → set on screen", fLink, onScreen(second), 0})
	rows = append(rows, phases(fLink, second)...)
	rows = append(rows, firstRow{"Fashion link, cold → set on screen", fFashion, onScreen(cold), 0})
	rows = append(rows, phases(fFashion, cold)...)
	rows = append(rows,
		firstRow{"  the link's search (first in the page)", fFashion, elapsed, 0},
		firstRow{"  the same search clicked again", fFashion, againMs, 0},
		firstRow{"  first ÷ again", fFashion, ratio, 2})
	rows = append(rows,
		firstRow{"no-early-stop link: its search, first in page", fNoStop, elapsed, 0},
		firstRow{"  the same search clicked again", fNoStop, againMs, 0},
		firstRow{"  first ÷ again", fNoStop, ratio, 2},
		firstRow{"credit link (100 × 100 steps on a row): its search, first in page", fCredit, elapsed, 0},
		firstRow{"  the same search clicked again", fCredit, againMs, 0},
		firstRow{"  first ÷ again", fCredit, ratio, 2},
		firstRow{"  warm: p50 of the 6th to 10th search", fCredit, warm, 0},
		firstRow{"concrete link (100 × 100 steps, a regression): its search, first in page", fConcrete, elapsed, 0},
		firstRow{"  the same search clicked again", fConcrete, againMs, 0},
		firstRow{"  first ÷ again", fConcrete, ratio, 2},
		firstRow{"  warm: p50 of the 6th to 10th search", fConcrete, warm, 0},
		firstRow{"cold load, gallery digit: first Explain", fExplain, elapsed, 0},
		firstRow{"  Explain clicked again", fExplain, againMs, 0},
		firstRow{"  first ÷ again", fExplain, ratio, 2},
		firstRow{"phone (CPU ÷4, 390×844): link → set on screen", fPhone, onScreen(cold), 0})
	rows = append(rows, phases(fPhone, cold)...)
	rows = append(rows,
		firstRow{"  the link's search", fPhone, elapsed, 0},
		firstRow{"live preview: pen-up → on screen, p50 of later strokes", fPreview, laterStrokes(penUpToShown, 0.5), 0},
		firstRow{"  the page's first preview (pen-up → on screen)", fPreview, firstStroke(penUpToShown), 0},
		firstRow{"  the page's previewMs (pen-up → done), p50 of all", fPreview, func(s FirstSample) float64 {
			if len(s.PreviewMs) == 0 {
				return math.NaN()
			}
			return quantile(s.PreviewMs, 0.5)
		}, 0},
		firstRow{"amortised answers: pen-up → in the page, p50 of later strokes", fPreview, laterStrokes(amortisedInPage, 0.5), 1},
		firstRow{"  the same, slowest of later strokes", fPreview, laterStrokes(amortisedInPage, 1), 1},
		firstRow{"  pen-up → the frame that shows them, p50 of later strokes", fPreview, laterStrokes(func(s FirstSample) []float64 { return s.AmortisedFrameMs }, 0.5), 1},
		firstRow{"  the worker's time making them, p50 of later strokes", fPreview, laterStrokes(func(s FirstSample) []float64 { return s.AmortisedWorkerMs }, 0.5), 1},
		firstRow{"  the page's first stroke: pen-up → in the page", fPreview, firstStroke(amortisedInPage), 1},
	)
	return rows
}

// cellOf is a table cell for the values xs, median [min–max] at the given precision, noting failed runs; and
// the median (NaN for none).
func cellOf(xs []float64, fails, prec int) (string, float64) {
	if len(xs) == 0 {
		if fails > 0 {
			return fmt.Sprintf("%d failed", fails), math.NaN()
		}
		return "", math.NaN()
	}
	st := statOf(xs)
	c := fmt.Sprintf("%.*f [%.*f–%.*f]", prec, st.med, prec, st.lo, prec, st.hi)
	if fails > 0 {
		c += fmt.Sprintf(" (%d failed)", fails)
	}
	return c, st.med
}

// firstValues picks a row's number from every good sample of a configuration by one build or engine.
func firstValues(samples []FirstSample, r firstRow, who func(FirstSample) string, name string) (xs []float64, fails int) {
	for _, s := range samples {
		if s.Config != r.cfg || who(s) != name {
			continue
		}
		if s.Error != "" {
			fails++
			continue
		}
		if v := r.get(s); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	return xs, fails
}

// printTable prints rows with one column per name, each cell read by firstValues; with ratio, a last column
// of the last column's median over the first's (with two columns or more).
func printTable(w io.Writer, samples []FirstSample, rows []firstRow, who func(FirstSample) string, names []string, ratio string) {
	const labelW, cellW = 52, 30
	if len(names) < 2 {
		ratio = ""
	}
	fmt.Fprintf(w, "%-*s", labelW, "")
	for _, n := range names {
		fmt.Fprintf(w, " %*s", cellW, n)
	}
	if ratio != "" {
		fmt.Fprintf(w, " %9s", ratio)
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		line := fmt.Sprintf("%-*s", labelW, r.label)
		var meds []float64
		for _, n := range names {
			xs, fails := firstValues(samples, r, who, n)
			c, med := cellOf(xs, fails, r.prec)
			meds = append(meds, med)
			line += fmt.Sprintf(" %*s", cellW, c)
		}
		if ratio != "" {
			if a, b := meds[0], meds[len(meds)-1]; !math.IsNaN(a) && !math.IsNaN(b) && a != 0 {
				line += fmt.Sprintf(" %9.2f", b/a)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// printFirst prints the first minute's Chromium table, when it ran.
func printFirst(w io.Writer, rep *Report, builds []*build) {
	var samples []FirstSample
	for _, s := range rep.First {
		if s.Engine == "" {
			samples = append(samples, s)
		}
	}
	if len(samples) == 0 {
		return
	}
	fmt.Fprintf(w, "the first minute: Chromium, 2 workers, a fresh browser context (cold cache, no service worker) per run, %d runs, interleaved;\n", rep.Runs)
	fmt.Fprintf(w, "the site served pre-compressed (gzip) under /repo/; digit %d; phases in ms since navigation on the page's clock; median [min–max]\n\n", rep.Digit)
	var names []string
	for _, b := range builds {
		names = append(names, b.Name)
	}
	ratio := ""
	if len(builds) == 2 {
		ratio = "this/base"
	}
	printTable(w, samples, firstRows(samples), func(s FirstSample) string { return s.Build }, names, ratio)
	fmt.Fprintln(w)
	for _, b := range builds {
		if line := fashionAgainstDigits(samples, b.Name); line != "" {
			fmt.Fprintf(w, "%s: %s\n", b.Name, line)
		}
	}
	fmt.Fprintln(w)
}

// FashionTarget is how much longer than the digits' a Fashion link may take, cold, to its set on screen (issue 30).
const FashionTarget = 1.25

// fashionAgainstDigits compares, for one build, the Fashion link's cold time to its set on screen with the digits'
// default link's, medians over the same run's rounds; "" when either is missing.
func fashionAgainstDigits(samples []FirstSample, build string) string {
	med := func(cfg string) (float64, int) {
		var xs []float64
		for _, s := range samples {
			if s.Config == cfg && s.Build == build && s.Error == "" && s.Cold != nil {
				if v := s.Cold.onScreen(); !math.IsNaN(v) {
					xs = append(xs, v)
				}
			}
		}
		if len(xs) == 0 {
			return math.NaN(), 0
		}
		return statOf(xs).med, len(xs)
	}
	f, nf := med(fFashion)
	d, nd := med(fLink)
	if nf == 0 || nd == 0 || d == 0 {
		return ""
	}
	verdict := "within"
	if f/d > FashionTarget {
		verdict = "OVER"
	}
	return fmt.Sprintf("a Fashion link cold → set on screen %.0f ms (median of %d), the digits' default link %.0f ms (of %d): ×%.2f, %s the target ×%.2f",
		f, nf, d, nd, f/d, verdict, FashionTarget)
}

// firstErrors summarises the failed first-minute runs of this tree.
func firstErrors(samples []FirstSample) string {
	n, first := 0, ""
	for _, s := range samples {
		if s.Error != "" && (s.Build == "this tree" || s.Engine != "") {
			if n == 0 {
				first = strings.Join(nonEmpty(s.Config, s.Build, s.Engine), ", ") + ": " + s.Error
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d first-minute runs failed; the first: %s", n, first)
}

// The live preview's stroke series.
func penUpToShown(s FirstSample) []float64    { return s.PenUpToShownMs }
func amortisedInPage(s FirstSample) []float64 { return s.AmortisedInPageMs }

// firstStroke is the page's first stroke of a stroke series (its code not yet optimised), NaN when there is none.
func firstStroke(of func(FirstSample) []float64) func(FirstSample) float64 {
	return func(s FirstSample) float64 {
		if xs := of(s); len(xs) > 0 {
			return xs[0]
		}
		return math.NaN()
	}
}

// laterStrokes is the q-quantile of a stroke series without the page's first stroke, NaN when there is none.
func laterStrokes(of func(FirstSample) []float64, q float64) func(FirstSample) float64 {
	return func(s FirstSample) float64 {
		if xs := of(s); len(xs) >= 2 {
			return quantile(xs[1:], q)
		}
		return math.NaN()
	}
}
