package training

import (
	"math"
	"slices"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
)

// Augment describes the light augmentation the models are trained with, so that they cope with digits drawn
// with a mouse: a random rotation, isotropic scale and shift about the image centre (bilinear resampling), and
// with probability StrokeProb each a thicker or a thinner stroke (the image averaged with its grey-level
// dilation or erosion by a plus-shaped element).
type Augment struct {
	MaxRotateDeg float64 `json:"max_rotate_deg"`
	MaxScale     float64 `json:"max_scale"` // scale drawn from [1−MaxScale, 1+MaxScale]
	MaxShift     float64 `json:"max_shift_px"`
	StrokeProb   float64 `json:"stroke_prob"`
	// FlipProb mirrors the image left to right with this probability (Fashion-MNIST's shoes all face left; a
	// photo of one facing right is still a shoe). Zero draws nothing, so the digits' stream is as it was.
	FlipProb float64 `json:"flip_prob,omitempty"`
}

// DefaultAugment is what the shipped models were trained with.
var DefaultAugment = Augment{MaxRotateDeg: 12, MaxScale: 0.1, MaxShift: 2, StrokeProb: 0.25}

// Apply writes an augmented copy of src (784 intensities) into dst, drawing from r.
func (a Augment) Apply(r *rng.Rand, src, dst []float32) {
	theta := (2*r.Float64() - 1) * a.MaxRotateDeg * math.Pi / 180
	scale := 1 + (2*r.Float64()-1)*a.MaxScale
	tx := (2*r.Float64() - 1) * a.MaxShift
	ty := (2*r.Float64() - 1) * a.MaxShift
	stroke := r.Float64()
	const c = (mnist.Side - 1) / 2.0
	cos, sin := math.Cos(theta)/scale, math.Sin(theta)/scale
	for v := 0; v < mnist.Side; v++ {
		for u := 0; u < mnist.Side; u++ {
			// Inverse map: output pixel → source position.
			x, y := float64(u)-c-tx, float64(v)-c-ty
			sx, sy := cos*x+sin*y+c, -sin*x+cos*y+c
			dst[v*mnist.Side+u] = bilinear(src, sx, sy)
		}
	}
	switch {
	case stroke < a.StrokeProb:
		morph(dst, true)
	case stroke < 2*a.StrokeProb:
		morph(dst, false)
	}
	if a.FlipProb > 0 && r.Float64() < a.FlipProb {
		for v := 0; v < mnist.Side; v++ {
			slices.Reverse(dst[v*mnist.Side : (v+1)*mnist.Side])
		}
	}
}

func bilinear(img []float32, x, y float64) float32 {
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := float32(x-x0), float32(y-y0)
	at := func(i, j int) float32 {
		if i < 0 || j < 0 || i >= mnist.Side || j >= mnist.Side {
			return 0
		}
		return img[j*mnist.Side+i]
	}
	i, j := int(x0), int(y0)
	top := at(i, j)*(1-fx) + at(i+1, j)*fx
	bottom := at(i, j+1)*(1-fx) + at(i+1, j+1)*fx
	return top*(1-fy) + bottom*fy
}

// morph averages img with its grey-level dilation (thicken) or erosion (thin) by a plus-shaped element.
func morph(img []float32, thicken bool) {
	src := append([]float32(nil), img...)
	for v := 0; v < mnist.Side; v++ {
		for u := 0; u < mnist.Side; u++ {
			m := src[v*mnist.Side+u]
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				x, y := u+d[0], v+d[1]
				var n float32
				if x >= 0 && y >= 0 && x < mnist.Side && y < mnist.Side {
					n = src[y*mnist.Side+x]
				}
				if thicken {
					m = max(m, n)
				} else {
					m = min(m, n)
				}
			}
			img[v*mnist.Side+u] = (src[v*mnist.Side+u] + m) / 2
		}
	}
}

// AugmentedCopy returns a copy of s with every image augmented by a, drawn from seed.
func AugmentedCopy(s *mnist.Set, a Augment, seed uint64) *mnist.Set {
	out := &mnist.Set{Labels: append([]uint8(nil), s.Labels...), Pixels: make([]uint8, len(s.Pixels))}
	r := rng.New(seed)
	src, dst := make([]float32, mnist.Pixels), make([]float32, mnist.Pixels)
	for i := 0; i < s.Len(); i++ {
		a.Apply(r, s.Float(i, src), dst)
		for j, v := range dst {
			out.Pixels[i*mnist.Pixels+j] = uint8(math.Round(float64(min(max(v, 0), 1)) * 255))
		}
	}
	return out
}
