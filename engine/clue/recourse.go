package clue

import (
	"sort"
)

// The recourse benchmark's measures (CARLA: Pawelczyk et al., 2021), for comparing δ-CLUE with counterfactual
// methods in their vocabulary. Summarize fills them in; yNN comes with each explanation (it needs the anchors).
const (
	// ChangedPixel is the change in intensity above which a pixel counts for the L0 proximity.
	ChangedPixel = 0.1
	// NeighboursK is the k of the yNN plausibility.
	NeighboursK = 5
)

// Recourse holds the CARLA measures of a set.
type Recourse struct {
	Validity float64 `json:"validity"` // accepted / restarts
	L0       Stat    `json:"l0"`       // pixels changed by more than ChangedPixel, over the accepted explanations
	L1       Stat    `json:"l1"`       // summed |x − x0| (the same as the set's d)
	L2       Stat    `json:"l2"`       // √Σ (x − x0)²
	YNN      float64 `json:"ynn"`      // mean over the accepted explanations of their yNN; −1 without anchors
}

// recourse computes the CARLA measures of the accepted explanations.
func recourse(x0 []float32, exps []Explanation, accepted []int) Recourse {
	r := Recourse{YNN: -1}
	if len(exps) > 0 {
		r.Validity = float64(len(accepted)) / float64(len(exps))
	}
	var l0s, l1s, l2s []float64
	var ynn float64
	n := 0
	for _, i := range accepted {
		e := exps[i]
		changed := 0
		for j, v := range e.Image {
			// In float32, as the images are: a change of exactly 0.1 does not count.
			if d := v - x0[j]; d > ChangedPixel || d < -ChangedPixel {
				changed++
			}
		}
		l0s, l1s, l2s = append(l0s, float64(changed)), append(l1s, l1(e.Image, x0)), append(l2s, l2(e.Image, x0))
		if e.YNN >= 0 {
			ynn += float64(e.YNN)
			n++
		}
	}
	r.L0, r.L1, r.L2 = stat(l0s), stat(l1s), stat(l2s)
	if n > 0 {
		r.YNN = ynn / float64(n)
	}
	return r
}

// neighbourAgreement is the fraction of the k latent codes nearest to z (L2) among the anchors (per class,
// flat [n·len(z)]) whose class is label: CARLA's yNN for one explanation. Ties in distance go to the lower
// class, then the earlier code. It returns −1 when there are no anchors.
func neighbourAgreement(z []float32, label int, anchors [][]float32, k int) float32 {
	type neighbour struct {
		dist       float64
		class, idx int
	}
	var near []neighbour // the k best so far, sorted
	less := func(a, b neighbour) bool {
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		if a.class != b.class {
			return a.class < b.class
		}
		return a.idx < b.idx
	}
	d := len(z)
	for c, codes := range anchors {
		for i := 0; i+d <= len(codes); i += d {
			var s float64
			for j, v := range z {
				e := float64(v) - float64(codes[i+j])
				s += e * e
			}
			nb := neighbour{s, c, i / d}
			if len(near) == k && !less(nb, near[k-1]) {
				continue
			}
			pos := sort.Search(len(near), func(m int) bool { return less(nb, near[m]) })
			near = append(near, neighbour{})
			copy(near[pos+1:], near[pos:])
			near[pos] = nb
			if len(near) > k {
				near = near[:k]
			}
		}
	}
	if len(near) == 0 {
		return -1
	}
	same := 0
	for _, nb := range near {
		if nb.class == label {
			same++
		}
	}
	return float32(same) / float32(len(near))
}
