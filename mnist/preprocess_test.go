package mnist

import (
	"errors"
	"math"
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
