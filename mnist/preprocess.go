package mnist

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"

	"github.com/deltaclue/deltaclue/internal/plural"
)

// ErrEmpty is returned by Preprocess for an image with no ink.
var ErrEmpty = errors.New("the image is empty: it has no ink to read as a digit")

// FileError is an error about the image of a named file (an upload, a -png), worded for the user as one sentence
// that starts with the file's name: "blank.png is empty: it has no ink to read as a digit." errors.Is and
// errors.As still find the error it wraps.
type FileError struct {
	Name string
	Err  error
	Noun string // what the image should show ("digit" when empty)
}

func (e *FileError) Error() string {
	if errors.Is(e.Err, ErrEmpty) {
		noun := e.Noun
		if noun == "" {
			noun = "digit"
		}
		return e.Name + " is empty: it has no ink to read as " + plural.A(noun) + "."
	}
	return e.Name + " could not be read: " + strings.TrimSuffix(e.Err.Error(), ".") + "."
}

func (e *FileError) Unwrap() error { return e.Err }

// InkThreshold is the intensity above which a pixel counts as ink when finding a digit's bounding box.
const InkThreshold = 0.05

// Preprocess turns a greyscale image of a digit (w×h intensities in [0, 1], ink bright on a dark background,
// row-major) into an MNIST-style 28×28 image, as MNIST itself was made: the ink's bounding box is scaled,
// keeping its aspect ratio, so its longer side is 20 pixels (anti-aliased by area averaging), and the result is
// placed in the 28×28 field so that its centre of mass falls on the centre (rounded to whole pixels).
func Preprocess(img []float32, w, h int) ([]float32, error) { return Frame(img, w, h, Side, Side) }

// Frame is Preprocess for a field of any size tw×th: the ink's longer side is scaled to 20/28 of the field's
// shorter side (rounded), and its centre of mass placed on the field's centre. For 28×28 it is Preprocess, bit
// for bit.
func Frame(img []float32, w, h, tw, th int) ([]float32, error) {
	return frame(img, w, h, tw, th, false)
}

// FrameFill frames an image as Fashion-MNIST's were made: the ink's bounding box (the object, trimmed of its
// background) scaled, keeping its aspect ratio, so that its longer side fills the field's shorter side, and
// centred by its box.
func FrameFill(img []float32, w, h, tw, th int) ([]float32, error) {
	return frame(img, w, h, tw, th, true)
}

func frame(img []float32, w, h, tw, th int, fill bool) ([]float32, error) {
	if w <= 0 || h <= 0 || len(img) != w*h {
		return nil, errors.New("the image's size does not match its pixels")
	}
	if tw <= 0 || th <= 0 {
		return nil, errors.New("the field to frame the image in is empty")
	}
	x0, y0, x1, y1 := w, h, -1, -1
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := img[y*w+x]
			if !(v >= 0 && v <= 1) {
				return nil, errors.New("pixel intensities must lie in [0, 1]")
			}
			if v > InkThreshold {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return nil, ErrEmpty
	}
	box := max(1, int(math.Round(float64(min(tw, th))*20/28))) // 20 for MNIST's 28
	if fill {
		box = min(tw, th)
	}
	bw, bh := x1-x0+1, y1-y0+1
	scale := float64(box) / float64(max(bw, bh))
	bx, by := max(1, int(math.Round(float64(bw)*scale))), max(1, int(math.Round(float64(bh)*scale)))
	ink := areaResample(img, w, x0, y0, bw, bh, bx, by)
	var mass, mx, my float64
	for y := 0; y < by; y++ {
		for x := 0; x < bx; x++ {
			v := float64(ink[y*bx+x])
			mass += v
			mx += v * float64(x)
			my += v * float64(y)
		}
	}
	// pixel centres: the field's centre is at 13.5 for MNIST's 28
	ox := int(math.Round(float64(tw-1)/2 - mx/mass))
	oy := int(math.Round(float64(th-1)/2 - my/mass))
	if fill { // the box's centre on the field's
		ox, oy = (tw-bx)/2, (th-by)/2
	}
	out := make([]float32, tw*th)
	for y := 0; y < by; y++ {
		for x := 0; x < bx; x++ {
			if u, v := x+ox, y+oy; u >= 0 && v >= 0 && u < tw && v < th {
				out[v*tw+u] = ink[y*bx+x]
			}
		}
	}
	return out, nil
}

// Resample scales a whole w×h image (values in [0, 1], row-major) to tw×th by area averaging, as Frame scales
// the ink's box, without keeping the aspect ratio.
func Resample(img []float32, w, h, tw, th int) ([]float32, error) {
	if w <= 0 || h <= 0 || len(img) != w*h || tw <= 0 || th <= 0 {
		return nil, errors.New("the image's size does not match its pixels")
	}
	return areaResample(img, w, 0, 0, w, h, tw, th), nil
}

// areaResample scales the bw×bh box at (x0, y0) of a w-wide image to tw×th, each output pixel the average of
// the input area it covers (fractional pixels weighted by coverage).
func areaResample(img []float32, w, x0, y0, bw, bh, tw, th int) []float32 {
	out := make([]float32, tw*th)
	sx, sy := float64(bw)/float64(tw), float64(bh)/float64(th)
	cols, rows := coverage(bw, tw, sx), coverage(bh, th, sy)
	for ty, r := range rows {
		for tx, c := range cols {
			var sum float64
			for i, cy := range r.cover {
				row := img[(y0+r.first+i)*w+x0+c.first:]
				for j, cx := range c.cover {
					sum += cx * cy * float64(row[j])
				}
			}
			out[ty*tw+tx] = float32(math.Min(1, sum/(sx*sy)))
		}
	}
	return out
}

// span is the input pixels one output pixel covers along an axis: from first, how much of each.
type span struct {
	first int
	cover []float64
}

// coverage is the span of each of t output pixels scaling n input pixels by s = n/t, worked out once per axis
// rather than for every pixel of the box (the page's thread reads the pad after every stroke).
func coverage(n, t int, s float64) []span {
	spans := make([]span, t)
	for o := range spans {
		f0, f1 := float64(o)*s, float64(o+1)*s
		sp := span{first: int(f0)}
		for p := int(f0); p < n && float64(p) < f1; p++ {
			sp.cover = append(sp.cover, math.Min(f1, float64(p+1))-math.Max(f0, float64(p)))
		}
		spans[o] = sp
	}
	return spans
}

// Intensities turns RGBA pixels (8 bits each, row-major, as a canvas or a decoded PNG gives them) into ink
// intensities: luminance composited over black, inverted when the image's border is mostly bright (dark ink on
// a light background), so that ink is bright as in MNIST.
func Intensities(rgba []uint8, w, h int) []float32 {
	out, _ := IntensitiesInverted(rgba, w, h)
	return out
}

// IntensitiesInverted is Intensities, and says whether it inverted the image (its border was mostly bright).
func IntensitiesInverted(rgba []uint8, w, h int) ([]float32, bool) {
	out := make([]float32, w*h)
	for o := range out {
		px := binary.LittleEndian.Uint32(rgba[4*o:])
		r := uint8(px)
		if px == uint32(r)*0x010101|0xff000000 {
			out[o] = opaqueGrey[r] // the pad's pixels, and most of a scan's: the same expression, worked out once
			continue
		}
		out[o] = intensity(r, uint8(px>>8), uint8(px>>16), uint8(px>>24))
	}
	// The border's mean, summed in the same row-major order as a scan of every pixel would.
	var border float64
	n := 0
	for y := 0; y < h; y++ {
		step := w - 1 // the first and last pixel of an inner row
		if y == 0 || y == h-1 {
			step = 1 // every pixel of the first and last rows
		}
		for x := 0; x < w; x += max(step, 1) {
			border += float64(out[y*w+x])
			n++
		}
	}
	if n > 0 && border/float64(n) > 0.5 {
		for i, v := range out {
			out[i] = 1 - v
		}
		return out, true
	}
	return out, false
}

// intensity is one pixel's ink: its luminance composited over black.
func intensity(r, g, b, a uint8) float32 {
	return float32((0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 255 * float64(a) / 255)
}

// opaqueGrey is intensity(v, v, v, 255) for every v: a canvas holds 78,400 pixels, and working each out took the
// page's thread 1.4 ms after every stroke.
var opaqueGrey = func() (t [256]float32) {
	for v := range t {
		t[v] = intensity(uint8(v), uint8(v), uint8(v), 255)
	}
	return t
}()
