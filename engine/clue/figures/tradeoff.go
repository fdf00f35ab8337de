package figures

import (
	"fmt"
	"math"
	"strings"

	"github.com/deltaclue/deltaclue/internal/plural"
)

// TradeoffPoint is one explanation (one restart) on the trade-off chart.
type TradeoffPoint struct {
	Restart, Label int
	D, H           float64 // L1 distance to the input (pixels) and predictive entropy (nats)
	Accepted       bool
}

// Front is a label's Pareto front: the points with the lowest H for a given d, in increasing d.
type Front struct {
	Label int
	D, H  []float64
}

// TradeoffChart is the input of Tradeoff.
type TradeoffChart struct {
	Points    []TradeoffPoint
	Fronts    []Front
	Threshold float64 // the H below which an explanation is accepted; drawn when > 0
	Selected  int     // the selected restart, -1 for none
	Title     string
	Names     []string // the classes' names, which the legend gives where they are not the numbers; nil: numbers
	// Distance says what d measures: "" for an image's (L1, pixels); a table's rows are "L1, standardised"
	// (L1 on the standardised numbers plus the changed categories).
	Distance string
	// Sigma says the uncertainty is a regression's predictive standard deviation σ (in the target's unit), not
	// the entropy H in nats.
	Sigma bool
}

// symbol is the uncertainty's symbol, and yName its axis's words.
func (t TradeoffChart) symbol() string {
	if t.Sigma {
		return "σ"
	}
	return "H"
}

func (t TradeoffChart) yName() string {
	if t.Sigma {
		return "uncertainty σ (the target's unit)"
	}
	return "uncertainty H (nats)"
}

// unit is what d measures, in the axis's words.
func (t TradeoffChart) unit() string {
	if t.Distance == "" {
		return "L1, pixels"
	}
	return t.Distance
}

// Tradeoff draws the uncertainty–distance trade-off: one marker per explanation at (d, H) with its digit on it,
// each label's Pareto front, the H threshold and a legend. Markers are focusable <g class="pt"> groups (class
// "pt rejected" when not accepted, plus "selected" for the selected restart) carrying data-restart and
// data-label. Points with a non-finite d or H are left out (and counted in the description).
func Tradeoff(t TradeoffChart) string {
	const w, h = 480, 400
	const left, right, bottom = 62, w - 14, h - 56
	title := t.Title
	if title == "" {
		title = "Uncertainty–distance trade-off"
	}
	var c canvas
	c.heading(title, w)

	var pts []TradeoffPoint
	present := map[int]bool{}
	rejected, skipped := 0, 0
	for _, p := range t.Points {
		if !finite(p.D, p.H) {
			skipped++
			continue
		}
		pts = append(pts, p)
		if p.Accepted {
			present[p.Label] = true
		} else {
			rejected++
		}
	}
	fronts := 0
	for _, f := range t.Fronts {
		for i := range f.D {
			if i < len(f.H) && finite(f.D[i], f.H[i]) {
				present[f.Label] = true
				fronts++
				break
			}
		}
	}
	threshold := t.Threshold > 0 && finite(t.Threshold)

	// Legend: the labels drawn in colour, then what the other marks mean.
	var items []legendItem
	if labels := sortedLabels(present); len(labels) > 0 {
		items = append(append(items, legendWord("label")), legendLabels(labels, t.Names)...)
	}
	if fronts > 0 {
		items = append(items, legendSample("Pareto front", 24, func(c *canvas, x, y float64) {
			c.line(x, y, x+24, y, ` stroke="`+frameInk+`" stroke-width="2.5"`)
		}))
	}
	if rejected > 0 {
		items = append(items, legendSample("rejected", 2*markerR, func(c *canvas, x, y float64) {
			c.printf(`<circle cx="%s" cy="%s" r="%d" fill="white" stroke="%s" stroke-width="1.5"/>`+"\n",
				num(x+markerR), num(y), markerR, hollowInk)
		}))
	}
	top := 48.0
	if len(items) > 0 {
		c.b.WriteString(`<g class="legend">` + "\n")
		top = c.legend(items, 14, 46, w-14) + 20
		c.b.WriteString("</g>\n")
	}

	ytitle := t.yName()
	xtitle := "distance d (" + t.unit() + ")"
	if len(pts) == 0 && fronts == 0 {
		c.frame(left, top, right, bottom, scale{}, scale{}, nil, nil, xtitle, ytitle, 18)
		c.text((left+right)/2, (top+bottom)/2, "no explanations yet", ` class="empty" text-anchor="middle" fill="`+mutedInk+`"`)
		return document("tradeoff", w, h, title, "Uncertainty–distance trade-off chart with no explanations yet.", c.b.String())
	}

	// Ranges: d from the data, H from 0 to the largest H or the threshold.
	dlo, dhi, hhi := math.Inf(1), math.Inf(-1), 0.0
	see := func(d, hv float64) {
		dlo, dhi, hhi = math.Min(dlo, d), math.Max(dhi, d), math.Max(hhi, hv)
	}
	for _, p := range pts {
		see(p.D, p.H)
	}
	for _, f := range t.Fronts {
		for i := range f.D {
			if i < len(f.H) && finite(f.D[i], f.H[i]) {
				see(f.D[i], f.H[i])
			}
		}
	}
	if threshold { // with headroom, so that its label sits inside the frame
		hhi = math.Max(hhi, 1.15*t.Threshold)
	}
	xt, yt := axisTicks(dlo, dhi), axisTicks(0, hhi)
	// Keep markers off the frame: the data area is inset by a marker and a bit.
	const pad = markerR + 3
	xs := scale{xt[0], xt[len(xt)-1], left + pad, right - pad}
	ys := scale{yt[0], yt[len(yt)-1], bottom - pad, top + pad}
	c.frame(left, top, right, bottom, xs, ys, xt, yt, xtitle, ytitle, 18)

	if threshold {
		y := ys.at(t.Threshold)
		c.line(left, y, right, y, ` class="threshold" stroke="`+ink+`" stroke-width="1.5" stroke-dasharray="6 4"`)
		c.haloText(right-4, y-5, t.symbol()+" threshold "+FormatTick(t.Threshold), ` class="threshold-label" text-anchor="end"`)
	}

	// Fronts, as steps: H holds until the next point's d, then drops.
	for _, f := range t.Fronts {
		var xy []string
		prevY := math.NaN()
		for i := range f.D {
			if i >= len(f.H) || !finite(f.D[i], f.H[i]) {
				continue
			}
			x, y := xs.at(f.D[i]), ys.at(f.H[i])
			if !math.IsNaN(prevY) {
				xy = append(xy, num(x)+","+num(prevY))
			}
			xy = append(xy, num(x)+","+num(y))
			prevY = y
		}
		if len(xy) == 0 {
			continue
		}
		pts := strings.Join(xy, " ")
		c.printf(`<polyline class="front-casing" points="%s" fill="none" stroke="%s" stroke-width="4.5" stroke-linejoin="round"/>`+"\n", pts, frameInk)
		c.printf(`<polyline class="front" data-label="%d" points="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round"><title>Pareto front of label %d</title></polyline>`+"\n",
			f.Label, pts, LabelColour(f.Label), f.Label)
	}

	// Points: rejected, then accepted, then the selected one on top.
	rank := func(p TradeoffPoint) int {
		switch {
		case p.Restart == t.Selected && t.Selected >= 0:
			return 2
		case p.Accepted:
			return 1
		}
		return 0
	}
	var nps []navPoint
	for _, p := range pts {
		nps = append(nps, navPoint{p.Restart, xs.at(p.D), ys.at(p.H)})
	}
	nav := navigate(nps, t.Selected)
	for r := 0; r <= 2; r++ {
		for _, p := range pts {
			if rank(p) != r {
				continue
			}
			class, state := "pt", ""
			if !p.Accepted {
				class, state = "pt rejected", ", rejected"
			}
			if r == 2 {
				class += " selected"
				state += ", selected"
			}
			aria := fmt.Sprintf("restart %d: label %d, d %s, H %s%s", p.Restart, p.Label, fixed(p.D, 1), fixed(p.H, 2), state)
			c.printf(`<g class="%s" data-restart="%d" data-label="%d" %s focusable="true" aria-label="%s"><title>%s</title>`,
				class, p.Restart, p.Label, nav.attrs(p.Restart), Escape(aria), Escape(aria))
			c.marker(xs.at(p.D), ys.at(p.H), p.Label, !p.Accepted, r == 2)
			c.b.WriteString("</g>\n")
		}
	}

	return document("tradeoff", w, h, title, tradeoffDesc(t, pts, skipped, threshold), c.b.String())
}

// tradeoffDesc summarises the chart in words.
func tradeoffDesc(t TradeoffChart, pts []TradeoffPoint, skipped int, threshold bool) string {
	var b strings.Builder
	accepted := 0
	type best struct {
		n    int
		d, h float64
	}
	byLabel := map[int]*best{}
	present := map[int]bool{}
	for _, p := range pts {
		if !p.Accepted {
			continue
		}
		accepted++
		bl := byLabel[p.Label]
		if bl == nil {
			bl = &best{h: math.Inf(1)}
			byLabel[p.Label] = bl
			present[p.Label] = true
		}
		bl.n++
		if p.H < bl.h || (p.H == bl.h && p.D < bl.d) {
			bl.d, bl.h = p.D, p.H
		}
	}
	fmt.Fprintf(&b, "Scatter plot of %s: distance d to the input ("+t.unit()+") across, "+t.yName()+" up; lower and further left is better. %d accepted, %d rejected.",
		plural.Count(len(pts), "explanation"), accepted, len(pts)-accepted)
	if skipped > 0 {
		fmt.Fprintf(&b, " %d not shown (no finite d or H).", skipped)
	}
	if len(present) > 0 {
		b.WriteString(" Accepted labels:")
		for i, l := range sortedLabels(present) {
			bl := byLabel[l]
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %d (%d, lowest H %s at d %s)", sep, l, bl.n, fixed(bl.h, 2), fixed(bl.d, 1))
		}
		b.WriteString(".")
	}
	if threshold {
		fmt.Fprintf(&b, " Dashed line: %s threshold %s.", t.symbol(), FormatTick(t.Threshold))
	}
	if n := len(t.Fronts); n > 0 {
		fmt.Fprintf(&b, " Lines: the Pareto front of %s.", plural.Count(n, "label"))
	}
	for _, p := range pts {
		if p.Restart == t.Selected && t.Selected >= 0 {
			fmt.Fprintf(&b, " Selected: restart %d, label %d, d %s, H %s.", p.Restart, p.Label, fixed(p.D, 1), fixed(p.H, 2))
			break
		}
	}
	return b.String()
}
