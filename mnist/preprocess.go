package mnist

import (
	"errors"
	"math"
	"strings"
)

// ErrEmpty is returned by Preprocess for an image with no ink.
var ErrEmpty = errors.New("the image is empty: it has no ink to read as a digit")

// FileError is an error about the image of a named file (an upload, a -png), worded for the user as one sentence
// that starts with the file's name: "blank.png is empty: it has no ink to read as a digit." errors.Is and
// errors.As still find the error it wraps.
type FileError struct {
	Name string
	Err  error
}

func (e *FileError) Error() string {
	if errors.Is(e.Err, ErrEmpty) {
		return e.Name + " is empty: it has no ink to read as a digit."
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
func Preprocess(img []float32, w, h int) ([]float32, error) {
	if w <= 0 || h <= 0 || len(img) != w*h {
		return nil, errors.New("the image's size does not match its pixels")
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
	bw, bh := x1-x0+1, y1-y0+1
	scale := 20 / float64(max(bw, bh))
	tw, th := max(1, int(math.Round(float64(bw)*scale))), max(1, int(math.Round(float64(bh)*scale)))
	box := areaResample(img, w, x0, y0, bw, bh, tw, th)
	var mass, mx, my float64
	for y := 0; y < th; y++ {
		for x := 0; x < tw; x++ {
			v := float64(box[y*tw+x])
			mass += v
			mx += v * float64(x)
			my += v * float64(y)
		}
	}
	ox := int(math.Round(13.5 - mx/mass)) // pixel centres: the field's centre is at 13.5
	oy := int(math.Round(13.5 - my/mass))
	out := make([]float32, Pixels)
	for y := 0; y < th; y++ {
		for x := 0; x < tw; x++ {
			if u, v := x+ox, y+oy; u >= 0 && v >= 0 && u < Side && v < Side {
				out[v*Side+u] = box[y*tw+x]
			}
		}
	}
	return out, nil
}

// areaResample scales the bw×bh box at (x0, y0) of a w-wide image to tw×th, each output pixel the average of
// the input area it covers (fractional pixels weighted by coverage).
func areaResample(img []float32, w, x0, y0, bw, bh, tw, th int) []float32 {
	out := make([]float32, tw*th)
	sx, sy := float64(bw)/float64(tw), float64(bh)/float64(th)
	for ty := 0; ty < th; ty++ {
		fy0, fy1 := float64(ty)*sy, float64(ty+1)*sy
		for tx := 0; tx < tw; tx++ {
			fx0, fx1 := float64(tx)*sx, float64(tx+1)*sx
			var sum float64
			for y := int(fy0); y < bh && float64(y) < fy1; y++ {
				cy := math.Min(fy1, float64(y+1)) - math.Max(fy0, float64(y))
				for x := int(fx0); x < bw && float64(x) < fx1; x++ {
					cx := math.Min(fx1, float64(x+1)) - math.Max(fx0, float64(x))
					sum += cx * cy * float64(img[(y0+y)*w+x0+x])
				}
			}
			out[ty*tw+tx] = float32(math.Min(1, sum/(sx*sy)))
		}
	}
	return out
}

// Intensities turns RGBA pixels (8 bits each, row-major, as a canvas or a decoded PNG gives them) into ink
// intensities: luminance composited over black, inverted when the image's border is mostly bright (dark ink on
// a light background), so that ink is bright as in MNIST.
func Intensities(rgba []uint8, w, h int) []float32 {
	out := make([]float32, w*h)
	for i := range out {
		r, g, b, a := float64(rgba[4*i]), float64(rgba[4*i+1]), float64(rgba[4*i+2]), float64(rgba[4*i+3])
		out[i] = float32((0.299*r + 0.587*g + 0.114*b) / 255 * a / 255)
	}
	var border float64
	n := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				border += float64(out[y*w+x])
				n++
			}
		}
	}
	if n > 0 && border/float64(n) > 0.5 {
		for i, v := range out {
			out[i] = 1 - v
		}
	}
	return out
}
