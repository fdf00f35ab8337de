package imagekind

// Images shown on canvases: pixel work is done in Go into RGBA buffers and handed to canvases with
// putImageData.

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue/figures"
)

// scale is the whole factor that shows an image about s px on its longer side.
func (i *Image) scale(s inputkind.Size) int { return i.Fit(int(s)) }

// Placeholder is a canvas the size of an image magnified for s (Fill and FillDiff fill it).
func (i *Image) Placeholder(id string, s inputkind.Size, label string) app.UI {
	w, h := i.Size(i.scale(s))
	c := app.Canvas().ID(id).Width(w).Height(h)
	if label != "" {
		c = c.Aria("label", label)
	}
	return c
}

// PlaceholderHTML is Placeholder as HTML.
func (i *Image) PlaceholderHTML(id string, s inputkind.Size, label string) string {
	w, h := i.Size(i.scale(s))
	aria := ""
	if label != "" {
		aria = ` aria-label="` + figures.Escape(label) + `"`
	}
	return fmt.Sprintf(`<canvas id="%s" width="%d" height="%d"%s></canvas>`, id, w, h, aria)
}

// Fill draws an image filling the canvas with the given id, unless it shows it already.
func (i *Image) Fill(id string, x []float32, s inputkind.Size) (drew bool) {
	if len(x) != i.size() {
		return false
	}
	k := i.scale(s)
	if c := webjs.UnlessShown(id, fmt.Sprintf("input %x %d", inputkind.Hash(x), k)); c != nil {
		w, h := i.Size(k)
		webjs.PutRGBA(c.Call("getContext", "2d"), i.inputRGBA(x, k), w, h, 0, 0)
		return true
	}
	return false
}

// FillDiff draws the change from x0 to e into the canvas with the given id, unless it shows it already.
func (i *Image) FillDiff(id string, x0, e []float32, s inputkind.Size) (drew bool) {
	if len(x0) != i.size() || len(e) != i.size() {
		return false
	}
	k := i.scale(s)
	if c := webjs.UnlessShown(id, fmt.Sprintf("diff %x %x %d", inputkind.Hash(x0), inputkind.Hash(e), k)); c != nil {
		w, h := i.Size(k)
		webjs.PutRGBA(c.Call("getContext", "2d"), i.diffRGBA(x0, e, k), w, h, 0, 0)
		return true
	}
	return false
}

// Cell is an image's size in the grid: about a thumbnail's.
func (i *Image) Cell() (w, h int) { return i.Size(i.scale(inputkind.Thumb)) }

// DrawCell draws an explanation's image as the grid shows it: faded when it is not accepted. Its pixels are
// written into i.cell, which the next cell overwrites: putImageData copies them out at once, and a new buffer
// for each of the cells of a large set (12 MB for 1000) made the page's collector run during the search.
func (i *Image) DrawCell(c2d app.Value, x, y int, _, e []float32, faded bool) {
	if len(e) != i.size() {
		return
	}
	k := i.scale(inputkind.Thumb)
	i.cell = i.inputInto(i.cell, e, k)
	d := i.cell
	if faded {
		for j := 0; j < len(d); j += 4 {
			for c := 0; c < 3; c++ {
				d[j+c] = byte(150 + int(d[j+c])*105/255)
			}
		}
	}
	w, h := i.Size(k)
	webjs.PutRGBA(c2d, d, w, h, x, y)
}

// inputRGBA renders an input as the page shows it, magnified by scale: ink (one channel) dark on white, as
// the figures print it; colour as it is.
func (i *Image) inputRGBA(x []float32, scale int) []byte { return i.inputInto(nil, x, scale) }

// inputInto is inputRGBA written into dst's memory when it is large enough.
func (i *Image) inputInto(dst []byte, x []float32, scale int) []byte {
	if i.colour() {
		n := i.m.Input.Height * i.m.Input.Width
		return i.magnify(dst, scale, func(j int) (r, g, b byte) { return unit(x[j]), unit(x[n+j]), unit(x[2*n+j]) })
	}
	return i.magnify(dst, scale, func(j int) (r, g, b byte) {
		v := byte(255 - 255*min(max(x[j], 0), 1))
		return v, v, v
	})
}

// unit is a value of [0, 1] as a byte (clamped).
func unit(v float32) byte { return byte(255 * min(max(v, 0), 1)) }

// diffRGBA renders what an explanation changes in x0: ink it adds in blue, ink it removes in orange (a pair
// colour-blind readers tell apart; the page's legend names them too), over a faint x0. For colour inputs the
// change is the channels' mean, over x0's faint luminance.
func (i *Image) diffRGBA(x0, e []float32, scale int) []byte {
	n, channels := i.m.Input.Height*i.m.Input.Width, i.m.Input.Channels
	return i.magnify(nil, scale, func(j int) (byte, byte, byte) {
		var d, v float32
		for c := range channels {
			d += e[c*n+j] - x0[c*n+j]
			v += min(max(x0[c*n+j], 0), 1)
		}
		d, v = d/float32(channels), v/float32(channels)
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

// magnify makes the RGBA pixels of an input's image magnified by scale, each of its pixels (colour(j) of pixel
// j) a scale×scale block: the colour is worked out once per pixel, and each block row copied, rather than the
// colour worked out again for every pixel of the block (16 times for a card). It writes into dst's memory when
// that is large enough.
func (i *Image) magnify(dst []byte, scale int, colour func(j int) (r, g, b byte)) []byte {
	W, H := i.m.Input.Width, i.m.Input.Height
	w, h := W*scale, H*scale
	out := dst
	if cap(out) < w*h*4 {
		out = make([]byte, w*h*4)
	}
	out = out[:w*h*4]
	for y := 0; y < H; y++ {
		row := out[y*scale*w*4 : (y*scale+1)*w*4]
		for u := 0; u < W; u++ {
			r, g, b := colour(y*W + u)
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
