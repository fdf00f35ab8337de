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

// canvas2d returns the 2-D context of the canvas with the given id, or nil if there is none.
func canvas2d(id string) app.Value {
	c := app.Window().GetElementByID(id)
	if c.IsNull() || c.IsUndefined() {
		return nil
	}
	return c.Call("getContext", "2d")
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

// Grid layout, like the paper's figure: label and H above each image, distance below.
const (
	gridScale = 2
	cellW     = 28*gridScale + 10
	cellH     = 28*gridScale + 34
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

// drawGrid draws the explanations in order into the grid canvas, highlighting the selected restart; copies
// maps a restart to how many restarts its cell stands for when duplicates are collapsed onto it ("×12").
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
	side := 28 * gridScale
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
		ctx.Call("putImageData", img, (k%cols)*cellW+5, (k/cols)*cellH+16)
	}
	gridCells = cells
	ctx.Set("font", "11px system-ui, sans-serif")
	for k, e := range exps {
		x0, y0 := (k%cols)*cellW+5, (k/cols)*cellH
		colour := "#111"
		if !e.Accepted {
			colour = "#999"
		}
		ctx.Set("fillStyle", colour)
		if e.Failed != "" {
			ctx.Call("fillText", "failed", x0, y0+40)
			continue
		}
		ctx.Call("fillText", fmt.Sprintf("%d  %.2f", e.Label, e.HTotal), x0, y0+12)
		ctx.Call("fillText", fmt.Sprintf("%.1f", e.Distance), x0, y0+16+side+13)
		if n := copies[e.Restart]; n > 1 {
			ctx.Set("textAlign", "right")
			ctx.Call("fillText", fmt.Sprintf("×%d", n), x0+side, y0+16+side+13)
			ctx.Set("textAlign", "left")
		}
		if e.Restart == selected {
			ctx.Set("strokeStyle", "#2563eb")
			ctx.Set("lineWidth", 2)
			ctx.Call("strokeRect", x0-4, y0+1, cellW-2, cellH-2)
		}
	}
}
