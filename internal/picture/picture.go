// Package picture turns an image as a browser or a decoder gives it (RGBA bytes, any size) into a model's input
// as its description says: an ink input is framed as MNIST was made (mnist.Frame: the ink's box scaled and
// centred by its mass in the model's field; the digits' exact preprocessing), a colour input is the whole image
// resampled to the model's size, channel-major.
package picture

import (
	"errors"

	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// Fit returns the model input (in.Size() values in [0, 1], channel-major) of the w×h RGBA image rgba.
func Fit(rgba []uint8, w, h int, in weights.Input) ([]float32, error) {
	if w <= 0 || h <= 0 || len(rgba) != 4*w*h {
		return nil, errors.New("the image's size does not match its pixels")
	}
	if in.Channels == 1 {
		return mnist.Frame(mnist.Intensities(rgba, w, h), w, h, in.Width, in.Height)
	}
	out := make([]float32, 0, in.Size())
	plane := make([]float32, w*h)
	for c := range in.Channels {
		for i := range plane {
			plane[i] = float32(rgba[4*i+c]) / 255 * float32(rgba[4*i+3]) / 255 // over black
		}
		x, err := mnist.Resample(plane, w, h, in.Width, in.Height)
		if err != nil {
			return nil, err
		}
		out = append(out, x...)
	}
	return out, nil
}
