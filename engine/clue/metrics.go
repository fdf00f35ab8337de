package clue

import (
	"math"
	"sort"

	"github.com/deltaclue/deltaclue/engine"
)

// Stat is the minimum, mean and maximum of a quantity over a set.
type Stat struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

func stat(vals []float64) Stat {
	if len(vals) == 0 {
		return Stat{}
	}
	s := Stat{Min: vals[0], Max: vals[0]}
	for _, v := range vals {
		s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
		s.Mean += v
	}
	s.Mean /= float64(len(vals))
	return s
}

// Diversity measures a set of explanations in one space (Ley et al., AAAI 2022).
type Diversity struct {
	DPP         float64 `json:"dpp"`          // det K, K_ij = 1/(1 + d(i, j))
	AvgPairwise float64 `json:"avg_pairwise"` // mean of d(i, j) over pairs i < j
	Coverage    float64 `json:"coverage"`     // (1/D) Σ_k [max_j (v_j − v0)_k + max_j (v0 − v_j)_k]
}

// Summary holds a set's metrics. The set is the accepted explanations; the diversity measures and modes use
// the accepted explanations that are not duplicates.
type Summary struct {
	Restarts   int `json:"restarts"`
	Accepted   int `json:"accepted"`
	Converged  int `json:"converged"`
	Failed     int `json:"failed"`
	Duplicates int `json:"duplicates"` // accepted explanations within DedupL1 of a cheaper accepted one

	H    Stat `json:"h"`    // H_total of the accepted explanations
	D    Stat `json:"d"`    // input L1 distance of the accepted explanations
	Rho  Stat `json:"rho"`  // latent distance of the accepted explanations
	Cost Stat `json:"cost"` // cost of the accepted explanations
	// Sparsity, for a model of rows, is the features each accepted explanation changes (len(Explanation.Changed));
	// nil for images, and for a set of rows none of whose explanations changed a feature.
	Sparsity *Stat `json:"sparsity,omitempty"`
	// GivenBack, for a model of rows searched with Params.Sparse, is the changes each accepted explanation gave
	// back (len(Explanation.Reverted)), the model sure without them; nil otherwise.
	GivenBack *Stat `json:"given_back,omitempty"`

	ShellFraction float64 `json:"shell_fraction"` // of the restarts that did not fail, the fraction that end on the shell

	LabelCounts           []int     `json:"label_counts"` // accepted explanations per label
	DistinctLabels        int       `json:"distinct_labels"`
	DistinctFraction      float64   `json:"distinct_fraction"`        // distinct labels / C
	LabelEntropy          float64   `json:"label_entropy"`            // of the label counts, nats
	LabelEntropyNorm      float64   `json:"label_entropy_normalised"` // divided by log C
	LabelDistribution     []float64 `json:"label_distribution"`       // p(y) ∝ 1/cost_min(y)² (appendix E)
	PredictionCoverage    float64   `json:"prediction_coverage"`      // (1/C) Σ_c max_j p_j(c)
	Input                 Diversity `json:"input"`                    // d = L1 between images
	Latent                Diversity `json:"latent"`                   // d = L2 between latent points
	Modes                 []int     `json:"modes"`                    // modes found within each label
	ModeSilhouetteMinimum float64   `json:"mode_silhouette_minimum"`  // the clustering criterion used
	Recourse              Recourse  `json:"recourse"`                 // the CARLA benchmark's measures
}

// Summarize computes the metrics of the set of explanations of x0 (whose latent code is z0) among the given
// number of classes, and marks each explanation's duplicate (DuplicateOf, the restart it duplicates) and mode
// (Mode, its cluster within its label), in place. It needs no models, so a page can merge the results of
// several workers and summarise them itself.
func Summarize(x0, z0 []float32, classes int, p Params, exps []Explanation) Summary {
	s := Summary{Restarts: len(exps), LabelCounts: make([]int, classes), LabelDistribution: make([]float64, classes),
		Modes: make([]int, classes), ModeSilhouetteMinimum: modeSilhouette}
	var hs, ds, rhos, costs []float64
	var accepted []int
	nonFailed, onShell := 0, 0
	for i := range exps {
		e := &exps[i]
		e.Mode, e.DuplicateOf = -1, -1
		if e.Failed != "" {
			s.Failed++
			continue
		}
		nonFailed++
		if e.OnShell {
			onShell++
		}
		if e.Converged {
			s.Converged++
		}
		if !e.Accepted {
			continue
		}
		accepted = append(accepted, i)
		hs, ds = append(hs, float64(e.HTotal)), append(ds, float64(e.Distance))
		rhos, costs = append(rhos, float64(e.Rho)), append(costs, float64(e.Cost))
		s.LabelCounts[e.Label]++
	}
	s.Accepted = len(accepted)
	s.H, s.D, s.Rho, s.Cost = stat(hs), stat(ds), stat(rhos), stat(costs)
	rows, changed := false, make([]float64, len(accepted))
	for k, i := range accepted {
		changed[k] = float64(len(exps[i].Changed))
		rows = rows || exps[i].Changed != nil || exps[i].Reverted != nil
	}
	if rows {
		sp := stat(changed)
		s.Sparsity = &sp
		if p.Sparse {
			back := make([]float64, len(accepted))
			for k, i := range accepted {
				back[k] = float64(len(exps[i].Reverted))
			}
			gb := stat(back)
			s.GivenBack = &gb
		}
	}
	if nonFailed > 0 {
		s.ShellFraction = float64(onShell) / float64(nonFailed)
	}
	s.LabelEntropy = countEntropy(s.LabelCounts)
	s.LabelEntropyNorm = s.LabelEntropy / math.Log(float64(classes))
	minCost := make([]float64, classes)
	for c := range minCost {
		minCost[c] = math.Inf(1)
	}
	for _, i := range accepted {
		e := &exps[i]
		minCost[e.Label] = math.Min(minCost[e.Label], math.Max(float64(e.Cost), 1e-6))
	}
	var z float64
	for c, n := range s.LabelCounts {
		if n > 0 {
			s.DistinctLabels++
			s.LabelDistribution[c] = 1 / (minCost[c] * minCost[c])
			z += s.LabelDistribution[c]
		}
	}
	for c := range s.LabelDistribution {
		if z > 0 {
			s.LabelDistribution[c] /= z
		}
	}
	s.DistinctFraction = float64(s.DistinctLabels) / float64(classes)

	unique := dedup(exps, accepted, p.DedupL1)
	s.Duplicates = len(accepted) - len(unique)
	images, latents := make([][]float32, len(unique)), make([][]float32, len(unique))
	for k, i := range unique {
		images[k], latents[k] = exps[i].Image, exps[i].Z
	}
	s.Input = measureDiversity(images, x0, l1)
	s.Latent = measureDiversity(latents, z0, l2)
	for c := 0; c < classes; c++ {
		var best float64
		for _, i := range accepted {
			best = math.Max(best, float64(exps[i].Probs[c]))
		}
		s.PredictionCoverage += best / float64(classes)
	}
	s.Modes = assignModes(exps, unique, classes, p.Seed)
	s.Recourse = recourse(x0, exps, accepted)
	return s
}

// countEntropy is the entropy (nats) of the distribution of counts.
func countEntropy(counts []int) float64 {
	total := 0
	for _, n := range counts {
		total += n
	}
	var h float64
	for _, n := range counts {
		if n > 0 {
			q := float64(n) / float64(total)
			h -= q * math.Log(q)
		}
	}
	return h
}

// LabelEntropyCurve returns, for k = 1..len(exps), the entropy of the labels of the accepted explanations
// among the first k restarts: how fast the set's label distribution saturates.
func LabelEntropyCurve(exps []Explanation, classes int) []float64 {
	counts := make([]int, classes)
	out := make([]float64, len(exps))
	for k, e := range exps {
		if e.Accepted {
			counts[e.Label]++
		}
		out[k] = countEntropy(counts)
	}
	return out
}

func l1(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += math.Abs(float64(a[i]) - float64(b[i]))
	}
	return s
}

func l2(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// measureDiversity computes DPP, average pairwise distance and coverage of points v relative to v0.
func measureDiversity(v [][]float32, v0 []float32, dist func(a, b []float32) float64) Diversity {
	var d Diversity
	n := len(v)
	if n == 0 {
		return d
	}
	d.DPP = determinant(kernelMatrix(n, func(i, j int) float64 { return dist(v[i], v[j]) }))
	pairs := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d.AvgPairwise += dist(v[i], v[j])
			pairs++
		}
	}
	if pairs > 0 {
		d.AvgPairwise /= float64(pairs)
	}
	for k := range v0 {
		up, down := math.Inf(-1), math.Inf(-1)
		for _, x := range v {
			up = math.Max(up, float64(x[k])-float64(v0[k]))
			down = math.Max(down, float64(v0[k])-float64(x[k]))
		}
		d.Coverage += up + down
	}
	d.Coverage /= float64(len(v0))
	return d
}

// dedup returns the accepted explanations that are not duplicates, cheapest first: an explanation whose image
// lies within L1 distance tol of a cheaper kept one is marked as its duplicate.
func dedup(exps []Explanation, accepted []int, tol float64) []int {
	order := append([]int(nil), accepted...)
	sort.SliceStable(order, func(a, b int) bool { return exps[order[a]].Cost < exps[order[b]].Cost })
	var kept []int
	for _, i := range order {
		dup := -1
		for _, k := range kept {
			if l1(exps[i].Image, exps[k].Image) < tol {
				dup = k
				break
			}
		}
		if dup >= 0 {
			exps[i].DuplicateOf = exps[dup].Restart
			continue
		}
		kept = append(kept, i)
	}
	return kept
}

// Report is an explanation set with everything needed to reread it: what `deltaclue explain` writes and what
// the page offers for download, in the same JSON.
type Report struct {
	Input      string             `json:"input"`
	Params     Params             `json:"params"`
	X0         []float32          `json:"x0"`
	Z0         []float32          `json:"z0"`
	Prediction engine.Uncertainty `json:"prediction"` // the BNN on x0
	Label      int                `json:"label"`
	Summary    Summary            `json:"summary"`
	// CARLA is the set's recourse measures as CARLA's code defines them (CARLAOf), beside δ-CLUE's adaptation
	// in Summary.Recourse.
	CARLA        *CARLA        `json:"carla,omitempty"`
	Explanations []Explanation `json:"explanations"`
	Seconds      float64       `json:"seconds"`
	// SecondsPerExplanation is Seconds over the restarts: the recourse benchmark's time per counterfactual.
	SecondsPerExplanation float64 `json:"seconds_per_explanation"`
}
