package figures

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/internal/plural"
)

// SweepRow is the outcome of the search at one δ.
type SweepRow struct {
	Delta    float64
	Dist     []float64 // label distribution p(y): 10 values summing to 1, or all zero if nothing was accepted
	Distinct int       // number of distinct labels
	BestH    float64   // lowest H among the accepted explanations; NaN if none
	Accepted int
	Restarts int
	Done     bool // false while the search at this δ is still running
}

// SweepChart is the input of Sweep.
type SweepChart struct {
	Rows      []SweepRow
	Threshold float64 // the H threshold, drawn in panel (c) when > 0
	Title     string
	Names     []string // the classes' names, which the legend gives where they are not the numbers; nil: numbers
}

// Sweep draws what happens as δ grows, as three panels stacked vertically: (a) the label distribution p(y) ∝
// 1/cost_min(y)² (Summary.LabelDistribution, not the labels' counts) as one
// stacked bar per δ (<g class="sweep-bar" data-delta=...>, segments in label colours with the label's number written on
// those tall enough, "…" for a δ still running, "none" when nothing was accepted), (b) the number of distinct
// labels and (c) the lowest H with the threshold dashed. The δ values are categories: equally spaced, in the
// order given, whatever their numeric spacing. Rows not Done are left out of (b) and (c), as are NaN values.
func Sweep(s SweepChart) string {
	const w = 480
	const left, right = 56, w - 14
	title := s.Title
	if title == "" {
		title = "What happens as δ grows"
	}
	var c canvas
	c.heading(title, w)

	rows := s.Rows
	present := map[int]bool{}
	for _, r := range rows {
		for l, p := range r.Dist {
			if p > 0 && finite(p) {
				present[l] = true
			}
		}
	}
	y := 46.0
	if labels := sortedLabels(present); len(labels) > 0 {
		c.b.WriteString(`<g class="legend">` + "\n")
		y = c.legend(append([]legendItem{legendWord("label")}, legendLabels(labels, s.Names)...), 14, y, w-14)
		c.b.WriteString("</g>\n")
	}
	y += 22

	if len(rows) == 0 {
		const h = 200
		c.printf(`<rect x="%d" y="%s" width="%d" height="%s" fill="none" stroke="%s"/>`+"\n", left, num(y), right-left, num(h-20-y), frameInk)
		c.text((left+right)/2, (y+h-20)/2, "no δ values yet", ` class="empty" text-anchor="middle" fill="`+mutedInk+`"`)
		return document("sweep", w, h, title, "Sweep over δ with no δ values yet.", c.b.String())
	}

	n := float64(len(rows))
	slot := float64(right-left) / n
	xc := func(i int) float64 { return left + slot*(float64(i)+0.5) }
	// Category labels: every k-th δ so that they do not overlap.
	every := 1
	widest := 0.0
	for _, r := range rows {
		widest = math.Max(widest, textWidth(FormatTick(r.Delta), fontText))
	}
	for float64(every)*slot < widest+6 {
		every++
	}
	categoryAxis := func(bottom float64) {
		c.b.WriteString(`<g class="axes">` + "\n")
		for i, r := range rows {
			if i%every == 0 {
				c.text(xc(i), bottom+18, FormatTick(r.Delta), ` text-anchor="middle" fill="`+mutedInk+`"`)
			}
		}
		c.text((left+right)/2, bottom+38, "δ (latent radius)", ` class="axis-title" text-anchor="middle"`)
		c.b.WriteString("</g>\n")
	}
	panelTitle := func(y float64, s string) {
		c.text(14, y, clip(s, w-28, fontText*1.05), ` class="panel-title" font-weight="bold"`)
	}

	// (a) label distribution: p(y) from each label's cheapest explanation, not the share of restarts.
	panelTitle(y+8, "(a) p(y) ∝ 1 / (lowest cost of label y)²")
	top, bottom := y+20, y+20+170
	ys := scale{0, 1, bottom, top}
	c.frame(left, top, right, bottom, scale{}, ys, nil, axisTicks(0, 1), "", "p(y)", 16)
	categoryAxis(bottom)
	bw := math.Min(slot*0.7, 56)
	for i, r := range rows {
		x0 := xc(i) - bw/2
		sum := 0.0
		for _, p := range r.Dist {
			if p > 0 && finite(p) {
				sum += p
			}
		}
		aria := fmt.Sprintf("δ %s: %s", FormatTick(r.Delta), distText(r, sum))
		c.printf(`<g class="sweep-bar" data-delta="%s"><title>%s</title>`+"\n", exact(r.Delta), Escape(aria))
		switch {
		case !r.Done:
			c.printf(`<rect class="pending" x="%s" y="%s" width="%s" height="%s" fill="#F4F4F4" stroke="%s" stroke-dasharray="4 3"/>`+"\n",
				num(x0), num(top), num(bw), num(bottom-top), hollowInk)
			c.text(xc(i), (top+bottom)/2+5, "…", ` text-anchor="middle" font-size="16" fill="`+mutedInk+`"`)
		case sum == 0:
			label := ` text-anchor="middle" fill="` + mutedInk + `" font-style="italic"`
			if bw < textWidth("none", fontSmall)+4 {
				c.printf(`<text transform="translate(%s %s) rotate(-90)" font-size="%d"%s>none</text>`+"\n",
					num(xc(i)+0.35*fontSmall), num(bottom-24), fontSmall, label)
			} else {
				c.text(xc(i), bottom-8, "none", fmt.Sprintf(` font-size="%d"%s`, fontSmall, label))
			}
		default:
			yb := bottom
			for l, p := range r.Dist {
				if !(p > 0 && finite(p)) {
					continue
				}
				hgt := p / sum * (bottom - top)
				c.printf(`<rect class="seg" data-label="%d" x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="white" stroke-width="1"/>`+"\n",
					l, num(x0), num(yb-hgt), num(bw), num(hgt), LabelColour(l))
				if fs := math.Min(fontSmall, bw/0.62); hgt >= 14 && fs >= 9 {
					c.text(xc(i), yb-hgt/2+0.35*fs, digit(l), fmt.Sprintf(` text-anchor="middle" font-size="%s" font-weight="bold" fill="%s"`, num(fs), LabelTextColour(l)))
				}
				yb -= hgt
			}
			c.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s"/>`+"\n", num(x0), num(top), num(bw), num(bottom-top), frameInk)
		}
		c.b.WriteString("</g>\n")
	}
	y = bottom + 58

	// (b) distinct labels and (c) lowest H: lines with markers.
	linePanel := func(y float64, heading, ytitle, class string, values func(SweepRow) float64, yt []float64, format func(float64) string, square bool, threshold float64) float64 {
		panelTitle(y+8, heading)
		top, bottom := y+20, y+20+120
		ys := scale{yt[0], yt[len(yt)-1], bottom - 6, top + 18} // room above the top marker for its value
		c.frame(left, top, right, bottom, scale{}, ys, nil, yt, "", ytitle, 16)
		categoryAxis(bottom)
		if threshold > 0 {
			ty := ys.at(threshold)
			c.line(left, ty, right, ty, ` class="threshold" stroke="`+ink+`" stroke-width="1.5" stroke-dasharray="6 4"`)
			c.haloText(right-4, ty-5, "H threshold "+FormatTick(threshold), ` class="threshold-label" text-anchor="end"`)
		}
		var d strings.Builder
		prev := false
		for i, r := range rows {
			v := values(r)
			if !r.Done || !finite(v) {
				prev = false
				continue
			}
			cmd := "L"
			if !prev {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s ", cmd, num(xc(i)), num(ys.at(v)))
			prev = true
		}
		if d.Len() > 0 {
			c.printf(`<path class="%s-line" d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", class, strings.TrimSpace(d.String()), ink)
		}
		for i, r := range rows {
			v := values(r)
			if !r.Done || !finite(v) {
				continue
			}
			x, yv := xc(i), ys.at(v)
			c.printf(`<g class="%s" data-delta="%s"><title>δ %s: %s</title>`, class, exact(r.Delta), FormatTick(r.Delta), Escape(format(v)))
			if square {
				c.printf(`<rect x="%s" y="%s" width="8" height="8" fill="%s"/>`, num(x-4), num(yv-4), ink)
			} else {
				c.printf(`<circle cx="%s" cy="%s" r="4.5" fill="%s"/>`, num(x), num(yv), ink)
			}
			if slot >= textWidth(format(v), fontSmall)+6 {
				c.b.WriteString("\n")
				c.haloText(x, yv-9, format(v), fmt.Sprintf(` text-anchor="middle" font-size="%d"`, fontSmall))
			}
			c.b.WriteString("</g>\n")
		}
		return bottom + 58
	}
	maxDistinct, maxH := 1.0, 0.0
	for _, r := range rows {
		if r.Done {
			maxDistinct = math.Max(maxDistinct, float64(r.Distinct))
			if finite(r.BestH) {
				maxH = math.Max(maxH, r.BestH)
			}
		}
	}
	threshold := 0.0
	if s.Threshold > 0 && finite(s.Threshold) {
		threshold = s.Threshold
		maxH = math.Max(maxH, threshold)
	}
	if maxH == 0 {
		maxH = 1
	}
	y = linePanel(y, "(b) number of distinct labels", "labels", "distinct",
		func(r SweepRow) float64 { return float64(r.Distinct) }, intTicks(maxDistinct),
		func(v float64) string { return fmt.Sprint(int(v)) }, false, 0)
	y = linePanel(y, "(c) lowest H among the accepted (nats)", "H (nats)", "besth",
		func(r SweepRow) float64 { return r.BestH }, axisTicks(0, maxH*1.1),
		func(v float64) string { return strconv.FormatFloat(v, 'g', 2, 64) }, true, threshold)
	h := int(math.Ceil(y - 14))

	return document("sweep", w, h, title, sweepDesc(s), c.b.String())
}

// distText describes a row's label distribution and counts in words.
func distText(r SweepRow, sum float64) string {
	if !r.Done {
		return "still running"
	}
	var b strings.Builder
	if sum == 0 {
		b.WriteString("no label")
	}
	first := true
	for l, p := range r.Dist {
		if !(p > 0 && finite(p)) {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		fmt.Fprintf(&b, "label %d %s %%", l, fixed(100*p/sum, 0))
	}
	fmt.Fprintf(&b, "; %d of %d accepted", r.Accepted, r.Restarts)
	return b.String()
}

// sweepDesc summarises the chart in words.
func sweepDesc(s SweepChart) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Sweep over %s of δ, the latent radius, shown as equally spaced categories. Panel (a): the label distribution p(y) ∝ 1 / (lowest cost among the accepted explanations of label y)², as stacked bars; (b): number of distinct labels; (c): lowest H among the accepted, in nats", plural.Count(len(s.Rows), "value"))
	if s.Threshold > 0 && finite(s.Threshold) {
		fmt.Fprintf(&b, ", with the H threshold %s dashed", FormatTick(s.Threshold))
	}
	b.WriteString(".")
	for _, r := range s.Rows {
		sum := 0.0
		for _, p := range r.Dist {
			if p > 0 && finite(p) {
				sum += p
			}
		}
		fmt.Fprintf(&b, " δ %s: %s", FormatTick(r.Delta), distText(r, sum))
		if r.Done {
			fmt.Fprintf(&b, ", %d distinct, lowest H %s", r.Distinct, strconv.FormatFloat(r.BestH, 'g', 2, 64))
		}
		b.WriteString(".")
	}
	return b.String()
}
