package picture

import (
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

func randomRGBA(r *rng.Rand, w, h int) []uint8 {
	b := make([]uint8, 4*w*h)
	for i := range b {
		b[i] = uint8(r.Uint64())
		if i%4 == 3 {
			b[i] = 255
		}
	}
	return b
}

// The digits' input is MNIST's preprocessing, bit for bit: what the page and the command line always did.
func TestFitDigitsIsMNISTPreprocessing(t *testing.T) {
	r := rng.New(3)
	in := weights.DigitsDescription().Input
	for _, size := range [][2]int{{28, 28}, {280, 280}, {37, 91}} {
		img := randomRGBA(r, size[0], size[1])
		got, err := Fit(img, size[0], size[1], in)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := mnist.Preprocess(mnist.Intensities(img, size[0], size[1]), size[0], size[1])
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: value %d is %v, MNIST's preprocessing gives %v", size, i, got[i], want[i])
			}
		}
	}
}

// An ink input of another size is framed in its own field; a colour input is resampled per channel.
func TestFitOtherShapes(t *testing.T) {
	ink := weights.Input{Height: 12, Width: 10, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk}
	img := make([]uint8, 4*40*40)
	for i := 3; i < len(img); i += 4 {
		img[i] = 255
	}
	for y := 10; y < 30; y++ { // a bright bar, left of centre
		o := 4 * (y*40 + 8)
		img[o], img[o+1], img[o+2] = 255, 255, 255
	}
	x, err := Fit(img, 40, 40, ink)
	if err != nil || len(x) != 120 {
		t.Fatalf("ink: %d values, %v", len(x), err)
	}
	var mass, my float64
	for i, v := range x {
		mass += float64(v)
		my += float64(v) * float64(i/10)
	}
	if mass == 0 || math.Abs(my/mass-5.5) > 0.5 {
		t.Errorf("ink: the bar's centre of mass is at row %.2f, not the field's centre 5.5", my/mass)
	}
	colour := weights.Input{Height: 2, Width: 2, Channels: 3, Range: [2]float64{0, 1}, Drawing: weights.DrawColour}
	red := make([]uint8, 4*4*4)
	for i := 0; i < len(red); i += 4 {
		red[i], red[i+3] = 255, 255
	}
	c, err := Fit(red, 4, 4, colour)
	if err != nil || len(c) != 12 {
		t.Fatalf("colour: %d values, %v", len(c), err)
	}
	for i, v := range c {
		if want := float32(map[bool]int{true: 1}[i < 4]); v != want {
			t.Fatalf("colour: value %d (channel %d) is %v, want %v", i, i/4, v, want)
		}
	}
	if _, err := Fit(red[:10], 4, 4, colour); err == nil {
		t.Error("a short image was taken")
	}
}
