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
// a stroke added to it reads as one drawing.
func padRGBA(x []float32) []byte {
	const scale = padSize / 28
	at := func(r, c int) float32 {
		if r < 0 || c < 0 || r >= 28 || c >= 28 {
			return 0
		}
		return min(max(x[r*28+c], 0), 1)
	}
	out := make([]byte, padSize*padSize*4)
	for py := 0; py < padSize; py++ {
		v := (float32(py)+0.5)/scale - 0.5
		r := int(v+1) - 1 // floor for v ≥ −1
		fy := v - float32(r)
		for px := 0; px < padSize; px++ {
			u := (float32(px)+0.5)/scale - 0.5
			c := int(u+1) - 1
			fx := u - float32(c)
			i := (1-fy)*((1-fx)*at(r, c)+fx*at(r, c+1)) + fy*((1-fx)*at(r+1, c)+fx*at(r+1, c+1))
			g := byte(255*i + 0.5)
			o := (py*padSize + px) * 4
			out[o], out[o+1], out[o+2], out[o+3] = g, g, g, 255
		}
	}
	return out
}
