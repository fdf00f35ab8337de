package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/core"
	"github.com/deltaclue/deltaclue/internal/picture"
	"github.com/deltaclue/deltaclue/mnist"
)

// The drawing pad: strokes of ink (white on black, or any colour for a colour model) drawn with pointer events
// (mouse, touch and pen), kept as point lists so that Undo can redraw all but the last.
const padSide = 280 // px, the pad's longer side

// padSize is the pad's size: the longer side padSide, the input's aspect.
func padSize() (w, h int) {
	m := served()
	if m.Width >= m.Height {
		return padSide, max(1, (padSide*m.Height+m.Width/2)/m.Width)
	}
	return max(1, (padSide*m.Width+m.Height/2)/m.Height), padSide
}

// padStroke is the pen's width in pad pixels: 18 for the digits' 28 (after MNIST's reduction to a 20-pixel box,
// about MNIST's stroke width), the same share of a smaller or larger input.
func padStroke() float64 {
	m := served()
	return min(60, max(4, 18*28/float64(min(m.Width, m.Height))))
}

// redrawPad paints the pad: base (an input, such as a shared link's, or nil) and every stroke over it.
func redrawPad(base []float32, strokes [][]core.Point, inks []string) {
	ctx := padContext()
	if ctx == nil {
		return
	}
	w, h := padSize()
	ctx.Set("fillStyle", "#000")
	ctx.Call("fillRect", 0, 0, w, h)
	if len(base) == served().Size() {
		putRGBA(ctx, padRGBA(base), w, h, 0, 0)
	}
	for i, s := range strokes {
		ink := ""
		if i < len(inks) {
			ink = inks[i]
		}
		drawStroke(ctx, s, ink)
	}
}

// drawStroke draws a stroke in ink (a CSS colour; "" is white).
func drawStroke(ctx app.Value, s []core.Point, ink string) {
	if len(s) == 0 {
		return
	}
	if ink == "" {
		ink = "#fff"
	}
	width := padStroke()
	ctx.Set("strokeStyle", ink)
	ctx.Set("fillStyle", ink)
	ctx.Set("lineWidth", width)
	ctx.Set("lineCap", "round")
	ctx.Set("lineJoin", "round")
	if len(s) == 1 {
		ctx.Call("beginPath")
		ctx.Call("arc", s[0].X, s[0].Y, width/2, 0, 6.2832)
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

// padInput turns the pad into the models' input (picture.Fit: the digits' is MNIST's preprocessing).
func padInput() ([]float32, error) {
	ctx := padContext()
	if ctx == nil {
		return nil, mnist.ErrEmpty
	}
	w, h := padSize()
	return picture.Fit(canvasImage(ctx, w, h), w, h, served().Input)
}

// padRGBA is an input enlarged to the pad, interpolated bilinearly: smooth enough that a stroke added to it reads
// as one drawing. Each channel is first clamped into a grid with a border of zeros, and each column's source and
// weight are worked out once: done per pixel (four clamps and bounds checks each, 78,400 pixels), it was the
// largest part of opening a link on the page's thread. An ink input is white on black.
func padRGBA(x []float32) []byte {
	m := served()
	W, H := m.Width, m.Height
	pw, ph := padSize()
	sx, sy := float32(pw)/float32(W), float32(ph)/float32(H)
	gw := W + 2
	g := make([]float32, gw*(H+2))                    // a channel clamped to [0, 1], at (r+1, c+1); zero around it
	cols, fxs := make([]int, pw), make([]float32, pw) // the column left of each pad pixel, in g
	for px := range pw {
		u := (float32(px)+0.5)/sx - 0.5
		c := int(u+1) - 1 // floor for u ≥ −1
		cols[px], fxs[px] = c+1, u-float32(c)
	}
	out := make([]byte, pw*ph*4)
	for ch := range m.Channels {
		plane := x[ch*W*H : (ch+1)*W*H]
		for r := range H {
			for c := range W {
				g[(r+1)*gw+c+1] = min(max(plane[r*W+c], 0), 1)
			}
		}
		for py := range ph {
			v := (float32(py)+0.5)/sy - 0.5
			r := int(v+1) - 1 // floor for v ≥ −1
			fy := v - float32(r)
			top, bottom := g[(r+1)*gw:(r+2)*gw], g[(r+2)*gw:(r+3)*gw]
			row := out[py*pw*4 : (py+1)*pw*4]
			for px := range pw {
				c, fx := cols[px], fxs[px]
				i := (1-fy)*((1-fx)*top[c]+fx*top[c+1]) + fy*((1-fx)*bottom[c]+fx*bottom[c+1])
				v := byte(255*i + 0.5)
				o := px * 4
				if m.Channels == 1 {
					row[o], row[o+1], row[o+2] = v, v, v
				} else {
					row[o+ch] = v
				}
				row[o+3] = 255
			}
		}
	}
	return out
}
