package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/deltaclue/deltaclue/app/raster"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/plural"
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

// The grid's cells: label and H (7 px high) at the top, the image 10 px down, the distance 2 px under the image,
// and 20 px of raster.White before the next row's label, so that a distance reads as its own image's, not the next row's.
const (
	gridCellW = 64
	gridCellH = 10 + 28*2 + 2 + 8 + 20
)

// renderGrid draws x0 and the explanations laid out like the paper's figure of 100 δ-CLUEs: each image with
// its label and H above and its distance d below; rejected ones (H ≥ threshold) are greyed, failed ones blank.
func renderGrid(x0 []float32, label0 int, h0 float32, exps []clue.Explanation, cols int) *raster.Image {
	const scale, cellW, cellH, pad = 2, gridCellW, gridCellH, 8
	rows := (len(exps) + cols - 1) / cols
	header := 90
	img := raster.New(pad*2+cols*cellW, header+rows*cellH+pad)
	raster.FillRect(img, 0, 0, img.W, img.H, raster.White)
	raster.DrawDigit(img, pad, pad, x0, scale)
	raster.DrawText(img, pad+64, pad+10, fmt.Sprintf("x0: %d H=%.2f", label0, h0), 2, raster.Black)
	raster.DrawText(img, pad+64, pad+34, plural.Count(len(exps), "restart")+": label, H above; d below", 2, raster.Grey)
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
		raster.DrawText(img, x+2, y, fmt.Sprintf("%d %.2f", e.Label, e.HTotal), 1, c)
		raster.DrawDigit(img, x+2, y+10, e.Image, scale)
		raster.DrawText(img, x+2, y+10+28*scale+2, fmt.Sprintf("%.1f", e.Distance), 1, c)
	}
	return img
}

// renderLabelChart draws two bar charts side by side: the BNN's prediction on x0, and the label distribution
// of the δ-CLUEs, p(y) ∝ 1/cost_min(y)².
func renderLabelChart(pred0 []float32, dist []float64) *raster.Image {
	const barW, gap, height, pad = 22, 6, 200, 30
	panelW := 10*(barW+gap) + pad
	img := raster.New(2*panelW+pad, height+3*pad+30)
	raster.FillRect(img, 0, 0, img.W, img.H, raster.White)
	panel := func(x0 int, title string, vals []float64, c raster.RGB) {
		raster.DrawText(img, x0, 8, title, 2, raster.Black)
		base := pad + 20 + height
		for k, v := range vals {
			x := x0 + k*(barW+gap)
			h := int(v * height)
			raster.FillRect(img, x, base-h, x+barW, base, c)
			raster.DrawText(img, x+barW/2-3, base+6, fmt.Sprint(k), 1, raster.Black)
		}
		raster.FillRect(img, x0, base, x0+10*(barW+gap)-gap, base+1, raster.Black)
	}
	p0 := make([]float64, len(pred0))
	for k, v := range pred0 {
		p0[k] = float64(v)
	}
	panel(pad, "BNN on x0", p0, blue)
	panel(pad+panelW, "label distribution", dist, red)
	return img
}
