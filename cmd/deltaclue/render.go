package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"sort"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/plural"
)

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
	grey  = color.RGBA{110, 110, 110, 255}
	red   = color.RGBA{200, 40, 40, 255}
	blue  = color.RGBA{40, 90, 200, 255}
)

// drawDigit paints a 28×28 image (ink bright) as dark ink on white, magnified by scale.
func drawDigit(img *image.RGBA, x0, y0 int, pixels []float32, scale int) {
	for i, v := range pixels {
		g := uint8(255 - 255*min(max(v, 0), 1))
		for sy := 0; sy < scale; sy++ {
			for sx := 0; sx < scale; sx++ {
				img.Set(x0+(i%28)*scale+sx, y0+(i/28)*scale+sy, color.RGBA{g, g, g, 255})
			}
		}
	}
}

func fillRect(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			img.Set(x, y, c)
		}
	}
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
// and 20 px of white before the next row's label, so that a distance reads as its own image's, not the next row's.
const (
	gridCellW = 64
	gridCellH = 10 + 28*2 + 2 + 8 + 20
)

// renderGrid draws x0 and the explanations laid out like the paper's figure of 100 δ-CLUEs: each image with
// its label and H above and its distance d below; rejected ones (H ≥ threshold) are greyed, failed ones blank.
func renderGrid(x0 []float32, label0 int, h0 float32, exps []clue.Explanation, cols int) *image.RGBA {
	const scale, cellW, cellH, pad = 2, gridCellW, gridCellH, 8
	rows := (len(exps) + cols - 1) / cols
	header := 90
	img := image.NewRGBA(image.Rect(0, 0, pad*2+cols*cellW, header+rows*cellH+pad))
	fillRect(img, 0, 0, img.Bounds().Dx(), img.Bounds().Dy(), white)
	drawDigit(img, pad, pad, x0, scale)
	drawText(img, pad+64, pad+10, fmt.Sprintf("x0: %d H=%.2f", label0, h0), 2, black)
	drawText(img, pad+64, pad+34, plural.Count(len(exps), "restart")+": label, H above; d below", 2, grey)
	for k, e := range gridOrder(exps) {
		x, y := pad+(k%cols)*cellW, header+(k/cols)*cellH
		if e.Failed != "" {
			drawText(img, x+4, y+30, "-", 2, red)
			continue
		}
		c := black
		if !e.Accepted {
			c = grey
		}
		drawText(img, x+2, y, fmt.Sprintf("%d %.2f", e.Label, e.HTotal), 1, c)
		drawDigit(img, x+2, y+10, e.Image, scale)
		drawText(img, x+2, y+10+28*scale+2, fmt.Sprintf("%.1f", e.Distance), 1, c)
	}
	return img
}

// renderLabelChart draws two bar charts side by side: the BNN's prediction on x0, and the label distribution
// of the δ-CLUEs, p(y) ∝ 1/cost_min(y)².
func renderLabelChart(pred0 []float32, dist []float64) *image.RGBA {
	const barW, gap, height, pad = 22, 6, 200, 30
	panelW := 10*(barW+gap) + pad
	img := image.NewRGBA(image.Rect(0, 0, 2*panelW+pad, height+3*pad+30))
	fillRect(img, 0, 0, img.Bounds().Dx(), img.Bounds().Dy(), white)
	panel := func(x0 int, title string, vals []float64, c color.Color) {
		drawText(img, x0, 8, title, 2, black)
		base := pad + 20 + height
		for k, v := range vals {
			x := x0 + k*(barW+gap)
			h := int(v * height)
			fillRect(img, x, base-h, x+barW, base, c)
			drawText(img, x+barW/2-3, base+6, fmt.Sprint(k), 1, black)
		}
		fillRect(img, x0, base, x0+10*(barW+gap)-gap, base+1, black)
	}
	p0 := make([]float64, len(pred0))
	for k, v := range pred0 {
		p0[k] = float64(v)
	}
	panel(pad, "BNN on x0", p0, blue)
	panel(pad+panelW, "label distribution", dist, red)
	return img
}
