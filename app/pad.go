package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/mnist"
)

// The drawing pad: strokes of white ink on black, drawn with pointer events (mouse, touch and pen), kept as
// point lists so that Undo can redraw all but the last.
const (
	padSize   = 280
	padStroke = 18 // pixels: after the 280 → 20-pixel box reduction, about MNIST's stroke width
)

type point struct{ X, Y float64 }

// redrawPad paints every stroke onto the pad canvas.
func redrawPad(strokes [][]point) {
	ctx := padContext()
	if ctx == nil {
		return
	}
	ctx.Set("fillStyle", "#000")
	ctx.Call("fillRect", 0, 0, padSize, padSize)
	for _, s := range strokes {
		drawStroke(ctx, s)
	}
}

func drawStroke(ctx app.Value, s []point) {
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
