package imagekind

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/weights"
)

// digits is the digits' kind: 28×28 ink.
var digits = New(Models{Input: weights.Input{Height: 28, Width: 28, Channels: 1}, Served: inputkind.Served{Noun: "digit", Classes: 10}})

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
			if !bytes.Equal(digits.inputRGBA(e, scale), inputRGBAPerPixel(e, scale)) {
				t.Fatalf("image %d, scale %d: the digit differs from the per-pixel one", k, scale)
			}
			if !bytes.Equal(digits.diffRGBA(x0, e, scale), diffRGBAPerPixel(x0, e, scale)) {
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
			digits.inputRGBA(e, digits.scale(inputkind.Card))
			digits.diffRGBA(x0, e, digits.scale(inputkind.Card))
		}
	})
	b.Run("per-pixel", func(b *testing.B) {
		for b.Loop() {
			inputRGBAPerPixel(e, digits.scale(inputkind.Card))
			diffRGBAPerPixel(x0, e, digits.scale(inputkind.Card))
		}
	})
}

func TestDiffColours(t *testing.T) {
	x0, e := make([]float32, 784), make([]float32, 784)
	e[0], x0[1] = 1, 1 // pixel 0 added, pixel 1 removed
	d := digits.diffRGBA(x0, e, 1)
	if r, g := d[0], d[1]; !(g > r) {
		t.Errorf("added ink is not green: %v", d[:4])
	}
	if r, g := d[4], d[5]; !(r > g) {
		t.Errorf("removed ink is not red: %v", d[4:8])
	}
	if d[8] != 255 || d[9] != 255 {
		t.Errorf("an unchanged blank pixel is not white: %v", d[8:12])
	}
}

func TestSizesAndPlaceholders(t *testing.T) {
	if got := digits.scale(inputkind.Card); got != 4 {
		t.Errorf("a digit's card magnification: %d, want 4 (112 px)", got)
	}
	if w, h := digits.Cell(); w != 56 || h != 56 {
		t.Errorf("a digit's grid cell: %d×%d, want 56×56", w, h)
	}
	want := `<canvas id="a" width="112" height="112" aria-label="the answer"></canvas>`
	if got := digits.PlaceholderHTML("a", inputkind.Card, "the answer"); got != want {
		t.Errorf("placeholder: %s, want %s", got, want)
	}
	if tabs := digits.Tabs(); len(tabs) != 2 || tabs[0].ID != "draw" || tabs[1].ID != "upload" {
		t.Errorf("a digit's tabs without a gallery: %v", tabs)
	}
	shoes := New(Models{Input: weights.Input{Height: 28, Width: 28, Channels: 1, PickFirst: true}, Served: inputkind.Served{Noun: "shoe", Gallery: "web/gallery.json"}})
	if tabs := shoes.Tabs(); len(tabs) != 3 || tabs[0].ID != "gallery" || tabs[2].ID != "draw" {
		t.Errorf("tabs of models picked first, with a gallery: %v", tabs)
	}
}
