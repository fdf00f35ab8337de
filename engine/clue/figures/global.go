package figures

import (
	"fmt"
	"math"
	"strings"
)

// CoverageLine is one group's cost–coverage trade-off: as the scale k of its translation grows, the share of its
// members made sure of To (Coverage) and the mean L1 distance d of those answers (Cost), one point per k; with
// δ-CLUE's mean d on the same members (SearchCost, 0 when unknown) for comparison.
type CoverageLine struct {
	From, To       int
	Members        int
	K              []float64
	Coverage, Cost []float64
	SearchCost     float64
}

// CostCoverageChart is the input of CostCoverage.
type CostCoverageChart struct {
	Lines []CoverageLine
	Title string
}

// CostCoverage draws GLOBE-CE's cost–coverage curves (Ley, Mishra & Magazzeni, 2023) of global translations as
// small multiples, one panel per group a→b in the order given, titled "a→b" with its number of members: coverage
// (the share of the group made sure of b) against cost (the mean d of those answers), a point per scale k, the
// line in b's colour, and δ-CLUE's mean d on the same members as a dashed vertical line. Every panel shares the
// axes. Points with no coverage are left out (they have no cost).
func CostCoverage(ch CostCoverageChart) string {
	const w, cols = 560, 4
	const pw, ph, gapX, gapY, left, top = 122.0, 92.0, 10.0, 40.0, 40.0, 62.0
	title := ch.Title
	if title == "" {
		title = "Cost against coverage of each translation"
	}
	var c canvas
	c.heading(title, w)
	c.text(14, 44, "coverage (0–1) against mean d; dashed: δ-CLUE's mean d", ` fill="`+mutedInk+`" font-size="12"`)
	maxCost := 1.0
	for _, l := range ch.Lines {
		for i, v := range l.Cost {
			if l.Coverage[i] > 0 && finite(v) {
				maxCost = math.Max(maxCost, v)
			}
		}
		if finite(l.SearchCost) {
			maxCost = math.Max(maxCost, l.SearchCost)
		}
	}
	xt := axisTicks(0, maxCost)
	xt = []float64{xt[0], xt[len(xt)/2], xt[len(xt)-1]}
	rows := (len(ch.Lines) + cols - 1) / cols
	h := int(top + float64(rows)*(ph+gapY) + 4)
	for i, l := range ch.Lines {
		x0 := left + float64(i%cols)*(pw+gapX)
		y0 := top + float64(i/cols)*(ph+gapY) + 16
		xs, ys := scale{xt[0], xt[len(xt)-1], x0, x0 + pw}, scale{0, 1, y0 + ph, y0}
		c.printf(`<g class="group" data-from="%d" data-to="%d">`+"\n", l.From, l.To)
		c.text(x0, y0-5, fmt.Sprintf("%d→%d (%d)", l.From, l.To, l.Members), ` font-size="12" font-weight="bold"`)
		for _, t := range []float64{0, 0.5, 1} {
			c.line(x0, ys.at(t), x0+pw, ys.at(t), ` stroke="`+gridInk+`"`)
			if i%cols == 0 {
				c.text(x0-4, ys.at(t)+4, FormatTick(t), ` text-anchor="end" font-size="11" fill="`+mutedInk+`"`)
			}
		}
		for j, t := range xt { // the ends' labels inside the panel, so that neighbours' do not run together
			anchor := map[int]string{0: "start", len(xt) - 1: "end"}[j]
			if anchor == "" {
				anchor = "middle"
			}
			c.text(xs.at(t), y0+ph+13, FormatTick(t), ` text-anchor="`+anchor+`" font-size="11" fill="`+mutedInk+`"`)
		}
		c.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s"/>`+"\n", num(x0), num(y0), num(pw), num(ph), frameInk)
		if l.SearchCost > 0 && finite(l.SearchCost) {
			c.line(xs.at(l.SearchCost), y0, xs.at(l.SearchCost), y0+ph, ` stroke="`+ink+`" stroke-dasharray="4 3"`)
		}
		var pts []string
		for k := range l.K {
			if l.Coverage[k] > 0 && finite(l.Cost[k], l.Coverage[k]) {
				pts = append(pts, num(xs.at(l.Cost[k]))+","+num(ys.at(l.Coverage[k])))
			}
		}
		if len(pts) > 0 {
			c.printf(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), LabelColour(l.To))
			for _, p := range pts {
				xy := strings.SplitN(p, ",", 2)
				c.printf(`<circle cx="%s" cy="%s" r="2.5" fill="%s" stroke="%s" stroke-width="0.5"/>`, xy[0], xy[1], LabelColour(l.To), ink)
			}
			c.b.WriteString("\n")
		}
		c.b.WriteString("</g>\n")
	}
	desc := fmt.Sprintf("%d groups, one panel each: as a group's translation is scaled up, the share of its members the model becomes sure of the target, against the mean distance d of those answers; a dashed line marks δ-CLUE's mean d on the same members.", len(ch.Lines))
	return document("coverage", w, h, title, desc, c.b.String())
}
