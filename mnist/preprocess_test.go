package mnist

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func blank(w, h int) []float32 { return make([]float32, w*h) }

func fill(img []float32, w, x0, y0, x1, y1 int) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			img[y*w+x] = 1
		}
	}
}

func bbox(img []float32) (x0, y0, x1, y1 int) {
	x0, y0, x1, y1 = Side, Side, -1, -1
	for y := 0; y < Side; y++ {
		for x := 0; x < Side; x++ {
			if img[y*Side+x] > InkThreshold {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	return
}

func centreOfMass(img []float32) (float64, float64) {
	var m, mx, my float64
	for i, v := range img {
		m += float64(v)
		mx += float64(v) * float64(i%Side)
		my += float64(v) * float64(i/Side)
	}
	return mx / m, my / m
}

func TestPreprocessSquareAndBar(t *testing.T) {
	// A 100×100 square anywhere in a 280×200 image becomes a 20×20 square centred in the field.
	img := blank(280, 200)
	fill(img, 280, 150, 20, 250, 120)
	out, err := Preprocess(img, 280, 200)
	if err != nil {
		t.Fatal(err)
	}
	x0, y0, x1, y1 := bbox(out)
	if x1-x0+1 != 20 || y1-y0+1 != 20 || x0 != 4 || y0 != 4 {
		t.Errorf("square's box is (%d,%d)-(%d,%d), want (4,4)-(23,23)", x0, y0, x1, y1)
	}
	for i, v := range out {
		if v != 0 && math.Abs(float64(v)-1) > 1e-6 {
			t.Fatalf("pixel %d of a scaled solid square is %v", i, v)
		}
	}
	// A 10×40 bar keeps its aspect: 5×20.
	img = blank(100, 100)
	fill(img, 100, 10, 30, 20, 70)
	out, _ = Preprocess(img, 100, 100)
	x0, y0, x1, y1 = bbox(out)
	if x1-x0+1 != 5 || y1-y0+1 != 20 {
		t.Errorf("bar's box is %d×%d, want 5×20", x1-x0+1, y1-y0+1)
	}
}

func TestPreprocessCentresTheMass(t *testing.T) {
	// An L shape: its box is centred in the field only if mass is ignored; the mass must be central instead.
	img := blank(60, 60)
	fill(img, 60, 5, 5, 15, 55)   // long vertical stroke
	fill(img, 60, 15, 45, 55, 55) // foot
	out, _ := Preprocess(img, 60, 60)
	cx, cy := centreOfMass(out)
	if math.Abs(cx-13.5) > 0.5 || math.Abs(cy-13.5) > 0.5 {
		t.Errorf("centre of mass at (%.2f, %.2f), want within half a pixel of (13.5, 13.5)", cx, cy)
	}
}

func TestPreprocessAntiAliases(t *testing.T) {
	// A one-pixel line in a 140-pixel-tall image becomes a faint line, not a solid or vanished one.
	img := blank(140, 140)
	fill(img, 140, 70, 0, 71, 140)
	fill(img, 140, 0, 70, 140, 71)
	out, _ := Preprocess(img, 140, 140)
	var peak float32
	for _, v := range out {
		peak = max(peak, v)
	}
	if peak <= 0.1 || peak >= 1 {
		t.Errorf("a thin cross scaled down 7× peaks at %v: want partial coverage", peak)
	}
}

func TestPreprocessKeepsAnMNISTDigit(t *testing.T) {
	// An MNIST digit is already preprocessed: magnified 5× and preprocessed again, it comes back close.
	s, err := HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 500, 1234} {
		x := s.Float(i, nil)
		big := blank(140, 140)
		for y := 0; y < 140; y++ {
			for u := 0; u < 140; u++ {
				big[y*140+u] = x[(y/5)*Side+u/5]
			}
		}
		out, err := Preprocess(big, 140, 140)
		if err != nil {
			t.Fatal(err)
		}
		var d float64
		for j := range out {
			d += math.Abs(float64(out[j] - x[j]))
		}
		var ink float64
		for _, v := range x {
			ink += float64(v)
		}
		if d > 0.6*ink { // the same digit; a shift of a pixel or a slightly different scale costs this much
			t.Errorf("digit %d: L1 change %.1f for ink %.1f", i, d, ink)
		}
	}
}

func TestPreprocessRejects(t *testing.T) {
	if _, err := Preprocess(blank(50, 50), 50, 50); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty image: %v", err)
	}
	if _, err := Preprocess(make([]float32, 10), 5, 5); err == nil {
		t.Error("size mismatch accepted")
	}
	bad := blank(5, 5)
	bad[3] = float32(math.NaN())
	if _, err := Preprocess(bad, 5, 5); err == nil {
		t.Error("NaN pixel accepted")
	}
}

func TestIntensities(t *testing.T) {
	// Black ink on white paper, opaque: inverted to bright ink.
	rgba := []uint8{255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255}
	got := Intensities(rgba, 2, 2)
	if got[2] != 1 || got[0] != 0 {
		t.Errorf("black on white: %v", got)
	}
	// White ink on a transparent canvas: kept.
	rgba = []uint8{0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0}
	got = Intensities(rgba, 2, 2)
	if got[1] != 1 || got[0] != 0 {
		t.Errorf("white on transparent: %v", got)
	}
}

// TestIntensitiesAsEveryPixel: the table for opaque greys and the walk around the border give the bits of
// working out every pixel and scanning every pixel for the border (the function as first written), on random
// images of every shape from 1×1, with greys, colours and transparency.
func TestIntensitiesAsEveryPixel(t *testing.T) {
	reference := func(rgba []uint8, w, h int) []float32 {
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
	rnd := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		w, h := 1+rnd.IntN(40), 1+rnd.IntN(40)
		rgba := make([]uint8, 4*w*h)
		light := rnd.IntN(2) == 0 // a light background, inverted
		for i := 0; i < w*h; i++ {
			v := uint8(rnd.IntN(256))
			if light && rnd.IntN(4) > 0 {
				v = 255 - uint8(rnd.IntN(20))
			}
			px := rgba[4*i : 4*i+4]
			switch rnd.IntN(4) {
			case 0: // a colour
				px[0], px[1], px[2], px[3] = v, uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), 255
			case 1: // transparent
				px[0], px[1], px[2], px[3] = v, v, v, uint8(rnd.IntN(256))
			default: // an opaque grey
				px[0], px[1], px[2], px[3] = v, v, v, 255
			}
		}
		got, want := Intensities(rgba, w, h), reference(rgba, w, h)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%d×%d image, pixel %d: %v, want %v", w, h, i, got[i], want[i])
			}
		}
	}
}

// TestAreaResampleAsEveryPixel: the coverage worked out once per row and column gives the bits of working it
// out for every input pixel of every output pixel (the function as first written), shrinking and enlarging.
func TestAreaResampleAsEveryPixel(t *testing.T) {
	reference := func(img []float32, w, x0, y0, bw, bh, tw, th int) []float32 {
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
	rnd := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		w, h := 1+rnd.IntN(300), 1+rnd.IntN(300)
		img := make([]float32, w*h)
		for i := range img {
			img[i] = rnd.Float32()
		}
		x0, y0 := rnd.IntN(w), rnd.IntN(h)
		bw, bh := 1+rnd.IntN(w-x0), 1+rnd.IntN(h-y0)
		tw, th := 1+rnd.IntN(28), 1+rnd.IntN(28)
		got, want := areaResample(img, w, x0, y0, bw, bh, tw, th), reference(img, w, x0, y0, bw, bh, tw, th)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%d×%d box of a %d-wide image to %d×%d, pixel %d: %v, want %v", bw, bh, w, tw, th, i, got[i], want[i])
			}
		}
	}
}

func FuzzPreprocess(f *testing.F) {
	f.Add([]byte{0, 255, 128, 0}, uint8(2))
	f.Add(make([]byte, 100), uint8(10))
	f.Fuzz(func(t *testing.T, pixels []byte, width uint8) {
		w := int(width)
		if w == 0 || len(pixels)%w != 0 {
			return
		}
		img := make([]float32, len(pixels))
		for i, v := range pixels {
			img[i] = float32(v) / 255
		}
		out, err := Preprocess(img, w, len(pixels)/w)
		if err != nil {
			return
		}
		if len(out) != Pixels {
			t.Fatalf("%d pixels out", len(out))
		}
		for _, v := range out {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("intensity %v out of [0, 1]", v)
			}
		}
	})
}

// TestFileErrorSentences: a file's fault is one sentence naming the file, with no package prefix, and the error
// it wraps is still found.
func TestFileErrorSentences(t *testing.T) {
	_, err := Preprocess(blank(50, 50), 50, 50)
	fe := &FileError{Name: "blank.png", Err: err}
	if got := fe.Error(); got != "blank.png is empty: it has no ink to read as a digit." {
		t.Errorf("a blank image: %q", got)
	}
	if !errors.Is(fe, ErrEmpty) {
		t.Error("errors.Is does not find ErrEmpty")
	}
	_, err = Preprocess([]float32{2}, 1, 1)
	if got := (&FileError{Name: "x.png", Err: err}).Error(); got != "x.png could not be read: pixel intensities must lie in [0, 1]." {
		t.Errorf("a bad intensity: %q", got)
	}
	if _, err := Preprocess(nil, 3, 3); strings.Contains(err.Error(), "mnist:") {
		t.Errorf("a package prefix: %q", err)
	}
}

// BenchmarkPadDigit is the page's reading of its pad after every stroke, past the canvas: a 280×280 drawing (test
// digit 1735 enlarged ten times, white on black, opaque, as the pad holds it) into intensities and then into an
// MNIST-style 28×28 digit.
func BenchmarkPadDigit(b *testing.B) {
	set, err := HeldOut()
	if err != nil {
		b.Fatal(err)
	}
	x := set.Float(1735, nil)
	rgba := make([]uint8, 280*280*4)
	for y := 0; y < 280; y++ {
		for c := 0; c < 280; c++ {
			v := uint8(255 * x[(y/10)*Side+c/10])
			i := 4 * (y*280 + c)
			rgba[i], rgba[i+1], rgba[i+2], rgba[i+3] = v, v, v, 255
		}
	}
	for b.Loop() {
		if _, err := Preprocess(Intensities(rgba, 280, 280), 280, 280); err != nil {
			b.Fatal(err)
		}
	}
}
