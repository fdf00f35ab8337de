package engine

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/fmath"
)

// ---- a regression's posterior predictive: each sample's Gaussian, their mixture's mean and standard deviations ----
//
// A predictor of a number (weights.Regression) ends each of its K posterior samples in two values o0, o1, read as
// a Gaussian over the target:
//
//	μ_k = m + s·o0_k                       (m, s: the target's standardisation)
//	σ_k = s·softplus(o1_k)  or  s·e^{o1_k/2}
//	μ̄   = (1/K) Σ_k μ_k                    the predictive mean
//	A   = (1/K) Σ_k σ_k²                   the aleatoric variance
//	E   = (1/K) Σ_k (μ_k − μ̄)²             the epistemic variance
//	Total = √(A + E),  Aleatoric = √A,  Epistemic = √E     (CLUE's: standard deviations, in the target's unit)
//	CrossEnt = ((μ̄ − y0)/s)²               (optional: the λy term, the standardised squared distance of the
//	                                        predictive mean to a fixed prediction y0)
//
// and, for the ranges the modes are (edges e_1 < … < e_{R−1}; the first range and the last open-ended), each
// range's probability under the predictive mixture, Probs_r = (1/K) Σ_k [Φ((e_{r+1} − μ_k)/σ_k) − Φ((e_r − μ_k)/σ_k)],
// which the label (the most probable range) and the summaries read: no gradient flows through them, and they
// are computed only when read (Prediction.ProbsRow).
//
// Backward (with g_T, g_A, g_E, g_Y the gradients of the four outputs; a zero standard deviation passes none):
//
//	∂L/∂μ_k = (g_T/Total + g_E/Epistemic)·(μ_k − μ̄)/K + g_Y·2(μ̄ − y0)/(s²K)
//	∂L/∂σ_k = (g_T/Total + g_A/Aleatoric)·σ_k/K
//	∂L/∂o0_k = s·∂L/∂μ_k,   ∂L/∂o1_k = ∂L/∂σ_k · s·sigmoid(o1_k)  or  ∂L/∂σ_k · σ_k/2
//
// It works in float64, as the classifier's predictive does.
type regressionOp struct {
	outs                        *Tensor // [K·batch, 2]
	probs                       *Tensor // the ranges' probabilities [batch, R]
	mean                        *Tensor // μ̄ [batch, 1]
	total, aleatoric, epistemic *Tensor // [batch, 1]
	crossEnt                    *Tensor // [batch, 1], nil without a target
	head                        RegressionHead
	target                      []float64 // y0: one value for every point, or one per point
	mu, sigma, dsigma           []float64 // μ_k, σ_k and dσ_k/do1_k [K·capacity]
	sd                          []float64 // Total, Aleatoric, Epistemic, μ̄ per point [4·capacity]
	acc                         []float64 // forward scratch: a point's ranges' summed probabilities [R]
	ex, ey                      []float64 // forward scratch: the samples' expArg and their exponentials [K]
}

// RegressionHead is how a regression network's two outputs are a Gaussian over the target (weights.Regression):
// the standardisation, the σ's form, and the ranges' inner edges.
type RegressionHead struct {
	Mean, Std  float64
	LogVar     bool      // σ = s·e^{o1/2}; else s·softplus(o1)
	InnerEdges []float64 // e_1 … e_{R−1}: R ranges
}

// Ranges is the number of ranges.
func (h RegressionHead) Ranges() int { return len(h.InnerEdges) + 1 }

// Regressive turns the K samples' outputs [K·batch, 2] into the predictive mean, its standard deviations and its
// ranges' probabilities (see regressionOp). target, if non-nil, adds the λy term against it: one value shared by
// all points, or one per point (capacity values).
func (g *Graph) Regressive(outs *Tensor, h RegressionHead, target []float32) Prediction {
	if outs.Cols != 2 {
		panic("engine: Regressive reads two outputs a sample")
	}
	grad := outs.Grad != nil
	k := outs.PerPoint
	o := &regressionOp{outs: outs, head: h,
		probs: g.newTensor(h.Ranges(), 1, false), mean: g.newTensor(1, 1, false),
		total: g.newTensor(1, 1, grad), aleatoric: g.newTensor(1, 1, grad), epistemic: g.newTensor(1, 1, grad),
		mu: make([]float64, g.capacity*k), sigma: make([]float64, g.capacity*k), dsigma: make([]float64, g.capacity*k),
		sd: make([]float64, 4*g.capacity), acc: make([]float64, h.Ranges()),
		ex: make([]float64, k), ey: make([]float64, k)}
	if target != nil {
		if len(target) != 1 && len(target) != g.capacity {
			panic("engine: Regressive target is neither one value nor one per point")
		}
		o.crossEnt = g.newTensor(1, 1, grad)
		o.target = make([]float64, len(target))
		for i, v := range target {
			o.target[i] = float64(v)
		}
	}
	g.use(outs, o)
	g.add(o)
	return Prediction{Probs: o.probs, Mean: o.mean, Total: o.total, Aleatoric: o.aleatoric, Epistemic: o.epistemic,
		CrossEnt: o.crossEnt, fillProbs: o.rangeProbs}
}

// expArg is the argument of the one exponential σ needs from a sample's second output: o1/2 for a log
// variance, −|o1| for a softplus (sigmaOf).
func (h RegressionHead) expArg(o1 float64) float64 {
	if h.LogVar {
		return o1 / 2
	}
	return -math.Abs(o1)
}

// sigmaOf is σ and dσ/do1 for a sample's second output o1, given e = e^{expArg(o1)}: s·e^{o1/2} and half of it,
// or s·softplus(o1) = s·(max(o1, 0) + log(1 + e^{−|o1|})) and s times its derivative, the sigmoid.
func (h RegressionHead) sigmaOf(o1, e float64) (sigma, d float64) {
	if h.LogVar {
		sigma = h.Std * e
		return sigma, sigma / 2
	}
	sp := fmath.Log(1 + e)
	sig := 1 / (1 + e) // σ(|x|)
	if o1 > 0 {
		sp += o1
	} else {
		sig = 1 - sig
	}
	return h.Std * sp, h.Std * sig
}

func (o *regressionOp) forward() {
	b, k := o.outs.g.batch, o.outs.PerPoint
	invK := 1 / float64(k)
	h := o.head
	for i := 0; i < b; i++ {
		var sum float64
		for s := 0; s < k; s++ { // the K samples' exponentials in one loop, which overlaps them
			o.ex[s] = h.expArg(float64(o.outs.Row(s*b + i)[1]))
		}
		fmath.ExpTo(o.ey[:k], o.ex[:k])
		for s := 0; s < k; s++ {
			r := s*b + i
			row := o.outs.Row(r)
			mu := h.Mean + h.Std*float64(row[0])
			sigma, d := h.sigmaOf(float64(row[1]), o.ey[s])
			o.mu[r], o.sigma[r], o.dsigma[r] = mu, sigma, d
			sum += mu
		}
		mean := sum * invK
		var ale, epi float64
		for s := 0; s < k; s++ {
			r := s*b + i
			dm := o.mu[r] - mean
			ale += o.sigma[r] * o.sigma[r]
			epi += dm * dm
		}
		ale *= invK
		epi *= invK
		total := math.Sqrt(ale + epi)
		sa, se := math.Sqrt(ale), math.Sqrt(epi)
		o.sd[4*i], o.sd[4*i+1], o.sd[4*i+2], o.sd[4*i+3] = total, sa, se, mean
		o.total.Data[i], o.aleatoric.Data[i], o.epistemic.Data[i] = float32(total), float32(sa), float32(se)
		o.mean.Data[i] = float32(mean)
		if o.crossEnt != nil {
			d := (mean - o.targetOf(i)) / h.Std
			o.crossEnt.Data[i] = float32(d * d)
		}
	}
}

// rangeProbs writes point i's ranges' probabilities under the mixture of its K Gaussians, from the last forward
// pass's μ_k and σ_k (Prediction.ProbsRow: a step needs none of them, and they were 40 % of a concrete search).
func (o *regressionOp) rangeProbs(i int) {
	b, k := o.outs.g.batch, o.outs.PerPoint
	p := o.probs.Row(i)
	edges := o.head.InnerEdges
	acc := o.acc
	clear(acc)
	for s := 0; s < k; s++ {
		r := s*b + i
		mu, sigma := o.mu[r], o.sigma[r]
		below := 0.0 // Φ at the range's lower edge
		for j, e := range edges {
			var cdf float64
			if sigma > 0 {
				cdf = 0.5 * fmath.Erfc(-(e-mu)/(sigma*math.Sqrt2))
			} else if e > mu {
				cdf = 1
			}
			acc[j] += cdf - below
			below = cdf
		}
		acc[len(edges)] += 1 - below
	}
	for j := range p {
		p[j] = float32(acc[j] / float64(k))
	}
}

// targetOf is point i's y0.
func (o *regressionOp) targetOf(i int) float64 {
	if len(o.target) == 1 {
		return o.target[0]
	}
	return o.target[i]
}

func (o *regressionOp) backward() {
	if o.outs.Grad == nil {
		return
	}
	b, k := o.outs.g.batch, o.outs.PerPoint
	invK := 1 / float64(k)
	h := o.head
	for i := 0; i < b; i++ {
		total, sa, se, mean := o.sd[4*i], o.sd[4*i+1], o.sd[4*i+2], o.sd[4*i+3]
		var cMu, cSigma float64 // the coefficients of (μ_k − μ̄)/K and of σ_k/K
		if g := float64(o.total.Grad[i]); g != 0 && total > 0 {
			cMu += g / total
			cSigma += g / total
		}
		if g := float64(o.aleatoric.Grad[i]); g != 0 && sa > 0 {
			cSigma += g / sa
		}
		if g := float64(o.epistemic.Grad[i]); g != 0 && se > 0 {
			cMu += g / se
		}
		var gMean float64 // ∂L/∂μ̄ from the λy term, spread evenly over the samples
		if o.crossEnt != nil {
			gMean = float64(o.crossEnt.Grad[i]) * 2 * (mean - o.targetOf(i)) / (h.Std * h.Std)
		}
		for s := 0; s < k; s++ {
			r := s*b + i
			dMu := (cMu*(o.mu[r]-mean) + gMean) * invK
			dSigma := cSigma * o.sigma[r] * invK
			dx := o.outs.Grad[r*2 : r*2+2]
			dx[0] += float32(h.Std * dMu)
			dx[1] += float32(dSigma * o.dsigma[r])
		}
	}
}
