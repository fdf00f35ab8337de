// Package picture turns an image as a browser or a decoder gives it (RGBA bytes, any size) into a model's input
// as its description says: an ink input is framed as MNIST was made (mnist.Frame: the ink's box scaled and
// centred by its mass in the model's field; the digits' exact preprocessing) or as Fashion-MNIST was
// (mnist.FrameFill: the object's box filling the field), a colour input is the whole image resampled to the
// model's size, channel-major.
package picture

import (
	"errors"
	"strconv"

	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// Fit returns the model input (in.Size() values in [0, 1], channel-major) of the w×h RGBA image rgba.
func Fit(rgba []uint8, w, h int, in weights.Input) ([]float32, error) {
	x, _, err := FitSteps(rgba, w, h, in)
	return x, err
}

// Steps are what Fit did to an image to make it the input.
type Steps struct {
	From, To  [2]int // the image's width and height, and the input's
	Grey      bool   // a colour image made grey
	Inverted  bool   // dark on light, made light on dark
	Framing   string // an ink input's framing (weights.FrameMNIST or FrameFill); "" for a colour one
	NotSquare bool   // a colour image of another aspect, stretched
}

// Sentence says what was done, for one who uploaded the image (name), in the models' noun: "photo.jpg
// (640×480) was made grey, inverted (the model reads light on dark) and trimmed to the garment, resized to fill
// 28×28 as the model's training images were." (Concatenated, not formatted: the page's app.wasm carries it.)
func (s Steps) Sentence(name, noun string) string {
	size := func(wh [2]int) string { return strconv.Itoa(wh[0]) + "×" + strconv.Itoa(wh[1]) }
	var did []string
	if s.Grey {
		did = append(did, "made grey")
	}
	if s.Inverted {
		did = append(did, "inverted (the model reads light on dark)")
	}
	switch s.Framing {
	case weights.FrameFill:
		did = append(did, "trimmed to the "+noun+", resized to fill "+size(s.To)+" as the model's training images were")
	case "":
		what := "resized to " + size(s.To)
		if s.NotSquare {
			what += " (stretched to the model's shape)"
		}
		did = append(did, what)
	default:
		did = append(did, "trimmed to the "+noun+", resized and centred in "+size(s.To)+" as the model's training images were")
	}
	return name + " (" + size(s.From) + ") was " + plural.List(did) + "."
}

// FitSteps is Fit, and says what it did.
func FitSteps(rgba []uint8, w, h int, in weights.Input) ([]float32, Steps, error) {
	steps := Steps{From: [2]int{w, h}, To: [2]int{in.Width, in.Height}}
	if w <= 0 || h <= 0 || len(rgba) != 4*w*h {
		return nil, steps, errors.New("the image's size does not match its pixels")
	}
	if in.Channels == 1 {
		for i := 0; i < len(rgba); i += 4 {
			if rgba[i] != rgba[i+1] || rgba[i+1] != rgba[i+2] {
				steps.Grey = true
				break
			}
		}
		ink, inverted := mnist.IntensitiesInverted(rgba, w, h)
		steps.Inverted, steps.Framing = inverted, in.Framing
		if steps.Framing == "" {
			steps.Framing = weights.FrameMNIST
		}
		frame := mnist.Frame
		if in.Framing == weights.FrameFill {
			frame = mnist.FrameFill
		}
		x, err := frame(ink, w, h, in.Width, in.Height)
		return x, steps, err
	}
	steps.NotSquare = w*in.Height != h*in.Width
	out := make([]float32, 0, in.Size())
	plane := make([]float32, w*h)
	for c := range in.Channels {
		for i := range plane {
			plane[i] = float32(rgba[4*i+c]) / 255 * float32(rgba[4*i+3]) / 255 // over black
		}
		x, err := mnist.Resample(plane, w, h, in.Width, in.Height)
		if err != nil {
			return nil, steps, err
		}
		out = append(out, x...)
	}
	return out, steps, nil
}
