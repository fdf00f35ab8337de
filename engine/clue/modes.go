package clue

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/rng"
)

// modeSilhouette is the clustering criterion for modes within a label: k-means in latent space for
// k = 2..min(maxModes, n−1), keeping the k with the best mean silhouette if that silhouette is at least this;
// otherwise the label has one mode. (Kaufman and Rousseeuw call silhouettes above 0.7 "strong structure"; 2-means
// on points spread evenly along a line scores about 0.67, and such a spread is one mode, not two.)
const (
	modeSilhouette = 0.7
	maxModes       = 6
)

// assignModes clusters each label's explanations (the given indices) and sets their Mode; it returns the
// number of modes per label.
func assignModes(exps []Explanation, idx []int, classes int, seed uint64) []int {
	modes := make([]int, classes)
	for c := 0; c < classes; c++ {
		var members []int
		for _, i := range idx {
			if exps[i].Label == c {
				members = append(members, i)
			}
		}
		if len(members) == 0 {
			continue
		}
		points := make([][]float64, len(members))
		for k, i := range members {
			points[k] = make([]float64, len(exps[i].Z))
			for j, v := range exps[i].Z {
				points[k][j] = float64(v)
			}
		}
		assign, k := chooseClusters(points, rng.Derive(seed, uint64(1000+c)))
		modes[c] = k
		for m, i := range members {
			exps[i].Mode = assign[m]
		}
	}
	return modes
}

// chooseClusters picks the number of clusters by the silhouette criterion and returns the assignment.
func chooseClusters(points [][]float64, seed uint64) ([]int, int) {
	best, bestK, bestScore := make([]int, len(points)), 1, modeSilhouette
	for k := 2; k <= min(maxModes, len(points)-1); k++ {
		assign := kmeans(points, k, seed)
		if s := silhouette(points, assign, k); s >= bestScore {
			best, bestK, bestScore = assign, k, s
		}
	}
	return best, bestK
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}

// kmeans clusters points into k groups: k-means++ seeding, then Lloyd's iterations; the best of three seeds
// by within-cluster sum of squares. Deterministic for a seed.
func kmeans(points [][]float64, k int, seed uint64) []int {
	var best []int
	bestSSE := math.Inf(1)
	for trial := 0; trial < 3; trial++ {
		r := rng.New(rng.Derive(seed, uint64(trial)))
		centres := [][]float64{append([]float64(nil), points[r.IntN(len(points))]...)}
		for len(centres) < k {
			weights := make([]float64, len(points))
			var total float64
			for i, p := range points {
				weights[i] = math.Inf(1)
				for _, c := range centres {
					weights[i] = math.Min(weights[i], sqDist(p, c))
				}
				total += weights[i]
			}
			pick, u := len(points)-1, r.Float64()*total
			for i, w := range weights {
				if u < w {
					pick = i
					break
				}
				u -= w
			}
			centres = append(centres, append([]float64(nil), points[pick]...))
		}
		assign := make([]int, len(points))
		for iter := 0; iter < 50; iter++ {
			changed := false
			for i, p := range points {
				c := 0
				for j := range centres {
					if sqDist(p, centres[j]) < sqDist(p, centres[c]) {
						c = j
					}
				}
				if c != assign[i] || iter == 0 {
					changed = changed || c != assign[i]
					assign[i] = c
				}
			}
			for j := range centres {
				sum, n := make([]float64, len(points[0])), 0
				for i, p := range points {
					if assign[i] == j {
						for d, v := range p {
							sum[d] += v
						}
						n++
					}
				}
				if n > 0 {
					for d := range sum {
						centres[j][d] = sum[d] / float64(n)
					}
				}
			}
			if !changed && iter > 0 {
				break
			}
		}
		var sse float64
		for i, p := range points {
			sse += sqDist(p, centres[assign[i]])
		}
		if sse < bestSSE {
			best, bestSSE = assign, sse
		}
	}
	return best
}

// silhouette is the mean silhouette coefficient of an assignment (0 for points alone in their cluster).
func silhouette(points [][]float64, assign []int, k int) float64 {
	var total float64
	for i, p := range points {
		sum := make([]float64, k)
		count := make([]int, k)
		for j, q := range points {
			if i != j {
				sum[assign[j]] += math.Sqrt(sqDist(p, q))
				count[assign[j]]++
			}
		}
		own := assign[i]
		if count[own] == 0 {
			continue
		}
		a := sum[own] / float64(count[own])
		b := math.Inf(1)
		for c := 0; c < k; c++ {
			if c != own && count[c] > 0 {
				b = math.Min(b, sum[c]/float64(count[c]))
			}
		}
		if math.IsInf(b, 1) {
			continue
		}
		total += (b - a) / math.Max(a, b)
	}
	return total / float64(len(points))
}
