package app

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// inputRGBAPerPixel and diffRGBAPerPixel are the images as first written, each pixel of the magnified image
// worked out from its source pixel: the references magnify must match byte for byte.
func inputRGBAPerPixel(x []float32, scale int) []byte {
	side := 28 * scale
	out := make([]byte, side*side*4)
	for y := 0; y < side; y++ {
		for u := 0; u < side; u++ {
			v := x[(y/scale)*28+u/scale]
			g := byte(255 - 255*min(max(v, 0), 1))
			o := (y*side + u) * 4
			out[o], out[o+1], out[o+2], out[o+3] = g, g, g, 255
		}
	}
	return out
}

func diffRGBAPerPixel(x0, e []float32, scale int) []byte {
	side := 28 * scale
	out := make([]byte, side*side*4)
	for y := 0; y < side; y++ {
		for u := 0; u < side; u++ {
			i := (y/scale)*28 + u/scale
			d := e[i] - x0[i]
			base := 255 - 60*min(max(x0[i], 0), 1)
			r, g, b := base, base, base
			switch {
			case d > 0:
				r, g, b = base+(0-base)*d, base+(114-base)*d, base+(178-base)*d
			case d < 0:
				r, g, b = base+(213-base)*(-d), base+(94-base)*(-d), base+(0-base)*(-d)
			}
			o := (y*side + u) * 4
			out[o], out[o+1], out[o+2], out[o+3] = byte(r), byte(g), byte(b), 255
		}
	}
	return out
}

func randomImage(r *rand.Rand) []float32 {
	x := make([]float32, 784)
	for i := range x {
		x[i] = r.Float32()*1.4 - 0.2 // a little out of range both ways: the clamp
	}
	return x
}

func TestMagnifiedImagesMatchThePerPixelOnes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := range 20 {
		x0, e := randomImage(r), randomImage(r)
		for scale := 1; scale <= 4; scale++ {
			if !bytes.Equal(inputRGBA(e, scale), inputRGBAPerPixel(e, scale)) {
				t.Fatalf("image %d, scale %d: the digit differs from the per-pixel one", k, scale)
			}
			if !bytes.Equal(diffRGBA(x0, e, scale), diffRGBAPerPixel(x0, e, scale)) {
				t.Fatalf("image %d, scale %d: the difference differs from the per-pixel one", k, scale)
			}
		}
	}
}

func BenchmarkCardImages(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x0, e := randomImage(r), randomImage(r)
	b.Run("magnified", func(b *testing.B) {
		for b.Loop() {
			inputRGBA(e, cardScale())
			diffRGBA(x0, e, cardScale())
		}
	})
	b.Run("per-pixel", func(b *testing.B) {
		for b.Loop() {
			inputRGBAPerPixel(e, cardScale())
			diffRGBAPerPixel(x0, e, cardScale())
		}
	})
}
