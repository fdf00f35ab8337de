// Package figures draws deltaclue's own charts as SVG text: the uncertainty–distance trade-off (Tradeoff), what
// happens as δ grows (Sweep) and the δ-ball seen from above (LatentMap).
//
// The same code serves the web page (compiled to WASM, the text inserted into the DOM) and the command-line tool
// (the text written to .svg files), so it uses the standard library only. Every chart is a self-contained
// <svg> with a viewBox and width="100%", a <title> and a <desc> (a plain-text summary for screen readers), a
// white background and fonts sized to stay legible when the chart is shown about 350 px wide.
//
// Labels (the digits 0–9) are coloured from a colour-blind-safe palette (LabelColour), and wherever a label is
// shown by colour its digit is written too. Output is deterministic: the same input gives the same bytes.
package figures

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// palette: the Okabe–Ito colours, then grey and Tol's wine for the last two digits.
var palette = [10]string{
	"#E69F00", // 0 orange
	"#56B4E9", // 1 sky blue
	"#009E73", // 2 bluish green
	"#F0E442", // 3 yellow
	"#0072B2", // 4 blue
	"#D55E00", // 5 vermillion
	"#CC79A7", // 6 reddish purple
	"#000000", // 7 black
	"#999999", // 8 grey
	"#882255", // 9 wine
}

// otherColour is used for a label outside 0–9.
const otherColour = "#555555"

// Colours of things that are not labels.
const (
	ink       = "#222222" // text, axes, the selection ring
	gridInk   = "#E3E3E3"
	frameInk  = "#555555"
	mutedInk  = "#6E6E6E" // rejected digits, secondary text
	hollowInk = "#8C8C8C" // the outline of rejected markers
)

// LabelColour returns the fill colour ("#RRGGBB") of a digit label: the Okabe–Ito colours for 0–7, grey for 8
// and wine for 9; a dark grey for any other label.
func LabelColour(label int) string {
	if label < 0 || label >= len(palette) {
		return otherColour
	}
	return palette[label]
}

// LabelTextColour returns "#000000" or "#FFFFFF", whichever contrasts more with LabelColour(label): the colour
// to write the digit in on a marker or a bar of that label.
func LabelTextColour(label int) string {
	return contrastText(LabelColour(label))
}

// contrastText picks black or white text for a "#RRGGBB" background by WCAG contrast ratio.
func contrastText(bg string) string {
	if len(bg) != 7 || bg[0] != '#' {
		return "#000000"
	}
	lin := func(s string) float64 {
		v, err := strconv.ParseUint(s, 16, 8)
		if err != nil {
			return 0
		}
		c := float64(v) / 255
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(bg[1:3]) + 0.7152*lin(bg[3:5]) + 0.0722*lin(bg[5:7])
	if (l+0.05)/0.05 >= 1.05/(l+0.05) {
		return "#000000"
	}
	return "#FFFFFF"
}

// Escape returns s escaped for use as XML character data or inside a double- or single-quoted attribute
// value: & < > " ' and the white-space controls become references, and characters XML cannot carry (other
// control characters, invalid UTF-8) become U+FFFD.
// It writes what encoding/xml's EscapeText writes, without linking encoding/xml into the page.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s { // invalid UTF-8 comes out of range as U+FFFD
		switch r {
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\t':
			b.WriteString("&#x9;")
		case '\n':
			b.WriteString("&#xA;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			if !(r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF) {
				r = '\uFFFD'
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

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

// ---- drawing helpers ----

// Font sizes, in viewBox units. The charts are 480 units wide, so at 350 px these shrink by 0.73.
const (
	fontTitle  = 15
	fontText   = 13 // axis titles, tick labels, legends
	fontSmall  = 12 // digits in markers, values beside markers
	markerR    = 9  // radius of a label marker
	legendStep = 22 // height of a legend line
)

const fontFamily = "system-ui, sans-serif"

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

// textWidth estimates how wide s is when set at size fs in a proportional sans-serif.
func textWidth(s string, fs float64) float64 {
	return float64(utf8.RuneCountInString(s)) * fs * 0.56
}

// clip shortens s with an ellipsis so that it is about at most width wide at size fs.
func clip(s string, width, fs float64) string {
	if textWidth(s, fs) <= width {
		return s
	}
	n := int(width/(fs*0.56)) - 1
	if n < 1 {
		return "…"
	}
	r := []rune(s)
	if n > len(r) {
		n = len(r)
	}
	return strings.TrimSpace(string(r[:n])) + "…"
}

// digit is the text written for a label.
func digit(label int) string { return strconv.Itoa(label) }

// canvas accumulates the body of an SVG.
type canvas struct{ b strings.Builder }

func (c *canvas) printf(format string, a ...any) { fmt.Fprintf(&c.b, format, a...) }

// text writes a <text> element; attrs (may be empty) go in verbatim and must start with a space.
func (c *canvas) text(x, y float64, s, attrs string) {
	c.printf(`<text x="%s" y="%s"%s>%s</text>`+"\n", num(x), num(y), attrs, Escape(s))
}

// haloText writes text with a white outline under it so it stays readable over lines.
func (c *canvas) haloText(x, y float64, s, attrs string) {
	c.text(x, y, s, attrs+` stroke="white" stroke-width="3" stroke-linejoin="round" paint-order="stroke"`)
}

// line writes a <line>; attrs go in verbatim.
func (c *canvas) line(x1, y1, x2, y2 float64, attrs string) {
	c.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s"%s/>`+"\n", num(x1), num(y1), num(x2), num(y2), attrs)
}

// marker writes a label marker at (x, y): a circle in the label's colour with the digit on it, or, when
// hollow, a white circle with a grey outline and a grey digit. selected adds a thick dark ring.
func (c *canvas) marker(x, y float64, label int, hollow, selected bool) {
	fs := float64(fontSmall)
	if len(digit(label)) > 1 {
		fs = 9
	}
	if hollow {
		c.printf(`<circle class="m" cx="%s" cy="%s" r="%d" fill="white" stroke="%s" stroke-width="1.5"/>`,
			num(x), num(y), markerR, hollowInk)
		c.printf(`<text x="%s" y="%s" text-anchor="middle" font-size="%s" font-weight="bold" fill="%s">%s</text>`,
			num(x), num(y+0.35*fs), num(fs), mutedInk, digit(label))
	} else {
		c.printf(`<circle class="m" cx="%s" cy="%s" r="%d" fill="%s" stroke="%s" stroke-width="1"/>`,
			num(x), num(y), markerR, LabelColour(label), ink)
		c.printf(`<text x="%s" y="%s" text-anchor="middle" font-size="%s" font-weight="bold" fill="%s">%s</text>`,
			num(x), num(y+0.35*fs), num(fs), LabelTextColour(label), digit(label))
	}
	if selected {
		c.printf(`<circle class="ring" cx="%s" cy="%s" r="%d" fill="none" stroke="%s" stroke-width="3"/>`,
			num(x), num(y), markerR+4, ink)
	}
	c.b.WriteString("\n")
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

// legend lays out items left to right, wrapping onto new lines, starting at (x, y) (the centre line of the
// first row) within maxX. It returns the y of the centre line of the last row.
type legendItem struct {
	width float64
	draw  func(c *canvas, x, y float64) // x: left edge, y: centre line
}

func (c *canvas) legend(items []legendItem, x, y, maxX float64) float64 {
	cx := x
	for i, it := range items {
		if i > 0 && cx+it.width > maxX {
			cx, y = x, y+legendStep
		}
		it.draw(c, cx, y)
		cx += it.width + 14
	}
	return y
}

// legendWord is a legend item of plain text.
func legendWord(s string) legendItem {
	return legendItem{width: textWidth(s, fontText) - 6, draw: func(c *canvas, x, y float64) {
		c.text(x, y+0.35*fontText, s, ` fill="`+mutedInk+`"`)
	}}
}

// legendLabels is a legend item listing labels as markers with their digits.
func legendLabels(labels []int) legendItem {
	w := float64(len(labels))*(2*markerR+4) - 4
	return legendItem{width: w, draw: func(c *canvas, x, y float64) {
		for i, l := range labels {
			c.printf(`<g class="key" data-label="%d">`, l)
			c.marker(x+markerR+float64(i)*(2*markerR+4), y, l, false, false)
			c.b.WriteString("</g>\n")
		}
	}}
}

// legendSample is a legend item: a drawn sample followed by a word.
func legendSample(word string, sampleWidth float64, sample func(c *canvas, x, y float64)) legendItem {
	return legendItem{width: sampleWidth + 5 + textWidth(word, fontText), draw: func(c *canvas, x, y float64) {
		sample(c, x, y)
		c.text(x+sampleWidth+5, y+0.35*fontText, word, "")
	}}
}

// sortedLabels returns the keys of a set of labels in increasing order.
func sortedLabels(set map[int]bool) []int {
	var ls []int
	for l := range set {
		ls = append(ls, l)
	}
	sort.Ints(ls)
	return ls
}

// style is shared by all charts; it is scoped to the charts' class so that it does not leak into a page.
const style = `<style>` +
	`.dcfig .pt,.dcfig .end{cursor:pointer}` +
	`.dcfig .pt:focus,.dcfig .end:focus{outline:none}` +
	`.dcfig .pt:focus-visible .m,.dcfig .end:focus-visible .m,.dcfig .pt:hover .m,.dcfig .end:hover .m{stroke:#000;stroke-width:3}` +
	`</style>`

// document wraps a chart's body in the root <svg> with its title, description, style and background. The ids
// that aria-labelledby points to are derived from a hash of the content, so they are deterministic and two
// different charts on one page do not share them.
func document(kind string, w, h int, title, desc, body string) string {
	hash := fnv.New32a()
	for _, s := range []string{kind, title, desc, body} {
		hash.Write([]byte(s))
		hash.Write([]byte{0})
	}
	id := fmt.Sprintf("dcfig-%s-%08x", kind, hash.Sum32())
	// A chart whose markers take focus is a group, so that screen readers reach each marker's label; the
	// others are one image described by their title and description.
	role := "img"
	if kind != "sweep" {
		role = "group"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="dcfig dcfig-%s" viewBox="0 0 %d %d" width="100%%" role="%s" aria-labelledby="%s-title %s-desc" font-family="%s" font-size="%d" fill="%s">`+"\n",
		kind, w, h, role, id, id, fontFamily, fontText, ink)
	fmt.Fprintf(&b, `<title id="%s-title">%s</title>`+"\n", id, Escape(title))
	fmt.Fprintf(&b, `<desc id="%s-desc">%s</desc>`+"\n", id, Escape(desc))
	b.WriteString(style + "\n")
	fmt.Fprintf(&b, `<rect class="bg" width="%d" height="%d" fill="white"/>`+"\n", w, h)
	b.WriteString(body)
	b.WriteString("</svg>\n")
	return b.String()
}

// heading writes a chart's visible title, in a smaller font or shortened if it is too long for the width.
func (c *canvas) heading(title string, w float64) {
	fs := fontTitle
	if textWidth(title, fontTitle*1.08) > w-28 {
		fs = fontText
	}
	c.text(14, 24, clip(title, w-28, float64(fs)*1.08), fmt.Sprintf(` class="heading" font-size="%d" font-weight="bold"`, fs))
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

// A chart's markers are one Tab stop (a roving tabindex): the entry marker has tabindex 0 and the others -1,
// and the arrow keys move between them. Each marker says where the arrows lead with its ranks data-nx (left
// to right) and data-ny (bottom to top): ArrowRight goes to data-nx + 1, ArrowUp to data-ny + 1, and so on.
// The page moves the focus and the tabindex 0; a chart on its own (the CLI's SVG) keeps its one Tab stop.

// navPoint is a marker's restart and position on the chart (SVG coordinates, y down).
type navPoint struct {
	Restart int
	X, Y    float64
}

// navigation ranks the markers for the arrow keys and picks the one Tab stop: the selected restart's marker,
// or else the leftmost.
type navigation struct {
	nx, ny map[int]int
	entry  int
}

func navigate(pts []navPoint, selected int) navigation {
	nv := navigation{nx: map[int]int{}, ny: map[int]int{}, entry: -1}
	byX := append([]navPoint(nil), pts...)
	sort.SliceStable(byX, func(a, b int) bool {
		p, q := byX[a], byX[b]
		if p.X != q.X {
			return p.X < q.X
		}
		if p.Y != q.Y {
			return p.Y > q.Y
		}
		return p.Restart < q.Restart
	})
	byY := append([]navPoint(nil), pts...)
	sort.SliceStable(byY, func(a, b int) bool {
		p, q := byY[a], byY[b]
		if p.Y != q.Y {
			return p.Y > q.Y // bottom first: ArrowUp climbs
		}
		if p.X != q.X {
			return p.X < q.X
		}
		return p.Restart < q.Restart
	})
	for i, p := range byX {
		nv.nx[p.Restart] = i
	}
	for i, p := range byY {
		nv.ny[p.Restart] = i
	}
	if len(byX) > 0 {
		nv.entry = byX[0].Restart
	}
	if _, ok := nv.nx[selected]; ok && selected >= 0 {
		nv.entry = selected
	}
	return nv
}

// attrs are a marker's focus attributes: its tabindex and its ranks.
func (nv navigation) attrs(restart int) string {
	tab := -1
	if restart == nv.entry {
		tab = 0
	}
	return fmt.Sprintf(`tabindex="%d" data-nx="%d" data-ny="%d"`, tab, nv.nx[restart], nv.ny[restart])
}
