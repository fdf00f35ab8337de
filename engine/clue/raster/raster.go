// Package raster draws the project's PNG figures pixel by pixel, with its own 5×7 font and its own PNG writer:
// the same function gives the same bytes in `deltaclue explain` and in the page's download. It does without Go's
// image packages, which would add 55 KB (gzipped) to the page.
package raster

import (
	"bytes"
	"compress/flate"
	"hash/crc32"
)

// RGB is an opaque colour.
type RGB struct{ R, G, B uint8 }

// The figures' ink.
var (
	White = RGB{255, 255, 255}
	Black = RGB{0, 0, 0}
	Grey  = RGB{110, 110, 110}
)

// Image is an opaque W×H picture, 3 bytes (R, G, B) per pixel, row by row.
type Image struct {
	W, H int
	Pix  []uint8
}

// New returns a black w×h image.
func New(w, h int) *Image { return &Image{W: w, H: h, Pix: make([]uint8, 3*w*h)} }

// Set paints one pixel; outside the image it does nothing.
func (m *Image) Set(x, y int, c RGB) {
	if x < 0 || y < 0 || x >= m.W || y >= m.H {
		return
	}
	i := 3 * (y*m.W + x)
	m.Pix[i], m.Pix[i+1], m.Pix[i+2] = c.R, c.G, c.B
}

// At is the colour of one pixel (black outside the image).
func (m *Image) At(x, y int) RGB {
	if x < 0 || y < 0 || x >= m.W || y >= m.H {
		return Black
	}
	i := 3 * (y*m.W + x)
	return RGB{m.Pix[i], m.Pix[i+1], m.Pix[i+2]}
}

// Shape is an input's height, width and channels: one channel is ink, drawn dark on white; three are colour.
type Shape struct{ Height, Width, Channels int }

// Digits is the digits' 28×28 ink.
var Digits = Shape{28, 28, 1}

// pixel fills input pixel i (of a Shape's plane) at (x0, y0) magnified by scale.
func (s Shape) pixel(img *Image, x0, y0, i, scale int, c RGB) {
	x, y := i%s.Width, i/s.Width
	FillRect(img, x0+x*scale, y0+y*scale, x0+(x+1)*scale, y0+(y+1)*scale, c)
}

// DrawInput paints an input of shape s, magnified by scale: ink (one channel) as dark ink on white, colour as
// it is.
func DrawInput(img *Image, x0, y0 int, pixels []float32, s Shape, scale int) {
	n := s.Height * s.Width
	unit := func(v float32) uint8 { return uint8(255 * min(max(v, 0), 1)) }
	for i := range n {
		if s.Channels == 3 {
			s.pixel(img, x0, y0, i, scale, RGB{unit(pixels[i]), unit(pixels[n+i]), unit(pixels[2*n+i])})
			continue
		}
		g := uint8(255 - 255*min(max(pixels[i], 0), 1))
		s.pixel(img, x0, y0, i, scale, RGB{g, g, g})
	}
}

// FillRect fills [x0, x1) × [y0, y1).
func FillRect(img *Image, x0, y0, x1, y1 int, c RGB) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			img.Set(x, y, c)
		}
	}
}

// PNG encodes an image as an 8-bit RGB PNG, every row unfiltered, its zlib stream deflated at the best level.
// (Written out by hand: encoding/binary and compress/zlib would add 17 KB gzipped to the page for a few lines.)
func PNG(img *Image) []byte {
	be32 := func(b []byte, v uint32) []byte { return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v)) }
	out := []byte("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		out = be32(out, uint32(len(data)))
		start := len(out)
		out = append(append(out, kind...), data...)
		out = be32(out, crc32.ChecksumIEEE(out[start:]))
	}
	hdr := be32(be32(nil, uint32(img.W)), uint32(img.H))
	chunk("IHDR", append(hdr, 8, 2, 0, 0, 0)) // 8 bits, RGB; compression, filter and interlace methods 0
	raw := make([]byte, 0, img.H*(1+3*img.W))
	for y := 0; y < img.H; y++ {
		raw = append(append(raw, 0), img.Pix[3*y*img.W:3*(y+1)*img.W]...)
	}
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda}) // zlib: deflate, 32 KB window, best compression
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(raw)
	w.Close()
	a, b := uint32(1), uint32(0) // Adler-32 of the uncompressed stream
	for _, c := range raw {
		a = (a + uint32(c)) % 65521
		b = (b + a) % 65521
	}
	chunk("IDAT", be32(z.Bytes(), b<<16|a))
	chunk("IEND", nil)
	return out
}
