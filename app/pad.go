package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/mnist"
)

// The drawing pad: strokes of white ink on black, drawn with pointer events (mouse, touch and pen), kept as
// point lists so that Undo can redraw all but the last.
const (
	padSize   = 280
	padStroke = 18 // pixels: after the 280 → 20-pixel box reduction, about MNIST's stroke width
)

// redrawPad paints the pad: base (a 28×28 image, such as a shared link's digit, or nil) and every stroke over it.
func redrawPad(base []float32, strokes [][]core.Point) {
	ctx := padContext()
	if ctx == nil {
		return
	}
	ctx.Set("fillStyle", "#000")
	ctx.Call("fillRect", 0, 0, padSize, padSize)
	if len(base) == 784 {
		putRGBA(ctx, padRGBA(base), padSize, padSize, 0, 0)
	}
	for _, s := range strokes {
		drawStroke(ctx, s)
	}
}

func drawStroke(ctx app.Value, s []core.Point) {
	if len(s) == 0 {
		return
	}
	ctx.Set("strokeStyle", "#fff")
	ctx.Set("fillStyle", "#fff")
	ctx.Set("lineWidth", padStroke)
	ctx.Set("lineCap", "round")
	ctx.Set("lineJoin", "round")
	if len(s) == 1 {
		ctx.Call("beginPath")
		ctx.Call("arc", s[0].X, s[0].Y, padStroke/2, 0, 6.2832)
		ctx.Call("fill")
		return
	}
	ctx.Call("beginPath")
	ctx.Call("moveTo", s[0].X, s[0].Y)
	for _, p := range s[1:] {
		ctx.Call("lineTo", p.X, p.Y)
	}
	ctx.Call("stroke")
}

// padContext is the pad's 2-D context, which the page reads back after every stroke.
func padContext() app.Value { return readableCanvas2d(app.Window().GetElementByID("pad")) }

// canvasImage reads a canvas (or any image drawn onto a w×h canvas) as RGBA bytes.
func canvasImage(ctx app.Value, w, h int) []byte {
	data := ctx.Call("getImageData", 0, 0, w, h).Get("data")
	rgba := make([]byte, w*h*4)
	app.CopyBytesToGo(rgba, data)
	return rgba
}

// padDigit turns the pad into an MNIST-style 28×28 image.
func padDigit() ([]float32, error) {
	ctx := padContext()
	if ctx == nil {
		return nil, mnist.ErrEmpty
	}
	return mnist.Preprocess(mnist.Intensities(canvasImage(ctx, padSize, padSize), padSize, padSize), padSize, padSize)
}

// padRGBA is a 28×28 image enlarged to the pad, white ink on black, interpolated bilinearly: smooth enough that
// a stroke added to it reads as one drawing. The image is first clamped into a grid with a border of zeros,
// and each column's source and weight are worked out once: done per pixel (four clamps and bounds checks
// each, 78,400 pixels), it was the largest part of opening a link on the page's thread.
func padRGBA(x []float32) []byte {
	const scale = padSize / 28
	var g [30 * 30]float32 // x clamped to [0, 1], at (r+1, c+1); zero around it
	for r := 0; r < 28; r++ {
		for c := 0; c < 28; c++ {
			g[(r+1)*30+c+1] = min(max(x[r*28+c], 0), 1)
		}
	}
	var cols [padSize]int // the column left of each pad pixel, in g
	var fxs [padSize]float32
	for px := 0; px < padSize; px++ {
		u := (float32(px)+0.5)/scale - 0.5
		c := int(u+1) - 1 // floor for u ≥ −1
		cols[px], fxs[px] = c+1, u-float32(c)
	}
	out := make([]byte, padSize*padSize*4)
	for py := 0; py < padSize; py++ {
		v := (float32(py)+0.5)/scale - 0.5
		r := int(v+1) - 1 // floor for v ≥ −1
		fy := v - float32(r)
		top, bottom := g[(r+1)*30:(r+2)*30], g[(r+2)*30:(r+3)*30]
		row := out[py*padSize*4 : (py+1)*padSize*4]
		for px := 0; px < padSize; px++ {
			c, fx := cols[px], fxs[px]
			i := (1-fy)*((1-fx)*top[c]+fx*top[c+1]) + fy*((1-fx)*bottom[c]+fx*bottom[c+1])
			v := byte(255*i + 0.5)
			o := px * 4
			row[o], row[o+1], row[o+2], row[o+3] = v, v, v, 255
		}
	}
	return out
}
