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
	"strconv"
	"strings"
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
// to write the label's number in on a marker or a bar of that label.
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
