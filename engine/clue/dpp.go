package clue

import "math"

// kernelMatrix returns K_ij = 1/(1 + d(i, j)) for the given pairwise distance (the DPP kernel of Ley et al.).
func kernelMatrix(n int, dist func(i, j int) float64) [][]float64 {
	k := make([][]float64, n)
	for i := range k {
		k[i] = make([]float64, n)
		k[i][i] = 1
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := 1 / (1 + dist(i, j))
			k[i][j], k[j][i] = v, v
		}
	}
	return k
}

// determinant returns det(a) by LU decomposition with partial pivoting (a is overwritten).
func determinant(a [][]float64) float64 {
	n := len(a)
	det := 1.0
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if a[p][c] == 0 {
			return 0
		}
		if p != c {
			a[p], a[c] = a[c], a[p]
			det = -det
		}
		det *= a[c][c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k < n; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	return det
}

// cholesky factors a symmetric positive definite matrix as L·Lᵀ, adding jitter to the diagonal; ok is false if
// it is not positive definite even so.
func cholesky(a [][]float64, jitter float64) (l [][]float64, ok bool) {
	n := len(a)
	l = make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
		for j := 0; j <= i; j++ {
			s := a[i][j]
			if i == j {
				s += jitter
			}
			for k := 0; k < j; k++ {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if s <= 0 {
					return nil, false
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	return l, true
}

// inverseFromCholesky returns (L·Lᵀ)⁻¹.
func inverseFromCholesky(l [][]float64) [][]float64 {
	n := len(l)
	inv := make([][]float64, n)
	col := make([]float64, n)
	for c := 0; c < n; c++ {
		clear(col)
		col[c] = 1
		for i := 0; i < n; i++ { // L y = e_c
			s := col[i]
			for k := 0; k < i; k++ {
				s -= l[i][k] * col[k]
			}
			col[i] = s / l[i][i]
		}
		for i := n - 1; i >= 0; i-- { // Lᵀ x = y
			s := col[i]
			for k := i + 1; k < n; k++ {
				s -= l[k][i] * col[k]
			}
			col[i] = s / l[i][i]
		}
		for i := 0; i < n; i++ {
			if inv[i] == nil {
				inv[i] = make([]float64, n)
			}
			inv[i][c] = col[i]
		}
	}
	return inv
}

// diversity is ∇-CLUE's joint diversity term D = log det K over the whole set's latent points, K_ij =
// 1/(1 + ‖z_i − z_j‖₂). (The log keeps the term's scale from vanishing as n grows: det K of 100 points is
// astronomically small.) Its gradient: ∂D/∂z_i = Σ_{j≠i} 2 (K⁻¹)_ij ∂K_ij/∂z_i with
// ∂K_ij/∂z_i = −(z_i − z_j) / (‖z_i − z_j‖ (1 + ‖z_i − z_j‖)²).
type diversity struct {
	grad [][]float64 // ∂D/∂z_i, by restart index
}

func newDiversity(n, d int) *diversity {
	g := make([][]float64, n)
	for i := range g {
		g[i] = make([]float64, d)
	}
	return &diversity{grad: g}
}

// update recomputes the gradient at the restarts' current points.
func (dv *diversity) update(states []*restart, p Params) {
	n := len(states)
	dist := func(i, j int) float64 {
		var s float64
		for k := range states[i].z {
			e := states[i].z[k] - states[j].z[k]
			s += e * e
		}
		return math.Sqrt(s)
	}
	k := kernelMatrix(n, dist)
	for _, g := range dv.grad {
		clear(g)
	}
	l, ok := cholesky(k, 1e-9)
	if !ok {
		return // coincident points: no usable gradient this step
	}
	inv := inverseFromCholesky(l)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			r := dist(i, j)
			if r == 0 {
				continue
			}
			f := 2 * inv[i][j] * (-1 / (r * (1 + r) * (1 + r)))
			gi := dv.grad[states[i].index]
			for c := range gi {
				gi[c] += f * (states[i].z[c] - states[j].z[c])
			}
		}
	}
}
