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

// TestFitSteps: an upload is framed as the description says (Fashion-MNIST's: the object's box fills the
// field, centred), and the sentence says what was done to it.
func TestFitSteps(t *testing.T) {
	const w, h = 40, 30
	rgba := make([]uint8, 4*w*h)
	for i := 0; i < w*h; i++ { // a white background, a dark reddish 10×5 object at (5, 5)
		x, y := i%w, i/w
		c := [4]uint8{255, 255, 255, 255}
		if x >= 5 && x < 15 && y >= 5 && y < 10 {
			c = [4]uint8{40, 0, 0, 255}
		}
		copy(rgba[4*i:], c[:])
	}
	fill := weights.Input{Height: 28, Width: 28, Channels: 1, Drawing: weights.DrawInk, Noun: "garment", Framing: weights.FrameFill}
	x, steps, err := FitSteps(rgba, w, h, fill)
	if err != nil {
		t.Fatal(err)
	}
	// The 10×5 box becomes 28×14, rows 7 to 20, each at the object's ink.
	for y := 0; y < 28; y++ {
		inside := y >= 7 && y < 21
		for xx := 0; xx < 28; xx++ {
			if v := x[y*28+xx]; inside != (v > 0.5) {
				t.Fatalf("pixel (%d, %d) is %v: the object should fill rows 7 to 20", xx, y, v)
			}
		}
	}
	want := "shirt.png (40×30) was made grey, inverted (the model reads light on dark) and trimmed to the garment, resized to fill 28×28 as the model's training images were."
	if got := steps.Sentence("shirt.png", "garment"); got != want {
		t.Errorf("the sentence:\n got %s\nwant %s", got, want)
	}
	// MNIST's framing (the default) says so; a grey image light on dark needs neither step.
	digit := fill
	digit.Framing, digit.Noun = "", "digit"
	grey := make([]uint8, 4*w*h)
	for i := 3; i < len(grey); i += 4 {
		grey[i] = 255
	}
	copy(grey[4*(12*w+12):], []uint8{200, 200, 200, 255})
	if _, steps, err = FitSteps(grey, w, h, digit); err != nil {
		t.Fatal(err)
	}
	want = "d.png (40×30) was trimmed to the digit, resized and centred in 28×28 as the model's training images were."
	if got := steps.Sentence("d.png", "digit"); got != want {
		t.Errorf("the sentence:\n got %s\nwant %s", got, want)
	}
	// A colour model's input is resized, stretched when the aspect differs.
	colour := weights.Input{Height: 8, Width: 8, Channels: 3, Drawing: weights.DrawColour, Noun: "image"}
	if _, steps, err = FitSteps(rgba, w, h, colour); err != nil {
		t.Fatal(err)
	}
	want = "c.png (40×30) was resized to 8×8 (stretched to the model's shape)."
	if got := steps.Sentence("c.png", "image"); got != want {
		t.Errorf("the sentence:\n got %s\nwant %s", got, want)
	}
}
