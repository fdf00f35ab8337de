package app

import (
	"fmt"
	"math"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Pixel work is done in Go into RGBA buffers and handed to canvases with putImageData; text is drawn with the
// canvas's own fillText.

// digitRGBA renders a 28×28 image (ink bright) as dark ink on white, magnified by scale.
func digitRGBA(x []float32, scale int) []byte { return digitInto(nil, x, scale) }

// digitInto is digitRGBA written into dst's memory when it is large enough.
func digitInto(dst []byte, x []float32, scale int) []byte {
	return magnify(dst, scale, func(i int) (r, g, b byte) {
		v := byte(255 - 255*min(max(x[i], 0), 1))
		return v, v, v
	})
}

// diffRGBA renders what an explanation changes in x0: ink it adds in blue, ink it removes in orange (a pair
// colour-blind readers tell apart; the page's legend names them too), over a faint x0.
func diffRGBA(x0, e []float32, scale int) []byte {
	return magnify(nil, scale, func(i int) (byte, byte, byte) {
		d := e[i] - x0[i]
		base := 255 - 60*min(max(x0[i], 0), 1)
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

// magnify makes the RGBA pixels of a 28×28 image magnified by scale, each of its pixels (colour(i) of pixel i)
// a scale×scale block: the colour is worked out once per pixel, and each block row copied, rather than the
// colour worked out again for every pixel of the block (16 times for a card). It writes into dst's memory when
// that is large enough.
func magnify(dst []byte, scale int, colour func(i int) (r, g, b byte)) []byte {
	side := 28 * scale
	out := dst
	if cap(out) < side*side*4 {
		out = make([]byte, side*side*4)
	}
	out = out[:side*side*4]
	for y := 0; y < 28; y++ {
		row := out[y*scale*side*4 : (y*scale+1)*side*4]
		for u := 0; u < 28; u++ {
			r, g, b := colour(y*28 + u)
			for o := u * scale * 4; o < (u+1)*scale*4; o += 4 {
				row[o], row[o+1], row[o+2], row[o+3] = r, g, b, 255
			}
		}
		for k := 1; k < scale; k++ {
			copy(out[(y*scale+k)*side*4:(y*scale+k+1)*side*4], row)
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

// drawDigit draws a 28×28 image filling the canvas with the given id (its size: 28·scale), unless it shows it
// already; it says whether it drew.
func drawDigit(id string, x []float32, scale int) (drew bool) {
	if len(x) != 784 {
		return false
	}
	if c := unlessShown(id, fmt.Sprintf("digit %x %d", imageHash(x), scale)); c != nil {
		putRGBA(c.Call("getContext", "2d"), digitRGBA(x, scale), 28*scale, 28*scale, 0, 0)
		return true
	}
	return false
}

// drawDiff draws the change from x0 to e into the canvas with the given id, unless it shows it already; it
// says whether it drew.
func drawDiff(id string, x0, e []float32, scale int) (drew bool) {
	if len(x0) != 784 || len(e) != 784 {
		return false
	}
	if c := unlessShown(id, fmt.Sprintf("diff %x %x %d", imageHash(x0), imageHash(e), scale)); c != nil {
		putRGBA(c.Call("getContext", "2d"), diffRGBA(x0, e, scale), 28*scale, 28*scale, 0, 0)
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
