package clue

import "sort"

// ParetoFront returns the indices of the points (d[i], h[i]) on the lower-left front of the trade-off between
// distance and uncertainty: a point is on it when no other point is at most as far and strictly less
// uncertain, nor equally uncertain and strictly nearer. The indices come in increasing d (and decreasing h);
// of identical points, the first. NaNs are left out.
func ParetoFront(d, h []float64) []int {
	idx := make([]int, 0, len(d))
	for i := range d {
		if finite(d[i]) && finite(h[i]) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if d[idx[a]] != d[idx[b]] {
			return d[idx[a]] < d[idx[b]]
		}
		return h[idx[a]] < h[idx[b]]
	})
	var front []int
	for _, i := range idx {
		if len(front) == 0 || h[i] < h[front[len(front)-1]] {
			front = append(front, i)
		}
	}
	return front
}

// LabelFronts returns, for each of the classes, the restarts on the Pareto front of the explanations with that
// label (those that did not fail), in increasing distance.
func LabelFronts(exps []Explanation, classes int) [][]int {
	out := make([][]int, classes)
	for c := range out {
		var d, h []float64
		var restarts []int
		for _, e := range exps {
			if e.Failed == "" && e.Label == c {
				d, h, restarts = append(d, float64(e.Distance)), append(h, float64(e.HTotal)), append(restarts, e.Restart)
			}
		}
		for _, i := range ParetoFront(d, h) {
			out[c] = append(out[c], restarts[i])
		}
	}
	return out
}
