package clue

import (
	"math"
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

// Recourse holds the CARLA-style measures of a set, adapted to δ-CLUE (every difference from CARLA's own
// definitions is in docs/measures.md; CARLA holds those).
type Recourse struct {
	Validity float64 `json:"validity"` // accepted / restarts: valid means confident (H < threshold), not class changed
	L0       Stat    `json:"l0"`       // pixels changed by more than ChangedPixel, over the accepted explanations
	L1       Stat    `json:"l1"`       // summed |x − x0| (the same as the set's d)
	L2       Stat    `json:"l2"`       // √Σ (x − x0)²
	YNN      float64 `json:"ynn"`      // mean over the accepted explanations of their yNN (latent, anchors); −1 without anchors
}

// CARLATolerance is the change below which CARLA's L0 does not count a feature as changed (np.isclose with
// atol 1e-5 in carla/evaluation/catalog/distance.py).
const CARLATolerance = 1e-5

// CARLA holds a set's recourse measures exactly as the benchmark's code defines them (repository
// carla-recourse/CARLA, carla/evaluation/catalog: success_rate.py, distance.py, ynn.py, and
// recourse_methods/processing/counterfactuals.py), each restart's result taken as one counterfactual of x0:
//
//   - a counterfactual is valid when the model's label on it differs from its label on x0
//     (check_counterfactuals; CARLA's binary "the label flipped", for ten classes); a failed restart is not;
//   - validity is the valid ones over the restarts (the success rate), and every other measure is over the
//     valid ones only (remove_nans);
//   - L0 counts the pixels with |x − x0| > 1e-5, L1 is Σ|x − x0|, L2 is Σ(x − x0)², with no square root;
//   - yNN is, over the valid ones, the share of each one's k = 5 nearest data points (Euclidean, in input
//     space) whose label by the model is the counterfactual's own label (CARLA's cf_label, the class it was
//     sought for); the data are all of the dataset (CARLA's data.df), which the caller provides
//     (SetYNN).
type CARLA struct {
	Valid    int     `json:"valid"`    // restarts whose label differs from the model's label on x0
	Validity float64 `json:"validity"` // valid / restarts
	L0       Stat    `json:"l0"`       // over the valid: #{k : |x_k − x0_k| > 1e-5}
	L1       Stat    `json:"l1"`       // over the valid: Σ|x − x0|
	L2       Stat    `json:"l2"`       // over the valid: Σ (x − x0)², CARLA's l2_distance (the square of ours)
	YNN      float64 `json:"ynn"`      // over the valid, in input space (see SetYNN); −1 when not computed
	// YNNData says which data yNN's neighbours were searched among, and how many.
	YNNData string `json:"ynn_data,omitempty"`
}

// CARLAOf computes CARLA's measures of the restarts' results exps for the image x0, on which the model's label
// is label0; yNN is left at −1 (SetYNN computes it).
func CARLAOf(x0 []float32, label0 int, exps []Explanation) CARLA {
	c := CARLA{YNN: -1}
	var l0s, l1s, l2s []float64
	for _, e := range exps {
		if e.Failed != "" || e.Label == label0 {
			continue
		}
		c.Valid++
		changed := 0
		var sq float64
		for j, v := range e.Image {
			d := float64(v) - float64(x0[j])
			if math.Abs(d) > CARLATolerance {
				changed++
			}
			sq += d * d
		}
		l0s, l1s, l2s = append(l0s, float64(changed)), append(l1s, l1(e.Image, x0)), append(l2s, sq)
	}
	if len(exps) > 0 {
		c.Validity = float64(c.Valid) / float64(len(exps))
	}
	c.L0, c.L1, c.L2 = stat(l0s), stat(l1s), stat(l2s)
	return c
}

// NeighbourData is the data CARLA's yNN searches: Images (of the models' input, one after another), and Labels, which returns the model's labels
// of the images with the given indices (called once, with only the neighbours found: CARLA too labels only
// those). Name says what the data are.
type NeighbourData struct {
	Images []float32
	Labels func(indices []int) []int
	Name   string
}

// SetYNN sets c.YNN to CARLA's yNN of the valid results among exps (valid as in CARLAOf, for label0) over
// data, with k neighbours: the mean over them of the share of their k nearest images (Euclidean distance in
// input space, ties to the lower index) whose model label is their own label. It leaves −1 when nothing is
// valid.
func (c *CARLA) SetYNN(label0 int, exps []Explanation, data NeighbourData, k int) {
	c.YNNData = data.Name
	var valid []Explanation
	for _, e := range exps {
		if e.Failed == "" && e.Label != label0 {
			valid = append(valid, e)
		}
	}
	if len(valid) == 0 || len(valid[0].Image) == 0 {
		return
	}
	pixels := len(valid[0].Image) // an image of the models' input, as the data's are
	n := len(data.Images) / pixels
	if n == 0 {
		return
	}
	type near struct {
		dist float64
		idx  int
	}
	neighbours := make([][]int, len(valid))
	seen := map[int]bool{}
	var unique []int
	for v, e := range valid {
		var best []near // the k nearest so far, sorted
		for i := 0; i < n; i++ {
			img := data.Images[i*pixels : (i+1)*pixels]
			var s float64
			for j, x := range e.Image {
				d := float64(x) - float64(img[j])
				s += d * d
			}
			if len(best) == k && s >= best[k-1].dist {
				continue
			}
			pos := sort.Search(len(best), func(m int) bool { return s < best[m].dist })
			best = append(best, near{})
			copy(best[pos+1:], best[pos:])
			best[pos] = near{s, i}
			if len(best) > k {
				best = best[:k]
			}
		}
		for _, b := range best {
			neighbours[v] = append(neighbours[v], b.idx)
			if !seen[b.idx] {
				seen[b.idx] = true
				unique = append(unique, b.idx)
			}
		}
	}
	sort.Ints(unique)
	labels := data.Labels(unique)
	labelOf := map[int]int{}
	for i, idx := range unique {
		labelOf[idx] = labels[i]
	}
	same, all := 0, 0
	for v, e := range valid {
		for _, idx := range neighbours[v] {
			all++
			if labelOf[idx] == e.Label {
				same++
			}
		}
	}
	c.YNN = float64(same) / float64(all)
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
