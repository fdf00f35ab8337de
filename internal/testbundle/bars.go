package testbundle

import (
	"math"
	"slices"

	"github.com/deltaclue/deltaclue/engine/fmath"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/weights"
)

// A trained image regressor (issue 42, part 6): a regression is not tied to tables. Bars are 1×12×12 images of
// one horizontal bar at a fractional row, bright or dim; the target is the bar's row, measured with a noise
// that grows as the bar dims, so a model that learns it is sure of bright bars and unsure of dim ones. The
// regressor (an MC-dropout MLP) is trained here, when a test asks for it, in float64 with the project's own
// exp and log and no fused multiply-add, so the weights are the same bits on every platform and a search on
// them hashes the same natively and in WebAssembly. The VAE is Grey's (seeded, untrained).

// BarSize is a bar image's side, in pixels.
const BarSize = 12

// Bar is one image and its measured row.
type Bar struct {
	Image []float32 // [BarSize²], in [0, 1]
	Row   float64   // the measured row: the bar's centre plus the measuring noise
	Ink   float64   // the bar's brightness, in [0.25, 1]
}

// BarImages draws n bars with their measured rows.
func BarImages(seed uint64, n int) []Bar {
	r := rng.New(seed)
	out := make([]Bar, n)
	for i := range out {
		centre := 1.5 + float64(9*r.Float64()) // each product converted: nothing fuses into a multiply-add
		ink := 0.25 + float64(0.75*r.Float64())
		img := make([]float32, BarSize*BarSize)
		for y := range BarSize {
			v := ink * max(0, 1-math.Abs(float64(y)-centre))
			for x := range BarSize {
				img[y*BarSize+x] = float32(min(1, v+float64(0.05*r.Float64())))
			}
		}
		noise := 0.2 + float64(2.5*(1-ink)*(1-ink)) // px: a dim bar's row is hard to measure
		out[i] = Bar{Image: img, Row: centre + float64(noise*r.Norm()), Ink: ink}
	}
	return out
}

// Bar regressor's shape: flatten, dense to barHidden, ReLU, dropout, dense to the mean and σ (softplus).
const (
	barHidden  = 24
	barDropout = 0.1
	barEpochs  = 400
	barBatch   = 64
	barSamples = 8 // MC-dropout samples
)

// TrainedBars trains the bar regressor on BarImages(seed, n) and returns it as a bundle (Grey's VAE, drawn
// from seed), with τ, the threshold of sure, the training bars' 25th percentile of the trained model's predictive
// σ (as the concrete models choose theirs; here from the float64 network and masks of its own), to 0.01 px.
func TrainedBars(seed uint64, n int) (*Bundle, error) {
	bars := BarImages(seed, n)
	var mean, sq float64
	for _, b := range bars {
		mean += b.Row
	}
	mean /= float64(n)
	for _, b := range bars {
		sq += float64((b.Row - mean) * (b.Row - mean))
	}
	std := math.Sqrt(sq / float64(n))
	r := rng.New(seed ^ 0xba25)
	net := trainBars(bars, mean, std, r)
	sigmas := make([]float64, n)
	for i, b := range bars {
		sigmas[i] = std * net.predictive(b.Image, r)
	}
	slices.Sort(sigmas)
	sure := math.Round(sigmas[n/4]*100) / 100

	r = rng.New(seed)
	clf := &builder{r: r, prefix: "clf"}
	clf.tensors = []weights.Named{
		{Name: "clf/0", Shape: []int{BarSize * BarSize, barHidden}, Values: to32(net.w1)},
		{Name: "clf/1", Shape: []int{barHidden}, Values: to32(net.b1)},
		{Name: "clf/2", Shape: []int{barHidden, 2}, Values: to32(net.w2)},
		{Name: "clf/3", Shape: []int{2}, Values: to32(net.b2)},
	}
	enc, dec := &builder{r: r, prefix: "enc"}, &builder{r: r, prefix: "dec"}
	d := &weights.Description{Format: weights.FormatRegression, Name: "bars-regression", Title: "Bars: a trained image regressor",
		Input: weights.Input{Height: BarSize, Width: BarSize, Channels: 1, Range: [2]float64{0, 1}, Drawing: weights.DrawInk, Noun: "bar"},
		Classifier: weights.Classifier{Uncertainty: weights.UncertaintyMCDropout, Samples: barSamples, MaskSeed: seed, Networks: []weights.Network{{
			File: weights.BundleBNN, Layers: []weights.Layer{
				op(weights.OpFlatten),
				{Op: weights.OpDense, Out: barHidden, Weights: "clf/0", Bias: "clf/1"}, op(weights.OpReLU),
				{Op: weights.OpDropout, Rate: barDropout},
				{Op: weights.OpDense, Out: 2, Weights: "clf/2", Bias: "clf/3"},
			}}}},
		VAE: greyVAE(enc, dec),
		Regression: &weights.Regression{Target: "Row", Unit: "px", Mean: mean, Std: std, Sigma: weights.SigmaSoftplus, Sure: sure,
			Ranges: []float64{0, 4, 8, 12}},
	}
	d.Classes = d.Regression.RangeNames()
	return assemble(d, map[string][]*builder{weights.BundleVAE: {enc, dec}, weights.BundleBNN: {clf}},
		map[string]string{weights.BundleVAE: "vae", weights.BundleBNN: "bnn"})
}

// barNet is the regressor in float64 while it trains: w1 [in × hidden], w2 [hidden × 2], row-major as the
// bundle stores a dense layer's weights.
type barNet struct {
	w1, b1, w2, b2 []float64
}

// predictive is one image's standardised predictive σ over barSamples dropout masks drawn from r, as the
// engine's MC dropout gives it (with masks of its own): √(mean σ_k² + variance of the μ_k).
func (n *barNet) predictive(img []float32, r *rng.Rand) float64 {
	h := make([]float64, barHidden)
	keep := make([]bool, barHidden)
	var mus [barSamples]float64
	var ale, mean float64
	for k := range mus {
		for j := range keep {
			keep[j] = r.Float64() >= barDropout
		}
		n.hidden(img, h, keep)
		o0, o1 := n.head(h)
		s, _ := softplus(o1)
		mus[k] = o0
		mean += o0 / barSamples
		ale += float64(s*s) / barSamples
	}
	var epi float64
	for _, mu := range mus {
		epi += float64((mu-mean)*(mu-mean)) / barSamples
	}
	return math.Sqrt(ale + epi)
}

// hidden writes ReLU(x·w1 + b1), each unit dropped where keep is non-nil and false (and the rest scaled by
// 1/(1−rate), as the engine's masks are).
func (n *barNet) hidden(img []float32, h []float64, keep []bool) {
	for j := range h {
		s := n.b1[j]
		for i, v := range img {
			s += float64(float64(v) * n.w1[i*barHidden+j]) // the conversion keeps the product from fusing
		}
		h[j] = max(0, s)
		if keep != nil {
			if keep[j] {
				h[j] /= 1 - barDropout
			} else {
				h[j] = 0
			}
		}
	}
}

func (n *barNet) head(h []float64) (o0, o1 float64) {
	o0, o1 = n.b2[0], n.b2[1]
	for j, v := range h {
		o0 += float64(v * n.w2[2*j])
		o1 += float64(v * n.w2[2*j+1])
	}
	return o0, o1
}

// softplus is log(1 + e^x) and its derivative, the sigmoid, with the project's exp and log.
func softplus(x float64) (sp, sig float64) {
	e := fmath.Exp(-math.Abs(x))
	sp, sig = fmath.Log(1+e), 1/(1+e)
	if x > 0 {
		sp += x
	} else {
		sig = 1 - sig
	}
	return sp, sig
}

// trainBars fits the regressor by Adam on the Gaussian negative log-likelihood of the standardised rows, in
// minibatches in a fixed order, with dropout masks drawn from r.
func trainBars(bars []Bar, mean, std float64, r *rng.Rand) *barNet {
	in := BarSize * BarSize
	n := &barNet{w1: make([]float64, in*barHidden), b1: make([]float64, barHidden), w2: make([]float64, barHidden*2), b2: []float64{0, 0.5413}}
	for i := range n.w1 {
		n.w1[i] = r.Norm() * math.Sqrt(2/float64(in))
	}
	for i := range n.w2 {
		n.w2[i] = r.Norm() * 0.1 / math.Sqrt(barHidden)
	}
	params := [][]float64{n.w1, n.b1, n.w2, n.b2}
	grads := make([][]float64, len(params))
	m, v := make([][]float64, len(params)), make([][]float64, len(params))
	for k, p := range params {
		grads[k], m[k], v[k] = make([]float64, len(p)), make([]float64, len(p)), make([]float64, len(p))
	}
	const lr, beta1, beta2, eps = 0.003, 0.9, 0.999, 1e-8
	b1t, b2t := 1.0, 1.0
	h, dh := make([]float64, barHidden), make([]float64, barHidden)
	keep := make([]bool, barHidden)
	for range barEpochs {
		order := r.Perm(len(bars))
		for start := 0; start < len(order); start += barBatch {
			batch := order[start:min(start+barBatch, len(order))]
			for _, g := range grads {
				clear(g)
			}
			for _, i := range batch {
				b := bars[i]
				for j := range keep {
					keep[j] = r.Float64() >= barDropout
				}
				n.hidden(b.Image, h, keep)
				o0, o1 := n.head(h)
				sigma, dsig := softplus(o1)
				t := (b.Row - mean) / std
				res := t - o0
				// NLL = log σ + res²/(2σ²): its gradients by the two outputs.
				g0 := -res / (sigma * sigma)
				g1 := (1/sigma - res*res/(sigma*sigma*sigma)) * dsig
				scale := 1 / float64(len(batch))
				g0, g1 = g0*scale, g1*scale
				grads[3][0] += g0
				grads[3][1] += g1
				for j, hv := range h {
					grads[2][2*j] += float64(hv * g0)
					grads[2][2*j+1] += float64(hv * g1)
					dh[j] = float64(n.w2[2*j]*g0) + float64(n.w2[2*j+1]*g1)
					if hv <= 0 {
						dh[j] = 0
					} else {
						dh[j] /= 1 - barDropout // a kept unit was scaled up; a dropped one has hv 0
					}
				}
				for j, d := range dh {
					if d == 0 {
						continue
					}
					grads[1][j] += d
					for p, x := range b.Image {
						grads[0][p*barHidden+j] += float64(float64(x) * d)
					}
				}
			}
			b1t *= beta1
			b2t *= beta2
			for k, p := range params {
				for i, g := range grads[k] {
					m[k][i] = float64(beta1*m[k][i]) + float64((1-beta1)*g)
					v[k][i] = float64(beta2*v[k][i]) + float64((1-beta2)*g*g)
					p[i] -= lr * (m[k][i] / (1 - b1t)) / (math.Sqrt(v[k][i]/(1-b2t)) + eps)
				}
			}
		}
	}
	return n
}

func to32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
