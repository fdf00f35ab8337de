package app

import (
	"fmt"
	"math"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Pixel work is done in Go into RGBA buffers and handed to canvases with putImageData; text is drawn with the
// canvas's own fillText.

// inputRGBA renders an input as the page shows it, magnified by scale: ink (one channel) dark on white, as
// the figures print it; colour as it is.
func inputRGBA(x []float32, scale int) []byte { return inputInto(nil, x, scale) }

// inputInto is inputRGBA written into dst's memory when it is large enough.
func inputInto(dst []byte, x []float32, scale int) []byte {
	if m := served(); m.colour() {
		n := m.Height * m.Width
		return magnify(dst, scale, func(i int) (r, g, b byte) { return unit(x[i]), unit(x[n+i]), unit(x[2*n+i]) })
	}
	return magnify(dst, scale, func(i int) (r, g, b byte) {
		v := byte(255 - 255*min(max(x[i], 0), 1))
		return v, v, v
	})
}

// unit is a value of [0, 1] as a byte (clamped).
func unit(v float32) byte { return byte(255 * min(max(v, 0), 1)) }

// diffRGBA renders what an explanation changes in x0: ink it adds in blue, ink it removes in orange (a pair
// colour-blind readers tell apart; the page's legend names them too), over a faint x0. For colour inputs the
// change is the channels' mean, over x0's faint luminance.
func diffRGBA(x0, e []float32, scale int) []byte {
	m := served()
	n := m.Height * m.Width
	return magnify(nil, scale, func(i int) (byte, byte, byte) {
		var d, v float32
		for c := range m.Channels {
			d += e[c*n+i] - x0[c*n+i]
			v += min(max(x0[c*n+i], 0), 1)
		}
		d, v = d/float32(m.Channels), v/float32(m.Channels)
		base := 255 - 60*v
		r, g, b := base, base, base
		switch {
		case d > 0: // towards #0072B2
			r, g, b = base+(0-base)*d, base+(114-base)*d, base+(178-base)*d
		case d < 0: // towards #D55E00
			r, g, b = base+(213-base)*(-d), base+(94-base)*(-d), base+(0-base)*(-d)
		}
		return byte(r), byte(g), byte(b)
	})
}

// magnify makes the RGBA pixels of an input's image magnified by scale, each of its pixels (colour(i) of pixel
// i) a scale×scale block: the colour is worked out once per pixel, and each block row copied, rather than the
// colour worked out again for every pixel of the block (16 times for a card). It writes into dst's memory when
// that is large enough.
func magnify(dst []byte, scale int, colour func(i int) (r, g, b byte)) []byte {
	m := served()
	w, h := m.Width*scale, m.Height*scale
	out := dst
	if cap(out) < w*h*4 {
		out = make([]byte, w*h*4)
	}
	out = out[:w*h*4]
	for y := 0; y < m.Height; y++ {
		row := out[y*scale*w*4 : (y*scale+1)*w*4]
		for u := 0; u < m.Width; u++ {
			r, g, b := colour(y*m.Width + u)
			for o := u * scale * 4; o < (u+1)*scale*4; o += 4 {
				row[o], row[o+1], row[o+2], row[o+3] = r, g, b, 255
			}
		}
		for k := 1; k < scale; k++ {
			copy(out[(y*scale+k)*w*4:(y*scale+k+1)*w*4], row)
		}
	}
	return out
}

// imageHash names an image by its bits (FNV-1a; not its address, which a later image may reuse).
func imageHash(x []float32) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range x {
		h = (h ^ uint64(math.Float32bits(v))) * 1099511628211
	}
	return h
}

// putRGBA draws w×h RGBA pixels at (x, y) of a canvas 2-D context.
func putRGBA(ctx2d app.Value, rgba []byte, w, h, x, y int) {
	arr := app.Window().Get("Uint8ClampedArray").New(len(rgba))
	app.CopyBytesToJS(arr, rgba)
	ctx2d.Call("putImageData", app.Window().Get("ImageData").New(arr, w, h), x, y)
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

// drawInput draws an input filling the canvas with the given id (its size: the input's magnified by scale),
// unless it shows it already; it says whether it drew.
func drawInput(id string, x []float32, scale int) (drew bool) {
	m := served()
	if len(x) != m.Size() {
		return false
	}
	if c := unlessShown(id, fmt.Sprintf("input %x %d", imageHash(x), scale)); c != nil {
		putRGBA(c.Call("getContext", "2d"), inputRGBA(x, scale), m.Width*scale, m.Height*scale, 0, 0)
		return true
	}
	return false
}

// drawDiff draws the change from x0 to e into the canvas with the given id, unless it shows it already; it
// says whether it drew.
func drawDiff(id string, x0, e []float32, scale int) (drew bool) {
	m := served()
	if len(x0) != m.Size() || len(e) != m.Size() {
		return false
	}
	if c := unlessShown(id, fmt.Sprintf("diff %x %x %d", imageHash(x0), imageHash(e), scale)); c != nil {
		putRGBA(c.Call("getContext", "2d"), diffRGBA(x0, e, scale), m.Width*scale, m.Height*scale, 0, 0)
		return true
	}
	return false
}

// unlessShown returns the canvas with the given id, unless it already shows what key names (or there is no
// such canvas). The page redraws its cards' and detail's canvases at every redraw of the results, ten times a
// second while a set streams in. A canvas whose size changed since was cleared, so its size is part of the key.
func unlessShown(id, key string) app.Value {
	c := app.Window().GetElementByID(id)
	if c.IsNull() || c.IsUndefined() {
		return nil
	}
	key = fmt.Sprintf("%s %dx%d", key, c.Get("width").Int(), c.Get("height").Int())
	if c.Get("deltaclueShows").String() == key {
		return nil
	}
	c.Set("deltaclueShows", key)
	return c
}

// inputCanvas is a canvas the size of an input magnified by scale (drawInput and drawDiff fill it).
func inputCanvas(id string, scale int) app.HTMLCanvas {
	m := served()
	return app.Canvas().ID(id).Width(m.Width * scale).Height(m.Height * scale)
}

// Magnifications of the page's views of an input, about so many px on the longer side (the digits' 28·k).
func detailScale() int { return served().magnification(140) }
func thumbScale() int  { return served().magnification(56) }
