package figures

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Ticks returns about five round tick values (steps of 1, 2, 2.5 or 5 times a power of ten) from
// floor(lo/step)·step up to hi; when hi ≤ lo it covers [lo, lo+1]. The last tick may fall short of hi. It
// returns nil when lo or hi is not finite.
func Ticks(lo, hi float64) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	for v := math.Floor(lo/step) * step; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, v)
		if v+step == v || len(ticks) > 1000 { // the step is lost in v's rounding: stop rather than loop forever
			break
		}
	}
	return ticks
}

// FormatTick formats a tick value with three significant digits ("0.6", "2.5", "1.23e+03"), writing "0" for
// anything within 1e-12 of zero.
func FormatTick(v float64) string {
	s := fmt.Sprintf("%.3g", v)
	if math.Abs(v) < 1e-12 {
		s = "0"
	}
	return s
}

// num formats a coordinate with at most one decimal.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	s := strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	if s == "-0" {
		s = "0"
	}
	return s
}

// exact formats a value so that it parses back to the same float64 (for data-* attributes).
func exact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// fixed formats a value with the given number of decimals for people to read ("28.3"), "NaN" as "n/a".
func fixed(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// scale maps data values in [lo, hi] linearly onto pixels [p0, p1].
type scale struct{ lo, hi, p0, p1 float64 }

func (s scale) at(v float64) float64 {
	if s.hi == s.lo {
		return (s.p0 + s.p1) / 2
	}
	return s.p0 + (v-s.lo)/(s.hi-s.lo)*(s.p1-s.p0)
}

// axisTicks returns ticks from Ticks extended by whole steps until they reach hi, so that an axis can start and
// end on a tick. lo and hi must be finite.
func axisTicks(lo, hi float64) []float64 {
	t := Ticks(lo, hi)
	if len(t) < 2 {
		return []float64{lo, math.Max(hi, lo+1)}
	}
	step := t[1] - t[0]
	for t[len(t)-1] < hi-step*1e-9 && len(t) < 1000 {
		t = append(t, t[len(t)-1]+step)
	}
	return t
}

// intTicks returns whole-number ticks from 0 covering [0, hi].
func intTicks(hi float64) []float64 {
	if hi < 1 || !finite(hi) {
		hi = 1
	}
	var t []float64
	for _, v := range axisTicks(0, hi) {
		if v == math.Round(v) {
			t = append(t, v)
		}
	}
	if len(t) < 2 || t[len(t)-1] < hi {
		t = t[:0]
		for v := 0.0; v <= math.Ceil(hi); v++ {
			t = append(t, v)
		}
	}
	return t
}

// frame writes a plot's grid and ticks for the given scales and tick values, a box around the plot area
// [x0,x1]×[y0,y1], and the axis titles (xtitle below, ytitle rotated on the left; either may be empty).
func (c *canvas) frame(x0, y0, x1, y1 float64, xs, ys scale, xt, yt []float64, xtitle, ytitle string, titleX float64) {
	c.b.WriteString(`<g class="axes">` + "\n")
	for _, t := range xt {
		c.line(xs.at(t), y0, xs.at(t), y1, ` stroke="`+gridInk+`"`)
		c.text(xs.at(t), y1+18, FormatTick(t), ` text-anchor="middle" fill="`+mutedInk+`"`)
	}
	for _, t := range yt {
		c.line(x0, ys.at(t), x1, ys.at(t), ` stroke="`+gridInk+`"`)
		c.text(x0-6, ys.at(t)+0.35*fontText, FormatTick(t), ` text-anchor="end" fill="`+mutedInk+`"`)
	}
	c.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s"/>`+"\n",
		num(x0), num(y0), num(x1-x0), num(y1-y0), frameInk)
	if xtitle != "" {
		c.text((x0+x1)/2, y1+38, xtitle, ` class="axis-title" text-anchor="middle"`)
	}
	if ytitle != "" {
		c.printf(`<text class="axis-title" transform="translate(%s %s) rotate(-90)" text-anchor="middle">%s</text>`+"\n",
			num(titleX), num((y0+y1)/2), Escape(ytitle))
	}
	c.b.WriteString("</g>\n")
}
