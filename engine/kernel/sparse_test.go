package kernel

import (
	"fmt"
	"math"
	"testing"
)

// sparseOf lists the dense row-major d [rows × cols] as a Sparse, by the contract's rule (a value is listed when
// it is not equal to zero), with the stale slots past each row's end poisoned.
func sparseOf(d []float32, rows, cols int) *Sparse {
	s := NewSparse(rows, cols)
	for i := range s.Val {
		s.Col[i], s.Val[i] = -7, float32(math.NaN())
	}
	for i := 0; i < rows; i++ {
		for k := 0; k < cols; k++ {
			if v := d[i*cols+k]; v != 0 {
				e := i*cols + int(s.N[i])
				s.Col[e], s.Val[e] = int32(k), v
				s.N[i]++
			}
		}
	}
	return s
}

// sameEntries says where two Sparses differ in what they list (counts, then each listed column and value's
// bits), or "".
func sameEntries(got, want *Sparse) string {
	for i := 0; i < want.Rows; i++ {
		if got.N[i] != want.N[i] {
			return fmt.Sprintf("row %d lists %d values, want %d", i, got.N[i], want.N[i])
		}
		for e := i * want.Cols; e < i*want.Cols+int(want.N[i]); e++ {
			if got.Col[e] != want.Col[e] || math.Float32bits(got.Val[e]) != math.Float32bits(want.Val[e]) {
				return fmt.Sprintf("row %d entry %d: column %d value %v, want %d %v", i, e-i*want.Cols, got.Col[e], got.Val[e], want.Col[e], want.Val[e])
			}
		}
	}
	return ""
}

// TestSparseMatMulBitForBit: MatMulAddSparse (matmul.wasm's sparse_matmul in a wasmsimd build) and its Go
// version give MatMulAdd's bits on the dense form of a, over widths that exercise every block of columns (32,
// 16, 4, 1), densities from empty to full, -0 among a's values (not listed), adding to c or starting from +0;
// nothing outside c is written.
func TestSparseMatMulBitForBit(t *testing.T) {
	r := xorshift(11)
	for trial := 0; trial < 400; trial++ {
		rows, cols := int(r.next()%9), int(r.next()%40)
		n := []int{1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 36, 49, 64, 70, 288}[r.next()%15]
		zeroPct := []uint32{0, 30, 50, 85, 100}[r.next()%5]
		zero := r.next()%2 == 0
		a := make([]float32, rows*cols)
		r.fill(a, zeroPct)
		for i := range a {
			if a[i] == 0 && r.next()%3 == 0 {
				a[i] = float32(math.Copysign(0, -1))
			}
		}
		b := make([]float32, cols*n)
		r.fill(b, 10)
		c0 := make([]float32, rows*n)
		r.fill(c0, 10)
		want := append([]float32(nil), c0...)
		if zero {
			clear(want)
		}
		MatMulAddGo(a, b, want, rows, cols, n)
		s := sparseOf(a, rows, cols)
		for _, impl := range []struct {
			name string
			f    func(*Sparse, []float32, []float32, int, bool)
		}{{"MatMulAddSparse", MatMulAddSparse}, {"MatMulAddSparseGo", MatMulAddSparseGo}} {
			c, buf := padded(len(c0), 3.5)
			copy(c, c0)
			impl.f(s, b, c, n, zero)
			if i := firstDiff(c, want); i >= 0 {
				t.Fatalf("%s, %d×%d (%d%% zeros) · %d wide, zero %v: c[%d] = %v, want %v", impl.name, rows, cols, zeroPct, n, zero, i, c[i], want[i])
			}
			if !sentinelsIntact(buf, len(c), 3.5) {
				t.Fatalf("%s, %d×%d · %d wide: wrote outside c", impl.name, rows, cols, n)
			}
		}
	}
}

// TestSparseBuildersBitForBit: SetTranspose, SetRows and SetGather (matmul.wasm's sparse_transpose, sparse_rows
// and sparse_gather in a wasmsimd build) and their Go versions list exactly the values the contract lists, NaNs included and ±0 not,
// in increasing columns, whatever the rows held before.
func TestSparseBuildersBitForBit(t *testing.T) {
	r := xorshift(5)
	special := []float32{float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.NaN()), math.SmallestNonzeroFloat32}
	for trial := 0; trial < 300; trial++ {
		rows, cols := int(r.next()%12), int(r.next()%30)
		d := make([]float32, rows*cols)
		r.fill(d, []uint32{0, 50, 90, 100}[r.next()%4])
		for i := range d {
			if r.next()%17 == 0 {
				d[i] = special[r.next()%uint32(len(special))]
			}
		}
		// SetTranspose reads d as [cols × rows]: its transpose, [rows × cols], is what it lists.
		dt := make([]float32, len(d))
		TransposeGo(dt, d, cols, rows)
		want := sparseOf(dt, rows, cols)
		for _, impl := range []struct {
			name string
			f    func(*Sparse, []float32)
		}{{"SetTranspose", (*Sparse).SetTranspose}, {"SetTransposeGo", (*Sparse).SetTransposeGo}} {
			s := NewSparse(rows, cols)
			for i := range s.N {
				s.N[i] = 99 // stale counts from an earlier image
			}
			impl.f(s, d)
			if msg := sameEntries(s, want); msg != "" {
				t.Fatalf("%s of %d×%d: %s", impl.name, cols, rows, msg)
			}
		}

		// SetRows lists d's own rows, into a Sparse made for more.
		want = sparseOf(d, rows, cols)
		listed := 0
		for _, n := range want.N {
			listed += int(n)
		}
		for _, impl := range []struct {
			name string
			f    func(*Sparse, []float32, int, int) int
		}{{"SetRows", (*Sparse).SetRows}, {"SetRowsGo", (*Sparse).SetRowsGo}} {
			s := NewSparse(rows+3, cols+2)
			if n := impl.f(s, d, rows, cols); n != listed {
				t.Fatalf("%s of %d×%d: %d listed, want %d", impl.name, rows, cols, n, listed)
			}
			if s.Rows != rows || s.Cols != cols {
				t.Fatalf("%s of %d×%d: the Sparse is %d×%d", impl.name, rows, cols, s.Rows, s.Cols)
			}
			if msg := sameEntries(s, want); msg != "" {
				t.Fatalf("%s of %d×%d: %s", impl.name, rows, cols, msg)
			}
		}

		// SetGather: a map with padding (−1) and repeated positions over a source of nsrc values.
		nsrc := 1 + int(r.next()%25)
		src := make([]float32, nsrc)
		r.fill(src, 40)
		src[r.next()%uint32(nsrc)] = special[r.next()%uint32(len(special))]
		idx := make([]int32, rows*cols)
		g := make([]float32, rows*cols)
		for i := range idx {
			idx[i] = int32(r.next()%uint32(nsrc+3)) - 1
			if idx[i] >= int32(nsrc) {
				idx[i] = -1
			}
			if idx[i] >= 0 {
				g[i] = src[idx[i]]
			}
		}
		want = sparseOf(g, rows, cols)
		w := NewWindows(NewIndex(idx), rows, cols)
		for _, impl := range []struct {
			name string
			f    func(*Sparse, []float32, *Windows)
		}{{"SetGather", (*Sparse).SetGather}, {"SetGatherGo", (*Sparse).SetGatherGo}} {
			s := NewSparse(rows, cols)
			impl.f(s, src, w)
			if msg := sameEntries(s, want); msg != "" {
				t.Fatalf("%s of %d×%d from %d values: %s", impl.name, rows, cols, nsrc, msg)
			}
		}
	}
}

// The sparse calls refuse sizes that do not fit, in a sentence, before they touch memory.
func TestSparseChecks(t *testing.T) {
	s := NewSparse(3, 4)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"a short transpose", func() { s.SetTranspose(make([]float32, 11)) }},
		{"windows of another shape", func() { s.SetGather(make([]float32, 5), NewWindows(NewIndex(make([]int32, 12)), 4, 3)) }},
		{"a position outside the source", func() { s.SetGather(make([]float32, 5), NewWindows(NewIndex(append(make([]int32, 11), 5)), 3, 4)) }},
		{"a map that is not rows × cols", func() { NewWindows(NewIndex(make([]int32, 11)), 3, 4) }},
		{"a short b", func() { MatMulAddSparse(s, make([]float32, 4*3-1), make([]float32, 9), 3, false) }},
		{"a short c", func() { MatMulAddSparse(s, make([]float32, 12), make([]float32, 8), 3, false) }},
		{"a negative width", func() { MatMulAddSparse(s, nil, nil, -1, false) }},
		{"rows past its buffers", func() { s.SetRows(make([]float32, 20), 5, 4) }},
		{"rows past the values", func() { s.SetRows(make([]float32, 7), 2, 4) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			c.f()
		}()
	}
}

// BenchmarkSparse times the sparse calls at the shapes of Fashion's second convolution (32×14×14 → 64×7×7, 3×3,
// stride 2: 49 positions of 288 window values, half of them +0; its gradient 64 × 49, 84 % +0) per image, beside
// the dense products they replace.
func BenchmarkSparse(b *testing.B) {
	r := xorshift(3)
	const P, K, C = 49, 288, 64
	img := make([]float32, 32*14*14)
	r.fill(img, 50)
	idx := make([]int32, P*K)
	for p := 0; p < P; p++ {
		oy, ox := p/7, p%7
		for c := 0; c < 32; c++ {
			for ky := 0; ky < 3; ky++ {
				for kx := 0; kx < 3; kx++ {
					iy, ix := 2*oy-1+ky, 2*ox-1+kx
					j := int32(-1)
					if iy >= 0 && iy < 14 && ix >= 0 && ix < 14 {
						j = int32(c*196 + iy*14 + ix)
					}
					idx[p*K+(c*3+ky)*3+kx] = j
				}
			}
		}
	}
	x := NewWindows(NewIndex(idx), P, K)
	windows := NewSparse(P, K)
	w, wt := make([]float32, C*K), make([]float32, K*C)
	r.fill(w, 0)
	TransposeGo(wt, w, C, K)
	out := make([]float32, P*K)
	dy := make([]float32, C*P)
	r.fill(dy, 84)
	chans := NewSparse(P, C)
	col := make([]float32, K*P)
	byRow := make([]int32, K*P) // the same map, row-major [K × P], as a dense convolution gathers
	for p := 0; p < P; p++ {
		for k := 0; k < K; k++ {
			byRow[k*P+p] = idx[p*K+k]
		}
	}
	dense := NewIndex(byRow)
	b.Run("gather", func(b *testing.B) {
		for b.Loop() {
			windows.SetGather(img, x)
		}
	})
	windows.SetGather(img, x)
	b.Run("forward", func(b *testing.B) {
		for b.Loop() {
			MatMulAddSparse(windows, wt, out, C, true)
		}
	})
	b.Run("gather-dense", func(b *testing.B) {
		for b.Loop() {
			GatherIdx(col, img, dense)
		}
	})
	b.Run("forward-dense", func(b *testing.B) {
		for b.Loop() {
			MatMulAdd(w, col, out, C, K, P)
		}
	})
	b.Run("transpose", func(b *testing.B) {
		for b.Loop() {
			chans.SetTranspose(dy)
		}
	})
	chans.SetTranspose(dy)
	b.Run("backward", func(b *testing.B) {
		for b.Loop() {
			MatMulAddSparse(chans, w, out, K, true)
		}
	})
	b.Run("backward-dense", func(b *testing.B) {
		for b.Loop() {
			MatMulAdd(wt, dy, col, K, C, P)
		}
	})
}
