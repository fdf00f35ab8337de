package figures

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Font sizes, in viewBox units. The charts are 480 units wide, so at 350 px these shrink by 0.73.
const (
	fontTitle  = 15
	fontText   = 13 // axis titles, tick labels, legends
	fontSmall  = 12 // digits in markers, values beside markers
	markerR    = 9  // radius of a label marker
	legendStep = 22 // height of a legend line
)

const fontFamily = "system-ui, sans-serif"

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

// marker writes a label marker at (x, y): a circle in the label's colour with the label's number on it, or, when
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

// legendLabels is the legend's labels: one item of markers with their numbers, or, for classes whose names are
// not their numbers (names, the models' description's), an item per label, its marker and its name.
func legendLabels(labels []int, names []string) []legendItem {
	if !named(labels, names) {
		w := float64(len(labels))*(2*markerR+4) - 4
		return []legendItem{{width: w, draw: func(c *canvas, x, y float64) {
			for i, l := range labels {
				c.printf(`<g class="key" data-label="%d">`, l)
				c.marker(x+markerR+float64(i)*(2*markerR+4), y, l, false, false)
				c.b.WriteString("</g>\n")
			}
		}}}
	}
	var items []legendItem
	for _, l := range labels {
		name := strconv.Itoa(l)
		if l < len(names) {
			name = names[l]
		}
		items = append(items, legendItem{width: 2*markerR + 5 + textWidth(name, fontText), draw: func(c *canvas, x, y float64) {
			c.printf(`<g class="key" data-label="%d">`, l)
			c.marker(x+markerR, y, l, false, false)
			c.text(x+2*markerR+5, y+0.35*fontText, name, "")
			c.b.WriteString("</g>\n")
		}})
	}
	return items
}

// named says whether any of the labels has a name other than its number.
func named(labels []int, names []string) bool {
	for _, l := range labels {
		if l < len(names) && names[l] != strconv.Itoa(l) {
			return true
		}
	}
	return false
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
