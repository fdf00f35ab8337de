package imagekind

// The drawing pad on the page: strokes of ink (white on black, or any colour for a colour model) drawn with
// pointer events (mouse, touch and pen), and read back into the models' input after each.

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/internal/picture"
	"github.com/deltaclue/deltaclue/mnist"
)

// PadSide is the pad's longer side, in px.
const PadSide = 280

// drawPanel is the Draw tab: the pad, its tools and the live preview's switch.
func (i *Image) drawPanel(host inputkind.Host, open bool) app.UI {
	pw, ph := i.padSize()
	tools := []app.UI{
		app.If(i.colour(), func() app.UI {
			return app.Label().Class("check").Body(app.Text("ink "), app.Input().ID("ink").Type("color").Value(inkOr(i.pad.Ink)).
				OnInput(func(ctx app.Context, _ app.Event) { i.pad.Ink = ctx.JSSrc().Get("value").String() }))
		}),
		app.Button().ID("undo").Text("Undo").Disabled(!i.pad.CanUndo()).OnClick(func(ctx app.Context, _ app.Event) {
			if i.pad.Undo() {
				i.padChanged(ctx, host)
			}
		}),
		app.Button().ID("clear").Text("Clear").Disabled(!i.pad.CanClear()).OnClick(func(ctx app.Context, _ app.Event) {
			i.pad.Clear()
			i.padChanged(ctx, host)
		}),
	}
	return app.Div().Class("tab-panel draw").Hidden(!open).Body(
		app.Canvas().ID("pad").Class("pad").Width(pw).Height(ph).Aria("label", "drawing pad: draw "+i.aNoun()).
			On("pointerdown", i.padDown).On("pointermove", i.padMove).
			On("pointerup", func(ctx app.Context, ev app.Event) { i.padUp(ctx, host) }).
			On("pointercancel", func(ctx app.Context, ev app.Event) { i.padUp(ctx, host) }),
		app.Div().Class("row pad-tools").Body(append(tools, host.LiveSwitch()...)...),
	)
}

// padSize is the pad's size: the longer side PadSide, the input's aspect.
func (i *Image) padSize() (w, h int) {
	in := i.m.Input
	if in.Width >= in.Height {
		return PadSide, max(1, (PadSide*in.Height+in.Width/2)/in.Width)
	}
	return max(1, (PadSide*in.Width+in.Height/2)/in.Height), PadSide
}

// padStroke is the pen's width in pad pixels: 18 for the digits' 28 (after MNIST's reduction to a 20-pixel box,
// about MNIST's stroke width), the same share of a smaller or larger input.
func (i *Image) padStroke() float64 {
	return min(60, max(4, 18*28/float64(min(i.m.Input.Width, i.m.Input.Height))))
}

func padPoint(ev app.Event) Point {
	return Point{X: ev.Get("offsetX").Float(), Y: ev.Get("offsetY").Float()}
}

func (i *Image) padDown(ctx app.Context, ev app.Event) {
	ev.PreventDefault()
	ctx.JSSrc().Call("setPointerCapture", ev.Get("pointerId"))
	i.pad.PenDown(padPoint(ev))
	i.redrawPad()
}

func (i *Image) padMove(ctx app.Context, ev app.Event) {
	ctx.PreventUpdate()
	if !i.pad.PenMove(padPoint(ev)) {
		return
	}
	ev.PreventDefault()
	if c := padContext(); c != nil {
		s := i.pad.Strokes[len(i.pad.Strokes)-1]
		i.drawStroke(c, s[len(s)-2:], i.pad.Ink)
	}
}

func (i *Image) padUp(ctx app.Context, host inputkind.Host) {
	if !i.pad.PenUp() {
		ctx.PreventUpdate()
		return
	}
	i.padChanged(ctx, host)
}

// padChanged makes what the pad shows the input: the shared image itself when nothing is drawn over it, or the
// drawing read back (a stroke's edit, with its live preview), or nothing.
func (i *Image) padChanged(ctx app.Context, host inputkind.Host) {
	i.redrawPad()
	if i.pad.BackToBase() { // back to the shared digit itself, not a redrawing of it
		host.Take(ctx, i.pad.Base, "the shared link")
		return
	}
	x, err := i.padInput()
	if err != nil {
		host.Drop(ctx)
		return
	}
	host.Take(ctx, x, i.pad.DrawnSource())
	host.Edited(ctx)
}

// redrawPad paints the pad: its base (an input, such as a shared link's, or none) and every stroke over it.
func (i *Image) redrawPad() {
	ctx := padContext()
	if ctx == nil {
		return
	}
	w, h := i.padSize()
	ctx.Set("fillStyle", "#000")
	ctx.Call("fillRect", 0, 0, w, h)
	if len(i.pad.Base) == i.size() {
		webjs.PutRGBA(ctx, i.padRGBA(i.pad.Base), w, h, 0, 0)
	}
	for k, s := range i.pad.Strokes {
		ink := ""
		if k < len(i.pad.Inks) {
			ink = i.pad.Inks[k]
		}
		i.drawStroke(ctx, s, ink)
	}
}

// drawStroke draws a stroke in ink (a CSS colour; "" is white).
func (i *Image) drawStroke(ctx app.Value, s []Point, ink string) {
	if len(s) == 0 {
		return
	}
	if ink == "" {
		ink = "#fff"
	}
	width := i.padStroke()
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
func padContext() app.Value { return webjs.ReadableCanvas2d(app.Window().GetElementByID("pad")) }

// padInput turns the pad into the models' input (picture.Fit: the digits' is MNIST's preprocessing).
func (i *Image) padInput() ([]float32, error) {
	ctx := padContext()
	if ctx == nil {
		return nil, mnist.ErrEmpty
	}
	w, h := i.padSize()
	return picture.Fit(webjs.CanvasImage(ctx, w, h), w, h, i.m.Input)
}

// padRGBA is an input enlarged to the pad, interpolated bilinearly: smooth enough that a stroke added to it reads
// as one drawing. Each channel is first clamped into a grid with a border of zeros, and each column's source and
// weight are worked out once: done per pixel (four clamps and bounds checks each, 78,400 pixels), it was the
// largest part of opening a link on the page's thread. An ink input is white on black.
func (i *Image) padRGBA(x []float32) []byte {
	W, H, channels := i.m.Input.Width, i.m.Input.Height, i.m.Input.Channels
	pw, ph := i.padSize()
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
	for ch := range channels {
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
				in := (1-fy)*((1-fx)*top[c]+fx*top[c+1]) + fy*((1-fx)*bottom[c]+fx*bottom[c+1])
				v := byte(255*in + 0.5)
				o := px * 4
				if channels == 1 {
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

// inkOr is the pad's ink colour, white when none was chosen.
func inkOr(ink string) string {
	if ink == "" {
		return "#ffffff"
	}
	return ink
}
