package clue

import (
	"math"
	"sort"
)

// Plane is a 2-D view of the latent space around z0: the two principal directions of a set of points' offsets
// from z0 (PCA without centring on their mean, so that z0 stays at the origin and the δ-ball projects onto a
// disc of radius δ).
type Plane struct {
	Z0        []float64    `json:"z0"`
	Axes      [2][]float64 `json:"axes"`      // orthonormal directions
	Explained [2]float64   `json:"explained"` // the fraction of the offsets' squared length along each axis
}

// PrincipalPlane finds the plane of the points' largest spread around z0. With fewer than two independent
// offsets it completes the axes with coordinate directions, so it always returns two orthonormal axes.
// Deterministic: each axis's largest component is positive.
func PrincipalPlane(z0 []float32, points [][]float32) Plane {
	d := len(z0)
	pl := Plane{Z0: make([]float64, d)}
	for k, v := range z0 {
		pl.Z0[k] = float64(v)
	}
	scatter := make([][]float64, d)
	for i := range scatter {
		scatter[i] = make([]float64, d)
	}
	var total float64
	for _, p := range points {
		if len(p) != d {
			continue
		}
		for i := 0; i < d; i++ {
			oi := float64(p[i]) - pl.Z0[i]
			total += oi * oi
			for j := 0; j < d; j++ {
				scatter[i][j] += oi * (float64(p[j]) - pl.Z0[j])
			}
		}
	}
	vals, vecs := jacobiEigen(scatter)
	order := make([]int, d)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	for a := 0; a < 2 && a < d; a++ {
		v := make([]float64, d)
		for i := range v {
			v[i] = vecs[i][order[a]]
		}
		if vals[order[a]] <= 1e-12*math.Max(total, 1e-300) || total == 0 {
			v = nil // no spread left: complete with a coordinate direction below
		}
		pl.Axes[a] = v
		if v != nil && total > 0 {
			pl.Explained[a] = vals[order[a]] / total
		}
	}
	for a := 0; a < 2 && a < d; a++ {
		if pl.Axes[a] != nil {
			continue
		}
		for k := 0; k < d; k++ { // Gram–Schmidt a coordinate direction against the axes found
			v := make([]float64, d)
			v[k] = 1
			for b := 0; b < a; b++ {
				dot := 0.0
				for i := range v {
					dot += v[i] * pl.Axes[b][i]
				}
				for i := range v {
					v[i] -= dot * pl.Axes[b][i]
				}
			}
			if n := math.Sqrt(dotSelf(v)); n > 1e-6 {
				for i := range v {
					v[i] /= n
				}
				pl.Axes[a] = v
				break
			}
		}
	}
	for a := range pl.Axes {
		v := pl.Axes[a]
		big := 0
		for i := range v {
			if math.Abs(v[i]) > math.Abs(v[big])+1e-12 {
				big = i
			}
		}
		if len(v) > 0 && v[big] < 0 {
			for i := range v {
				v[i] = -v[i]
			}
		}
	}
	return pl
}

func dotSelf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

// Project returns z's coordinates in the plane, relative to z0.
func (pl Plane) Project(z []float32) [2]float64 {
	var out [2]float64
	for a, axis := range pl.Axes {
		for i, v := range axis {
			out[a] += (float64(z[i]) - pl.Z0[i]) * v
		}
	}
	return out
}

// jacobiEigen returns the eigenvalues and eigenvectors (as columns) of a symmetric matrix, by cyclic Jacobi
// rotations: exact enough for the 16×16 scatter of a latent set, and deterministic.
func jacobiEigen(m [][]float64) ([]float64, [][]float64) {
	n := len(m)
	a := make([][]float64, n)
	v := make([][]float64, n)
	for i := range a {
		a[i] = append([]float64(nil), m[i]...)
		v[i] = make([]float64, n)
		v[i][i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off < 1e-30 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				if math.Abs(a[p][q]) < 1e-300 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ { // A ← A·J
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := 0; k < n; k++ { // A ← Jᵀ·A
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = a[i][i]
	}
	return vals, v
}
