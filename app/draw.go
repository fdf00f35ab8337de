package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// Pixel work is done in Go into RGBA buffers and handed to canvases with putImageData; text is drawn with the
// canvas's own fillText.

// digitRGBA renders a 28×28 image (ink bright) as dark ink on white, magnified by scale.
func digitRGBA(x []float32, scale int) []byte {
	side := 28 * scale
	out := make([]byte, side*side*4)
	for y := 0; y < side; y++ {
		for u := 0; u < side; u++ {
			v := x[(y/scale)*28+u/scale]
			g := byte(255 - 255*min(max(v, 0), 1))
			o := (y*side + u) * 4
			out[o], out[o+1], out[o+2], out[o+3] = g, g, g, 255
		}
	}
	return out
}

// diffRGBA renders what an explanation changes in x0: ink it adds in blue, ink it removes in orange (a pair
// colour-blind readers tell apart; the page's legend names them too), over a faint x0.
func diffRGBA(x0, e []float32, scale int) []byte {
	side := 28 * scale
	out := make([]byte, side*side*4)
	for y := 0; y < side; y++ {
		for u := 0; u < side; u++ {
			i := (y/scale)*28 + u/scale
			d := e[i] - x0[i]
			base := 255 - 60*min(max(x0[i], 0), 1)
			r, g, b := base, base, base
			switch {
			case d > 0: // towards #0072B2
				r, g, b = base+(0-base)*d, base+(114-base)*d, base+(178-base)*d
			case d < 0: // towards #D55E00
				r, g, b = base+(213-base)*(-d), base+(94-base)*(-d), base+(0-base)*(-d)
			}
			o := (y*side + u) * 4
			out[o], out[o+1], out[o+2], out[o+3] = byte(r), byte(g), byte(b), 255
		}
	}
	return out
}

// putRGBA draws w×h RGBA pixels at (x, y) of a canvas 2-D context.
func putRGBA(ctx2d app.Value, rgba []byte, w, h, x, y int) {
	arr := app.Window().Get("Uint8ClampedArray").New(len(rgba))
	app.CopyBytesToJS(arr, rgba)
	ctx2d.Call("putImageData", app.Window().Get("ImageData").New(arr, w, h), x, y)
}

// canvas2d returns the 2-D context of the canvas with the given id, or nil if there is none. Only drawn on,
// never read back (see readableCanvas2d).
func canvas2d(id string) app.Value {
	c := app.Window().GetElementByID(id)
	if c.IsNull() || c.IsUndefined() {
		return nil
	}
	return c.Call("getContext", "2d")
}

// readableCanvas2d returns the 2-D context of a canvas whose pixels the page reads back (getImageData), made
// with willReadFrequently: Chromium then keeps it in memory rather than on the GPU, and does not warn on
// every run that repeated read-backs are slow. A canvas keeps the options of its first getContext, so every
// use of such a canvas goes through here.
func readableCanvas2d(c app.Value) app.Value {
	if c.IsNull() || c.IsUndefined() {
		return nil
	}
	return c.Call("getContext", "2d", map[string]any{"willReadFrequently": true})
}

// drawDigit draws a 28×28 image filling the canvas with the given id (its size: 28·scale).
func drawDigit(id string, x []float32, scale int) {
	if ctx := canvas2d(id); ctx != nil && len(x) == 784 {
		putRGBA(ctx, digitRGBA(x, scale), 28*scale, 28*scale, 0, 0)
	}
}

// drawDiff draws the change from x0 to e into the canvas with the given id.
func drawDiff(id string, x0, e []float32, scale int) {
	if ctx := canvas2d(id); ctx != nil && len(x0) == 784 && len(e) == 784 {
		putRGBA(ctx, diffRGBA(x0, e, scale), 28*scale, 28*scale, 0, 0)
	}
}

// Grid layout, like the paper's figure: label and H above each image, distance (and ×k) below it. Each text
// sits close to its own image and far from the next cell's: the rows and the columns are separated by gaps
// wider than any gap inside a cell, so that no label reads as the neighbour's.
const (
	gridScale   = 2
	gridSide    = 28 * gridScale // an image's side
	gridFont    = 11             // px, the cell texts' font size
	gridAscent  = 8              // px a gridFont digit reaches above its baseline
	gridDescent = 3              // px below it (the "×" and descenders)
	gridPadX    = 8              // px left and right of the image within its cell: 16 between neighbours' images
	labelBase   = 13             // y of the label's baseline, from the cell's top
	imageTop    = labelBase + 4  // the image, just under its label
	distBase    = imageTop + gridSide + gridAscent + 3
	cellW       = gridSide + 2*gridPadX
	cellH       = distBase + gridDescent + 14 // 14 px of air under the distance, before the next row's label
)

// gridSize is the canvas size for n cells in cols columns.
func gridSize(n, cols int) (w, h int) {
	rows := max(1, (n+cols-1)/cols)
	return cols * cellW, rows * cellH
}

// cellAt returns the cell index under canvas coordinates (x, y), or -1.
func cellAt(x, y float64, n, cols int) int {
	c, r := int(x)/cellW, int(y)/cellH
	if x < 0 || y < 0 || c >= cols {
		return -1
	}
	if k := r*cols + c; k < n {
		return k
	}
	return -1
}

// gridCells holds the grid's digits as ImageData, by the explanation's image, from one redraw to the next.
var gridCells map[*float32]app.Value

// cellRGBA is an explanation's digit as the grid shows it: faded when it is not accepted.
func cellRGBA(e clue.Explanation) []byte {
	d := digitRGBA(e.Image, gridScale)
	if !e.Accepted {
		for i := 0; i < len(d); i += 4 {
			for j := 0; j < 3; j++ {
				d[i+j] = byte(150 + int(d[i+j])*105/255)
			}
		}
	}
	return d
}

// imageData copies w×h RGBA pixels into a new ImageData.
func imageData(rgba []byte, w, h int) app.Value {
	arr := app.Window().Get("Uint8ClampedArray").New(len(rgba))
	app.CopyBytesToJS(arr, rgba)
	return app.Window().Get("ImageData").New(arr, w, h)
}

// drawGrid draws the explanations in order into the grid canvas, framing the cell at index selected (none if
// -1); copies maps a restart to how many restarts its cell stands for when duplicates are collapsed onto it
// ("×12").
func drawGrid(id string, exps []clue.Explanation, cols, selected int, copies map[int]int) {
	c := app.Window().GetElementByID(id)
	if c.IsNull() || c.IsUndefined() {
		return
	}
	w, h := gridSize(len(exps), cols)
	if c.Get("width").Int() != w || c.Get("height").Int() != h { // a resize clears and reallocates the canvas
		c.Set("width", w)
		c.Set("height", h)
	}
	ctx := c.Call("getContext", "2d")
	ctx.Set("fillStyle", "#fff")
	ctx.Call("fillRect", 0, 0, w, h)
	if len(exps) == 0 {
		gridCells = nil
		return
	}
	// Each digit is put by itself, from an ImageData made once per explanation: the grid is redrawn ten times a
	// second while results stream in, and one buffer of the whole grid (7 MB for 300 cells) cost the page's
	// thread tens of milliseconds at every redraw.
	side := gridSide
	cells := make(map[*float32]app.Value, len(exps))
	for k, e := range exps {
		if len(e.Image) != 784 {
			continue
		}
		img, ok := gridCells[&e.Image[0]]
		if !ok {
			img = imageData(cellRGBA(e), side, side)
		}
		cells[&e.Image[0]] = img
		ctx.Call("putImageData", img, (k%cols)*cellW+gridPadX, (k/cols)*cellH+imageTop)
	}
	gridCells = cells
	ctx.Set("font", fmt.Sprintf("%dpx system-ui, sans-serif", gridFont))
	for k, e := range exps {
		cx, cy := (k%cols)*cellW, (k/cols)*cellH
		x0 := cx + gridPadX
		colour := "#111"
		if !e.Accepted {
			colour = "#999"
		}
		ctx.Set("fillStyle", colour)
		if e.Failed != "" {
			ctx.Call("fillText", "failed", x0, cy+imageTop+gridSide/2)
		} else {
			ctx.Call("fillText", fmt.Sprintf("%d  %.2f", e.Label, e.HTotal), x0, cy+labelBase)
			ctx.Call("fillText", fmt.Sprintf("%.1f", e.Distance), x0, cy+distBase)
			if n := copies[e.Restart]; n > 1 {
				// A grey tag flush with the image's right edge, inside the cell: it reads as this cell's, not
				// as part of the next cell's distance.
				text := fmt.Sprintf("×%d", n)
				w := ctx.Call("measureText", text).Get("width").Float()
				ctx.Set("fillStyle", "#e5e7eb")
				ctx.Call("fillRect", float64(x0+gridSide)-w-4, cy+distBase-gridAscent-2, w+4, gridAscent+gridDescent+3)
				ctx.Set("fillStyle", colour)
				ctx.Set("textAlign", "right")
				ctx.Call("fillText", text, x0+gridSide-2, cy+distBase)
				ctx.Set("textAlign", "left")
			}
		}
		if k == selected {
			ctx.Set("strokeStyle", "#2563eb")
			ctx.Set("lineWidth", 2)
			ctx.Call("strokeRect", cx+3, cy+2, cellW-6, cellH-4)
		}
	}
}
