package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/raster"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/mnist"
)

// The grid's and the label chart's colours beyond raster's.
var (
	red  = raster.RGB{R: 200, G: 40, B: 40}
	blue = raster.RGB{R: 40, G: 90, B: 200}
)

func writePNG(path string, img *raster.Image) error {
	return os.WriteFile(path, raster.PNG(img), 0o644)
}

// gridOrder sorts explanations for the figure: accepted ones first, by label, then by cost.
func gridOrder(exps []clue.Explanation) []clue.Explanation {
	out := append([]clue.Explanation(nil), exps...)
	sort.SliceStable(out, func(a, b int) bool {
		ea, eb := out[a], out[b]
		if ea.Accepted != eb.Accepted {
			return ea.Accepted
		}
		if ea.Label != eb.Label {
			return ea.Label < eb.Label
		}
		return ea.Cost < eb.Cost
	})
	return out
}

// The digits' grid cells: label and H (7 px high) at the top, the image 10 px down, the distance 2 px under the
// image, and 20 px of raster.White before the next row's label, so that a distance reads as its own image's, not
// the next row's. Other models' cells are as high as their images make them, and wide enough.
const (
	gridCellW = 64
	gridCellH = 10 + 28*2 + 2 + 8 + 20
)

// figure draws the models' inputs and names their classes in the figures: each input magnified by scale to
// about 56 px a side (the digits' 28×28 at 2×).
type figure struct {
	input   kind.Kind // how the models' inputs are drawn
	words   clue.Words
	classes int
	scale   int
}

func figureOf(m *models) figure {
	in := m.input()
	return figure{input: kind.Of(in), words: m.words(), classes: len(m.Description().Classes), scale: max(1, 2*mnist.Side/max(in.Height, in.Width))}
}

// name is class c's name, cut to at most chars characters.
func (f figure) name(c, chars int) string {
	s := f.words.Class(c)
	if r := []rune(s); len(r) > chars {
		s = string(r[:max(chars, 1)])
	}
	return s
}

// grid draws x0 and the explanations laid out like the paper's figure of 100 δ-CLUEs: each image with its label
// and H above and its distance d below; rejected ones (H ≥ threshold) are greyed, failed ones blank.
func (f figure) grid(x0 []float32, label0 int, h0 float32, exps []clue.Explanation, cols int) *raster.Image {
	const pad = 8
	w, h := f.input.Size(f.scale)
	cellW, cellH := max(gridCellW, w+8), 10+h+2+8+20
	rows := (len(exps) + cols - 1) / cols
	header := max(90, pad+h+26)
	img := raster.New(pad*2+cols*cellW, header+rows*cellH+pad)
	raster.FillRect(img, 0, 0, img.W, img.H, raster.White)
	f.input.Draw(img, pad, pad, x0, f.scale)
	raster.DrawText(img, pad+w+8, pad+10, fmt.Sprintf("x0: %s H=%.2f", f.name(label0, 24), h0), 2, raster.Black)
	raster.DrawText(img, pad+w+8, pad+34, plural.Count(len(exps), "restart")+": label, H above; d below", 2, raster.Grey)
	chars := (cellW-2)/6 - 5 // a label's name before " 0.12", 6 px a character
	for k, e := range gridOrder(exps) {
		x, y := pad+(k%cols)*cellW, header+(k/cols)*cellH
		if e.Failed != "" {
			raster.DrawText(img, x+4, y+30, "-", 2, red)
			continue
		}
		c := raster.Black
		if !e.Accepted {
			c = raster.Grey
		}
		raster.DrawText(img, x+2, y, fmt.Sprintf("%s %.2f", f.name(e.Label, chars), e.HTotal), 1, c)
		f.input.Draw(img, x+2, y+10, e.Image, f.scale)
		raster.DrawText(img, x+2, y+10+h+2, fmt.Sprintf("%.1f", e.Distance), 1, c)
	}
	return img
}

// labelChart draws two bar charts side by side: the BNN's prediction on x0, and the label distribution of the
// δ-CLUEs, p(y) ∝ 1/cost_min(y)². Each bar is named under it when every class's name fits its width (the
// digits'), else numbered, with the numbers' names in a legend below.
func (f figure) labelChart(pred0 []float32, dist []float64) *raster.Image {
	const barW, gap, height, pad, lineH = 22, 6, 200, 30, 20
	n := f.classes
	named := true
	for k := range n {
		named = named && 6*len([]rune(f.words.Class(k))) <= barW+gap
	}
	label := func(k int) string {
		if named {
			return f.words.Class(k)
		}
		return fmt.Sprint(k)
	}
	panelW := max(n*(barW+gap)+pad, 6*2*len("label distribution")+pad)
	var legend []string
	if !named {
		parts := make([]string, n)
		for k := range parts {
			parts[k] = fmt.Sprintf("%d %s", k, f.words.Class(k))
		}
		legend = raster.Wrap(strings.Join(parts, ", "), (2*panelW-pad)/6)
	}
	img := raster.New(2*panelW+pad, height+3*pad+30+len(legend)*lineH)
	raster.FillRect(img, 0, 0, img.W, img.H, raster.White)
	base := pad + 20 + height
	panel := func(x0 int, title string, vals []float64, c raster.RGB) {
		raster.DrawText(img, x0, 8, title, 2, raster.Black)
		for k, v := range vals[:min(len(vals), n)] {
			x := x0 + k*(barW+gap)
			h := int(v * height)
			raster.FillRect(img, x, base-h, x+barW, base, c)
			l := label(k)
			raster.DrawText(img, x+barW/2-3*len([]rune(l)), base+6, l, 1, raster.Black)
		}
		raster.FillRect(img, x0, base, x0+n*(barW+gap)-gap, base+1, raster.Black)
	}
	p0 := make([]float64, len(pred0))
	for k, v := range pred0 {
		p0[k] = float64(v)
	}
	panel(pad, "BNN on x0", p0, blue)
	panel(pad+panelW, "label distribution", dist, red)
	for i, l := range legend {
		raster.DrawText(img, pad, base+6+lineH*(i+1), l, 1, raster.Black)
	}
	return img
}
