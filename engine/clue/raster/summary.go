package raster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// The colours of a difference image, as on the page: ink added in blue, ink removed in orange (a pair
// colour-blind readers tell apart), over a faint x0.
var (
	addedInk   = RGB{0x00, 0x72, 0xB2}
	removedInk = RGB{0xD5, 0x5E, 0x00}
	cardBorder = RGB{205, 205, 205}
)

// DrawDiff paints what e changes in x0 (of shape s), magnified by scale: blue where e adds ink, orange where
// it removes it, over a faint x0 (the page's diffRGBA); for colour, the channels' mean change.
func DrawDiff(img *Image, x0, y0 int, orig, e []float32, s Shape, scale int) {
	n := s.Height * s.Width
	for i := range n {
		var d, v float32
		for c := range s.Channels {
			d += e[c*n+i] - orig[c*n+i]
			v += min(max(orig[c*n+i], 0), 1)
		}
		d, v = min(max(d/float32(s.Channels), -1), 1), v/float32(s.Channels)
		base := 255 - 60*v
		r, g, b := base, base, base
		switch {
		case d > 0:
			r, g, b = base+(float32(addedInk.R)-base)*d, base+(float32(addedInk.G)-base)*d, base+(float32(addedInk.B)-base)*d
		case d < 0:
			r, g, b = base+(float32(removedInk.R)-base)*(-d), base+(float32(removedInk.G)-base)*(-d), base+(float32(removedInk.B)-base)*(-d)
		}
		s.pixel(img, x0, y0, i, scale, RGB{uint8(r), uint8(g), uint8(b)})
	}
}

// HexColour reads "#RRGGBB".
func HexColour(s string) RGB {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	if err != nil {
		return Black
	}
	return RGB{uint8(v >> 16), uint8(v >> 8), uint8(v)}
}

// Wrap breaks s into lines of at most width characters, at spaces (a longer word gets a line of its own).
func Wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// StrokeRect draws a one-pixel rectangle outline.
func StrokeRect(img *Image, x0, y0, x1, y1 int, c RGB) {
	FillRect(img, x0, y0, x1, y0+1, c)
	FillRect(img, x0, y1-1, x1, y1, c)
	FillRect(img, x0, y0, x0+1, y1, c)
	FillRect(img, x1-1, y0, x1, y1, c)
}

// Summary draws the set as one figure: the input (drawn by d) with the model's reading, then one card per mode
// (clue.ModeCards' order) with its representative explanation, the change from x0, its label (named in w), H,
// d and how many restarts landed there, and the plain-words sentence across the bottom.
func Summary(input string, d Drawer, w clue.Words, x0 []float32, pred0 engine.Uncertainty, p clue.Params, exps []clue.Explanation, sum clue.Summary, sentence string) *Image {
	scale := d.Fit(112) // the digits' are 4: 112 px
	sideW, side := d.Size(scale)
	cardH := 12 + max(side, 56+12+2*22) + 4 + 10 + 8
	const (
		pad     = 16
		text    = 2 // body text: 12 px per character, 14 px high
		lineH   = 22
		cardW   = 500
		cardGap = 12
		cols    = 2
		width   = 2*pad + cols*cardW + (cols-1)*cardGap
		chars   = (width - 2*pad) / (6 * text)
	)
	cards := clue.ModeCards(exps, sum)
	byRestart := map[int]clue.Explanation{}
	for _, e := range exps {
		byRestart[e.Restart] = e
	}
	title := Wrap("δ-CLUE summary of "+input, chars)
	words := Wrap(sentence, chars)
	headerH := pad + len(title)*lineH + 6 + side + 20
	cardsH := (len(cards) + cols - 1) / cols * (cardH + cardGap)
	if len(cards) == 0 {
		cardsH = 2 * lineH
	}
	height := headerH + cardsH + 8 + len(words)*lineH + pad
	img := New(width, height)
	FillRect(img, 0, 0, width, height, White)

	// The input and what the model makes of it.
	y := pad
	for _, l := range title {
		DrawText(img, pad, y, l, text, Black)
		y += lineH
	}
	y += 6
	d.Draw(img, pad, y, x0, scale)
	StrokeRect(img, pad-1, y-1, pad+sideW+1, y+side+1, cardBorder)
	label0 := pred0.Label()
	tx := pad + sideW + 20
	DrawText(img, tx, y+2, "x0: the model reads "+w.Class(label0), 3, Black)
	DrawText(img, tx, y+34, fmt.Sprintf("p(%s) %.2f, H %.2f nats (aleatoric %.2f, epistemic %.2f)", w.Class(label0), pred0.Probs[label0],
		pred0.Total, pred0.Aleatoric, pred0.Epistemic), text, Black)
	modes := 0
	for _, m := range sum.Modes {
		modes += m
	}
	found := fmt.Sprintf("δ %g, %s: %d accepted (H < %g)", p.Delta, plural.Count(sum.Restarts, "restart"), sum.Accepted, p.HThreshold)
	if modes > 0 {
		found += fmt.Sprintf(" in %s", plural.Count(modes, "mode"))
	}
	DrawText(img, tx, y+34+lineH, found, text, Grey)
	ly := y + 34 + 2*lineH
	lx := tx
	DrawText(img, lx, ly, "change from x0:", text, Grey)
	lx += 16 * 6 * text
	FillRect(img, lx, ly, lx+14, ly+14, addedInk)
	added, removed := d.Changes()
	DrawText(img, lx+20, ly, added, text, addedInk)
	lx += 20 + (len([]rune(added))+1)*6*text
	FillRect(img, lx, ly, lx+14, ly+14, removedInk)
	DrawText(img, lx+20, ly, removed, text, removedInk)

	// One card per mode.
	if len(cards) == 0 {
		DrawText(img, pad, headerH+4, "No mode: no restart reached "+w.AnInput()+" the model is sure of.", text, Grey)
	}
	for k, c := range cards {
		x, y := pad+(k%cols)*(cardW+cardGap), headerH+(k/cols)*(cardH+cardGap)
		StrokeRect(img, x, y, x+cardW, y+cardH, cardBorder)
		e := byRestart[c.Representative]
		d.Draw(img, x+12, y+12, e.Image, scale)
		d.DrawDiff(img, x+12+sideW+8, y+12, x0, e.Image, scale)
		DrawText(img, x+12, y+12+side+4, fmt.Sprintf("restart %d", c.Representative), 1, Grey)
		DrawText(img, x+12+sideW+8, y+12+side+4, "change from x0", 1, Grey)
		tx := x + 12 + 2*sideW + 8 + 16
		fill := HexColour(figures.LabelColour(c.Label))
		FillRect(img, tx, y+12, tx+56, y+12+56, fill)
		// A one-character name fills the label's square; a longer one goes beside it, the square numbered.
		name, mark := w.Class(c.Label), strconv.Itoa(c.Label)
		if len([]rune(name)) == 1 {
			mark = name
		}
		if len(mark) == 1 {
			DrawText(img, tx+13, y+12+7, mark, 6, HexColour(figures.LabelTextColour(c.Label)))
		} else {
			DrawText(img, tx+28-len(mark)*9, y+12+18, mark, 3, HexColour(figures.LabelTextColour(c.Label)))
		}
		py := "p(y) " + fmt.Sprintf("%.2f", c.P)
		if mark != name {
			py = name + " · " + py
		}
		DrawText(img, tx+68, y+12+6, py, text, Black)
		if f := c.FormText(); f != "" {
			DrawText(img, tx+68, y+12+6+lineH, f, text, Grey)
		}
		DrawText(img, tx, y+12+56+12, fmt.Sprintf("H %.2f d %.1f", c.HTotal, c.Distance), text, Black)
		DrawText(img, tx, y+12+56+12+lineH, plural.Of(c.Count, sum.Restarts, "restart"), text, Black)
	}

	// The sentence.
	y = headerH + cardsH + 8
	for _, l := range words {
		DrawText(img, pad, y, l, text, Black)
		y += lineH
	}
	return img
}
