package kernel

import (
	"math"
	"math/rand"
	"testing"
)

// TestMatMulAddRowsBitForBit compares MatMulAddRows (natively the AVX-512 table kernels, matmul.wasm's under Node with the SIMD module) with
// MatMulAddGo on B's rows copied out, bit for bit, on every row and column tail, the strips of a small a, rows that
// overlap and repeat, and c's rows apart (the values between them untouched); and the Go loop likewise.
func TestMatMulAddRowsBitForBit(t *testing.T) {
	rng := rand.New(rand.NewSource(39))
	val := func() float32 {
		switch rng.Intn(10) {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(0, -1))
		case 2:
			return math.Float32frombits(uint32(rng.Intn(1 << 23))) // subnormal
		}
		return float32(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(40)-20)))
	}
	type shape struct{ m, k, n int }
	var shapes []shape
	for m := 0; m <= 9; m++ {
		for _, k := range []int{1, 2, 3, 9, 17} {
			for n := 1; n <= 19; n++ {
				shapes = append(shapes, shape{m, k, n})
			}
		}
	}
	shapes = append(shapes, shape{8, 72, 784}, shape{16, 72, 400}, shape{8, 9, 2048}, shape{1, 9, 2048}, shape{32, 288, 130},
		shape{5, 800, 37}, shape{72, 8, 1000}, shape{7, 600, 41}, shape{250, 20, 70})
	for _, s := range shapes {
		for _, gap := range []int{0, 3} {
			m, k, n, ldc := s.m, s.k, s.n, s.n+gap
			b := make([]float32, n+rng.Intn(3*n+50))
			for i := range b {
				b[i] = val()
			}
			offs := make([]int32, k+2)
			for p := range offs {
				offs[p] = int32(rng.Intn(len(b) - n + 1))
			}
			a := make([]float32, m*k)
			for i := range a {
				a[i] = val()
			}
			c0 := make([]float32, max(0, (m-1)*ldc+n)+5)
			for i := range c0 {
				c0[i] = float32(math.Abs(float64(val()))) // no -0
			}
			bb := make([]float32, k*n)
			for p := 0; p < k; p++ {
				copy(bb[p*n:(p+1)*n], b[offs[p]:])
			}
			want := append([]float32(nil), c0...)
			wc := make([]float32, m*n)
			for i := 0; i < m; i++ {
				copy(wc[i*n:(i+1)*n], want[i*ldc:])
			}
			MatMulAddGo(a, bb, wc, m, k, n)
			for i := 0; i < m; i++ {
				copy(want[i*ldc:i*ldc+n], wc[i*n:])
			}
			for _, f := range []struct {
				name string
				run  func(a, b []float32, offs []int32, c []float32, m, k, n, ldc int)
			}{{"MatMulAddRows", MatMulAddRows}, {"MatMulAddRowsGo", MatMulAddRowsGo}} {
				got := append([]float32(nil), c0...)
				f.run(a, b, offs, got, m, k, n, ldc)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s m=%d k=%d n=%d ldc=%d: c[%d] = %v, want %v", f.name, m, k, n, ldc, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func TestMatMulAddRowsChecks(t *testing.T) {
	for name, f := range map[string]func(){
		"row past b": func() {
			MatMulAddRows(make([]float32, 2), make([]float32, 10), []int32{0, 7}, make([]float32, 4), 1, 2, 4, 4)
		},
		"negative": func() {
			MatMulAddRows(make([]float32, 2), make([]float32, 10), []int32{-1, 0}, make([]float32, 4), 1, 2, 4, 4)
		},
		"short c": func() {
			MatMulAddRows(make([]float32, 4), make([]float32, 10), []int32{0, 1}, make([]float32, 8), 2, 2, 4, 5)
		},
		"short offs": func() {
			MatMulAddRows(make([]float32, 4), make([]float32, 10), []int32{0}, make([]float32, 8), 2, 2, 4, 4)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestPlanesGradBitForBit compares PlanesGrad (natively AVX-512's planesGrad512, matmul.wasm's under Node with the
// SIMD module) and PlanesGradGo with what they replace: W_gᵀ·∂out_g by MatMulAddGo onto +0, each tap's column
// shifted right (+0 before it) and the shifted columns added in tap order by a product with ones; bit for bit, on
// pairs of rows and a row left over, column tails (of 64 and of 16 columns too), one tap and one output; blocks of
// four rows (pg4) with pairs and a row left over.
func TestPlanesGradBitForBit(t *testing.T) {
	rng := rand.New(rand.NewSource(40))
	val := func() float32 {
		switch rng.Intn(10) {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(0, -1))
		case 2:
			return math.Float32frombits(uint32(rng.Intn(1 << 23)))
		}
		return float32(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(30)-15)))
	}
	for trial := 0; trial < 400; trial++ {
		cig, taps, m, n := 1+rng.Intn(9), 1+rng.Intn(9), 1+rng.Intn(17), 1+rng.Intn(40)
		if trial%50 == 0 {
			n = 800 + rng.Intn(200)
		}
		if trial%10 == 5 { // one row: blocks of 32 columns, then of 8, then one at a time
			cig, n = 1, 100+rng.Intn(200)
		}
		maxs := rng.Intn(12)
		sb := n + maxs + rng.Intn(3)
		sd := n + rng.Intn(4)
		b0 := maxs + rng.Intn(3)
		shifts := make([]int32, taps)
		for i := range shifts {
			shifts[i] = int32(rng.Intn(maxs + 1))
		}
		b := make([]float32, b0+(m-1)*sb+n+rng.Intn(5))
		for i := range b {
			b[i] = val()
		}
		for o := 0; o < m; o++ { // +0 where a shifted row reads before its start
			for i := b0 + o*sb - maxs; i < b0+o*sb; i++ {
				b[i] = 0
			}
		}
		a := make([]float32, cig*taps*m)
		for i := range a {
			a[i] = val()
		}
		dst0 := make([]float32, (cig-1)*sd+n+3)
		for i := range dst0 {
			dst0[i] = float32(math.Abs(float64(val())))
		}
		// The reference: e = a·∂out from +0, shifted copies, ones.
		want := append([]float32(nil), dst0...)
		dy := make([]float32, m*n)
		for o := 0; o < m; o++ {
			copy(dy[o*n:(o+1)*n], b[b0+o*sb:])
		}
		ones := make([]float32, taps)
		for i := range ones {
			ones[i] = 1
		}
		for ci := 0; ci < cig; ci++ {
			e := make([]float32, taps*n)
			MatMulAddGo(a[ci*taps*m:], dy, e, taps, m, n)
			shifted := make([]float32, taps*n)
			for i, s := range shifts {
				copy(shifted[min(i*n+int(s), (i+1)*n):(i+1)*n], e[i*n:])
			}
			MatMulAddGo(ones, shifted, want[ci*sd:ci*sd+n], 1, taps, n)
		}
		for _, f := range []struct {
			name string
			run  func(a, b []float32, b0 int, shifts []int32, dst []float32, cig, taps, m, n, sb, sd int)
		}{{"PlanesGrad", PlanesGrad}, {"PlanesGradGo", PlanesGradGo}} {
			got := append([]float32(nil), dst0...)
			f.run(a, b, b0, shifts, got, cig, taps, m, n, sb, sd)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s trial %d (cig %d taps %d m %d n %d): dst[%d] = %v, want %v", f.name, trial, cig, taps, m, n, i, got[i], want[i])
				}
			}
		}
	}
}

// TestMoveRowsBitForBit compares MoveRows (matmul.wasm's under Node with the SIMD module) and MoveRowsGo with the
// maps they stand for (GatherIdx, ScatterAddIdxGo, ScatterAddPairsGo), bit for bit, with NaN, ±0 and every width's
// tail; the values no row writes untouched.
func TestMoveRowsBitForBit(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	val := func() float32 {
		switch rng.Intn(8) {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(0, -1))
		case 2:
			return math.Float32frombits(0x7fc00000 | uint32(rng.Intn(1<<20))) // a NaN (copied, not added)
		}
		return float32(rng.NormFloat64())
	}
	for trial := 0; trial < 300; trial++ {
		w, rows := 1+rng.Intn(33), 1+rng.Intn(12)
		// Rows at distinct, non-overlapping places of a longer slice (each value written once).
		stride := w + rng.Intn(4)
		perm := rng.Perm(rows + 3)[:rows]
		offs := make([]int32, rows)
		for r := range offs {
			offs[r] = int32(perm[r]*stride + rng.Intn(stride-w+1))
		}
		long, flat := make([]float32, (rows+3)*stride+2), make([]float32, rows*w+3)
		for _, add := range []bool{false, true} {
			for _, onDst := range []bool{false, true} {
				for i := range long {
					long[i] = val()
				}
				for i := range flat {
					flat[i] = val()
				}
				if add { // no NaN where they add (NaN payloads aside, as the maps' contract says)
					for _, s := range [][]float32{long, flat} {
						for i := range s {
							if s[i] != s[i] {
								s[i] = 1.5
							}
						}
					}
				}
				dst, src := flat, long
				if onDst {
					dst, src = long, flat
				}
				// The map the rows stand for, position by position.
				idx := make([]int32, 0, rows*w)
				for _, o := range offs {
					for j := 0; j < w; j++ {
						idx = append(idx, o+int32(j))
					}
				}
				want := append([]float32(nil), dst...)
				switch {
				case !add && !onDst:
					GatherIdxGo(want[:rows*w], src, NewIndex(idx))
				case add && onDst:
					ScatterAddIdxGo(want, src, NewIndex(idx))
				case add && !onDst:
					self := make([]int32, len(idx))
					for i := range self {
						self[i] = int32(i)
					}
					ScatterAddPairsGo(want, src, NewPairs(self, idx))
				default: // copied onto dst's table: a scatter of copies
					for i, j := range idx {
						want[j] = src[i]
					}
				}
				for _, f := range []struct {
					name string
					run  func(dst, src []float32, offs []int32, w int, onDst, add bool)
				}{{"MoveRows", MoveRows}, {"MoveRowsGo", MoveRowsGo}} {
					got := append([]float32(nil), dst...)
					f.run(got, src, offs, w, onDst, add)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s trial %d (w %d rows %d add %v onDst %v): dst[%d] = %v, want %v", f.name, trial, w, rows, add, onDst, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
