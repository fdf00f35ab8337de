package engine

import (
	"github.com/deltaclue/deltaclue/engine/fmath"
	"github.com/deltaclue/deltaclue/engine/kernel"
)

// ---- the MC-dropout posterior predictive: softmax, mean over samples, entropies, cross-entropy ----
//
// One op computes, from the K networks' logits, everything the δ-CLUE objective reads from the BNN:
//
//	p_k      = softmax(logits_k)                   per MC sample k (log-softmax in float64)
//	p̄        = (1/K) Σ_k p_k                       the posterior predictive
//	H_total  = −Σ_j p̄_j log p̄_j
//	H_ale    = (1/K) Σ_k −Σ_j p_kj log p_kj
//	H_epi    = H_total − H_ale                     (the mutual information)
//	CE       = −Σ_j y0_j log p̄_j                   (optional: cross-entropy to a fixed prediction y0)
//
// It works in float64 inside and keeps its float64 intermediates for the backward pass. Chained float32 ops
// cannot get a confident prediction's entropy right: at p̄ = 1 − 1e-5, float32 stores 1 − p̄ with a relative
// error near 1 %, and the entropy, which the search drives towards 0, is made of exactly such terms.
//
// Backward: with c_T = ∂L/∂H_total + ∂L/∂H_epi and c_A = ∂L/∂H_ale − ∂L/∂H_epi,
//
//	∂L/∂p̄_j      = g(p̄)_j − c_T (log p̄_j + 1) − ∂L/∂CE · y0_j / p̄_j
//	∂L/∂p_kj     = ∂L/∂p̄_j / K − (c_A / K)(log p_kj + 1)
//	∂L/∂logit_kj = p_kj (∂L/∂p_kj − Σ_l p_kl ∂L/∂p_kl)
//
// and the "+1" terms, equal across j, cancel in the last line, so they are left out.
type predictiveOp struct {
	logits                      *Tensor   // [K·batch, C]
	samples, probs              *Tensor   // p_k [K·batch, C] (no gradient), p̄ [batch, C]
	total, aleatoric, epistemic *Tensor   // [batch, 1]
	crossEnt                    *Tensor   // [batch, 1], nil without a target
	target                      []float64 // C values shared by every point, or capacity·C, one row per point
	logp, p                     []float64 // log p_k and p_k, [K·capacity·C]
	pbar, logpbar               []float64 // [capacity·C]
	gp                          []float64 // backward scratch [C]
	arg, ex, hi                 []float64 // forward scratch: every sample's exponents and exponentials, its maxima
}

// minProb64 keeps log p̄ finite when every sample's probability of a class underflows.
const minProb64 = 1e-300

// Predictive turns the K MC samples' logits [K·batch, C] into the posterior predictive and its uncertainties
// (see predictiveOp). target, if non-nil, adds the cross-entropy of p̄ against it: C values shared by all
// points, or capacity·C values, row i for point i.
func (g *Graph) Predictive(logits *Tensor, target []float32) Prediction {
	grad := logits.Grad != nil
	c, k := logits.Cols, logits.PerPoint
	o := &predictiveOp{logits: logits,
		samples: g.newTensor(c, k, false), probs: g.newTensor(c, 1, grad),
		total: g.newTensor(1, 1, grad), aleatoric: g.newTensor(1, 1, grad), epistemic: g.newTensor(1, 1, grad),
		logp: make([]float64, g.capacity*k*c), p: make([]float64, g.capacity*k*c), pbar: make([]float64, g.capacity*c), logpbar: make([]float64, g.capacity*c),
		gp: make([]float64, c), arg: make([]float64, g.capacity*k*c), ex: make([]float64, g.capacity*k*c), hi: make([]float64, g.capacity*k)}
	if target != nil {
		if len(target) != c && len(target) != g.capacity*c {
			panic("engine: Predictive target is neither one row nor one row per point")
		}
		o.crossEnt = g.newTensor(1, 1, grad)
		o.target = make([]float64, len(target))
		for j, v := range target {
			o.target[j] = float64(v)
		}
	}
	g.use(logits, o)
	g.add(o)
	return Prediction{Probs: o.probs, Samples: o.samples, Total: o.total, Aleatoric: o.aleatoric,
		Epistemic: o.epistemic, CrossEnt: o.crossEnt}
}

// forward: log-softmax of each sample's logits (max, Σ e^{x−max}, log-sum-exp), then per point p_k, p̄ and the
// entropies. The exponentials of all the batch's samples go to fmath.ExpTo together, in two calls (e^{x−max},
// then e^{log p}): one call per point cost more than its work where C is small (the credit model's 2 classes,
// through the SIMD module's import). Every sum runs in the same order as one sample and one class at a time
// would.
func (o *predictiveOp) forward() {
	b, c, k := o.logits.g.batch, o.logits.Cols, o.logits.PerPoint
	invK := 1 / float64(k)
	n := k * b * c
	arg, ex := o.arg[:n], o.ex[:n]
	two := c == 2 // (two classes, the credit model's: the same operations without loops of two, which cost more
	// than their work in WebAssembly)
	for r := 0; r < k*b && two; r++ {
		x0, x1 := o.logits.Data[2*r], o.logits.Data[2*r+1]
		hi := x0
		if x1 > hi {
			hi = x1
		}
		o.hi[r] = float64(hi)
		arg[2*r], arg[2*r+1] = float64(x0-hi), float64(x1-hi)
	}
	for r := 0; r < k*b && !two; r++ { // rows s·b + i, sample by sample
		x := o.logits.Row(r)
		hi := x[0]
		for _, v := range x {
			if v > hi {
				hi = v
			}
		}
		o.hi[r] = float64(hi)
		a := arg[r*c : (r+1)*c]
		for j, v := range x {
			a[j] = float64(v - hi)
		}
	}
	expTo(ex, arg)
	for r := 0; r < k*b && two; r++ {
		var sum float64
		sum += ex[2*r]
		sum += ex[2*r+1]
		lse := o.hi[r] + fmath.Log(sum)
		o.logp[2*r], o.logp[2*r+1] = float64(o.logits.Data[2*r])-lse, float64(o.logits.Data[2*r+1])-lse
	}
	for r := 0; r < k*b && !two; r++ {
		var sum float64
		for _, e := range ex[r*c : (r+1)*c] {
			sum += e
		}
		lse := o.hi[r] + fmath.Log(sum)
		logp := o.logp[r*c : (r+1)*c]
		for j, v := range o.logits.Row(r) {
			logp[j] = float64(v) - lse // log p_kj
		}
	}
	expTo(o.p[:n], o.logp[:n])
	for i := 0; i < b; i++ {
		pbar, logpbar := o.pbar[i*c:(i+1)*c], o.logpbar[i*c:(i+1)*c]
		clear(pbar)
		var ha float64
		for s := 0; s < k && two; s++ {
			r := s*b + i
			p0, p1, lp0, lp1 := o.p[2*r], o.p[2*r+1], o.logp[2*r], o.logp[2*r+1]
			o.samples.Data[2*r], o.samples.Data[2*r+1] = float32(p0), float32(p1)
			pbar[0] += p0
			pbar[1] += p1
			var h float64
			h -= p0 * lp0
			h -= p1 * lp1
			ha += h
		}
		for s := 0; s < k && !two; s++ {
			r := s*b + i
			logp, p64, p32 := o.logp[r*c:(r+1)*c], o.p[r*c:(r+1)*c], o.samples.Row(r)
			var h float64
			for j, p := range p64 {
				lp := logp[j]
				p32[j] = float32(p)
				pbar[j] += p
				h -= p * lp
			}
			ha += h
		}
		ha *= invK
		var ht, ce float64
		target := o.targetRow(i)
		for j := range pbar {
			pbar[j] *= invK
			q := pbar[j]
			if q < minProb64 { // max(q, minProb64) without the float max, a runtime call in WASM
				q = minProb64
			}
			logpbar[j] = fmath.Log(q)
			if pbar[j] > 0 {
				ht -= pbar[j] * logpbar[j]
			}
			if target != nil {
				ce -= target[j] * logpbar[j]
			}
			o.probs.Data[i*c+j] = float32(pbar[j])
		}
		o.total.Data[i] = float32(ht)
		o.aleatoric.Data[i] = float32(ha)
		o.epistemic.Data[i] = float32(ht - ha)
		if o.crossEnt != nil {
			o.crossEnt.Data[i] = float32(ce)
		}
	}
}

func (o *predictiveOp) backward() {
	if o.logits.Grad == nil {
		return
	}
	b, c, k := o.logits.g.batch, o.logits.Cols, o.logits.PerPoint
	invK := 1 / float64(k)
	for i := 0; i < b; i++ {
		gT, gA, gE := float64(o.total.Grad[i]), float64(o.aleatoric.Grad[i]), float64(o.epistemic.Grad[i])
		cT, cA := gT+gE, gA-gE
		var cY float64
		if o.crossEnt != nil {
			cY = float64(o.crossEnt.Grad[i])
		}
		pbar, logpbar, gpbar, target := o.pbar[i*c:(i+1)*c], o.logpbar[i*c:(i+1)*c], o.gp, o.targetRow(i)
		for j := range gpbar {
			g := float64(o.probs.Grad[i*c+j]) - cT*logpbar[j]
			if cY != 0 && pbar[j] > minProb64 {
				g -= cY * target[j] / pbar[j]
			}
			gpbar[j] = g * invK
		}
		for s := 0; s < k && c == 2; s++ { // (two classes: as below, without loops of two)
			r := s*b + i
			p0, p1, lp0, lp1 := o.p[2*r], o.p[2*r+1], o.logp[2*r], o.logp[2*r+1]
			var dot float64
			dot += p0 * (gpbar[0] - cA*invK*lp0)
			dot += p1 * (gpbar[1] - cA*invK*lp1)
			o.logits.Grad[2*r] += float32(p0 * (gpbar[0] - cA*invK*lp0 - dot))
			o.logits.Grad[2*r+1] += float32(p1 * (gpbar[1] - cA*invK*lp1 - dot))
		}
		for s := 0; s < k && c != 2; s++ {
			r := s*b + i
			logp, p, dx := o.logp[r*c:(r+1)*c], o.p[r*c:(r+1)*c], o.logits.Grad[r*c:(r+1)*c]
			var dot float64
			for j, lp := range logp {
				dot += p[j] * (gpbar[j] - cA*invK*lp)
			}
			for j, lp := range logp {
				dx[j] += float32(p[j] * (gpbar[j] - cA*invK*lp - dot))
			}
		}
	}
}

// targetRow is point i's cross-entropy target, or nil without one.
func (o *predictiveOp) targetRow(i int) []float64 {
	c := o.logits.Cols
	switch len(o.target) {
	case 0:
		return nil
	case c:
		return o.target
	}
	return o.target[i*c : (i+1)*c]
}

// expTo is fmath.ExpTo, in the SIMD module or natively in AVX-512 where there is one (kernel.ExpTo: the same bits;
// not in a DenseOnly worker, whose kernel leaves it out).
func expTo(dst, src []float64) {
	if !DenseOnly && kernel.ExpTo(dst, src) {
		return
	}
	fmath.ExpTo(dst, src)
}
