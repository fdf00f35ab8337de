package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTransposeBitForBit: Transpose (the SIMD module's transpose in a wasmsimd build) and TransposeGo copy every
// bit of src into its transpose, NaN payloads included, for shapes with and without a tail of fewer than four
// rows, and touch nothing past rows*cols.
func TestTransposeBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	shapes := [][2]int{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {4, 4}, {784, 16}, {16, 784}, {37, 70}}
	for trial := 0; trial < 200; trial++ {
		shapes = append(shapes, [2]int{r.IntN(13), r.IntN(13)})
	}
	for _, sh := range shapes {
		rows, cols := sh[0], sh[1]
		src := randomFloats(r, rows*cols+2)
		for _, f := range []struct {
			name string
			fn   func(dst, src []float32, rows, cols int)
		}{{"Transpose", Transpose}, {"TransposeGo", TransposeGo}} {
			dst := make([]float32, rows*cols+2)
			dst[rows*cols], dst[rows*cols+1] = 7, 7
			f.fn(dst, src, rows, cols)
			for i := 0; i < rows; i++ {
				for j := 0; j < cols; j++ {
					if got, want := math.Float32bits(dst[j*rows+i]), math.Float32bits(src[i*cols+j]); got != want {
						t.Fatalf("%s %d×%d: [%d][%d] is %#08x, want %#08x", f.name, rows, cols, j, i, got, want)
					}
				}
			}
			if dst[rows*cols] != 7 || dst[rows*cols+1] != 7 {
				t.Fatalf("%s %d×%d wrote past the matrix", f.name, rows, cols)
			}
		}
	}
}

// TestScaleRowsBitForBit: ScaleRows (the SIMD module's scale_rows in a wasmsimd build) and ScaleRowsGo give
// every bit of m[i]·src[i][j] as Go's float32 multiplication rounds it, over random bits, infinities, zeros of
// both signs and subnormals, in place too; a NaN product only has to be a NaN. Nothing past the rows is touched.
func TestScaleRowsBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	notNaN := func(n int) []float32 {
		v := randomFloats(r, n)
		for k := range v {
			for v[k] != v[k] {
				v[k] = randomFloats(r, 1)[0]
			}
		}
		return v
	}
	for trial := 0; trial < 300; trial++ {
		rows, cols := r.IntN(9), r.IntN(23)
		src, m := notNaN(rows*cols+2), notNaN(rows)
		if trial%3 == 0 { // a dropout mask: 0 or 1/(1−p)
			for k := range m {
				m[k] = float32(r.IntN(2)) / 0.75
			}
		}
		for _, f := range []struct {
			name string
			fn   func(dst, src, m []float32, rows, cols int)
		}{{"ScaleRows", ScaleRows}, {"ScaleRowsGo", ScaleRowsGo}} {
			for _, inPlace := range []bool{false, true} {
				in := append([]float32(nil), src...)
				dst := make([]float32, rows*cols+2)
				dst[rows*cols], dst[rows*cols+1] = 7, 7
				if inPlace {
					dst = in
				}
				f.fn(dst, in, m, rows, cols)
				for i := 0; i < rows; i++ {
					for j := 0; j < cols; j++ {
						want := m[i] * src[i*cols+j]
						got := dst[i*cols+j]
						if want != want {
							if got == got {
								t.Fatalf("%s %d×%d (in place %v): [%d][%d] is %v, want a NaN", f.name, rows, cols, inPlace, i, j, got)
							}
							continue
						}
						if math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("%s %d×%d (in place %v): [%d][%d] is %#08x, want %#08x", f.name, rows, cols, inPlace, i, j, math.Float32bits(got), math.Float32bits(want))
						}
					}
				}
				if !inPlace && (dst[rows*cols] != 7 || dst[rows*cols+1] != 7) {
					t.Fatalf("%s %d×%d wrote past the rows", f.name, rows, cols)
				}
			}
		}
	}
}
