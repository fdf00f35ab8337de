package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/deltaclue/deltaclue/engine/fmath"
)

// specialBits are values where a rectifier or a mask can go wrong: both zeros, both infinities, NaNs of both
// signs and several payloads, the smallest subnormals and normals, ±1.
var specialBits = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001,
	0x7fffffff, 0xffffffff, 1, 0x80000001, 0x00800000, 0x80800000, 0x3f800000, 0xbf800000}

func randomFloats(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		if r.IntN(3) == 0 {
			out[i] = math.Float32frombits(specialBits[r.IntN(len(specialBits))])
		} else {
			out[i] = math.Float32frombits(r.Uint32())
		}
	}
	return out
}

// TestReluRowsBitForBit: ReluRows (the SIMD module's relu_rows in a wasmsimd build) and ReluRowsGo give every
// bit of `if v <= 0 { v = 0 }` and of the columns' OR, over random bits and every special value, for shapes
// with and without a tail of fewer than four columns, in place too; nothing past the rows is touched.
func TestReluRowsBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		rows, w := r.IntN(9), r.IntN(23)
		in := randomFloats(r, rows*w+3)
		acc0 := make([]uint32, w+2)
		for j := range acc0 {
			acc0[j] = r.Uint32() & 0x00ff00ff
		}
		want, wantAcc := make([]uint32, rows*w), append([]uint32(nil), acc0...)
		for i := 0; i < rows; i++ {
			for j := 0; j < w; j++ {
				v := in[i*w+j]
				if v <= 0 {
					v = 0
				}
				want[i*w+j] = math.Float32bits(v)
				wantAcc[j] |= math.Float32bits(v)
			}
		}
		for _, f := range []struct {
			name string
			fn   func(in, dst []float32, acc []uint32, rows, w int)
		}{{"ReluRows", ReluRows}, {"ReluRowsGo", ReluRowsGo}} {
			for _, inPlace := range []bool{false, true} {
				src := append([]float32(nil), in...)
				dst := make([]float32, rows*w+3)
				for k := range dst {
					dst[k] = 7
				}
				if inPlace {
					dst = src
				}
				acc := append([]uint32(nil), acc0...)
				f.fn(src, dst, acc, rows, w)
				for k := 0; k < rows*w; k++ {
					if got := math.Float32bits(dst[k]); got != want[k] {
						t.Fatalf("%s %d×%d (in place %v): element %d of %#08x is %#08x, want %#08x", f.name, rows, w, inPlace, k, math.Float32bits(in[k]), got, want[k])
					}
				}
				for k := rows * w; k < len(dst); k++ {
					if !inPlace && dst[k] != 7 {
						t.Fatalf("%s wrote past the rows (element %d)", f.name, k)
					}
				}
				for j := range acc {
					if acc[j] != wantAcc[j] {
						t.Fatalf("%s %d×%d: acc[%d] is %#08x, want %#08x", f.name, rows, w, j, acc[j], wantAcc[j])
					}
				}
			}
		}
	}
}

// TestMaskPositiveBitForBit: MaskPositive (the SIMD module's mask_positive in a wasmsimd build) and
// MaskPositiveGo give d's bits where h > 0 and +0 elsewhere, a NaN h included, in place too.
func TestMaskPositiveBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := r.IntN(40)
		d, h := randomFloats(r, n+2), randomFloats(r, n+2)
		want := make([]uint32, n)
		for k := range want {
			if h[k] > 0 {
				want[k] = math.Float32bits(d[k])
			}
		}
		for _, f := range []struct {
			name string
			fn   func(dx, d, h []float32)
		}{{"MaskPositive", MaskPositive}, {"MaskPositiveGo", MaskPositiveGo}} {
			for _, inPlace := range []bool{false, true} {
				src := append([]float32(nil), d...)
				dx := make([]float32, n+2)
				dx[n], dx[n+1] = 7, 7
				if inPlace {
					dx = src
				}
				f.fn(dx[:n], src, h)
				for k := 0; k < n; k++ {
					if got := math.Float32bits(dx[k]); got != want[k] {
						t.Fatalf("%s n=%d (in place %v): element %d is %#08x, want %#08x (d %#08x, h %#08x)", f.name, n, inPlace, k, got, want[k], math.Float32bits(d[k]), math.Float32bits(h[k]))
					}
				}
				if !inPlace && (dx[n] != 7 || dx[n+1] != 7) {
					t.Fatalf("%s wrote past n", f.name)
				}
			}
		}
	}
}

// TestAddWherePositiveBitForBit: AddWherePositive (the SIMD module's add_positive in a wasmsimd build) and
// AddWherePositiveGo add d to dx where h > 0 and leave dx's bits alone elsewhere (a -0 and a NaN h included),
// the float32 sum as Go's (any NaN for a NaN sum), never past n.
func TestAddWherePositiveBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		n := r.IntN(40)
		d, h, start := randomFloats(r, n+2), randomFloats(r, n+2), randomFloats(r, n+2)
		want := make([]uint32, n)
		for k := range want {
			want[k] = math.Float32bits(start[k])
			if h[k] > 0 {
				want[k] = math.Float32bits(start[k] + d[k])
			}
		}
		for _, f := range []struct {
			name string
			fn   func(dx, d, h []float32)
		}{{"AddWherePositive", AddWherePositive}, {"AddWherePositiveGo", AddWherePositiveGo}} {
			dx := append([]float32(nil), start...)
			dx[n], dx[n+1] = 7, 7
			f.fn(dx[:n], d, h)
			for k := 0; k < n; k++ {
				got := math.Float32bits(dx[k])
				if w := math.Float32frombits(want[k]); w != w && dx[k] != dx[k] {
					continue // a NaN sum: which NaN's bits it carries is the hardware's, not ours
				}
				if got != want[k] {
					t.Fatalf("%s n=%d: element %d is %#08x, want %#08x (dx %#08x, d %#08x, h %#08x)", f.name, n, k, got, want[k], math.Float32bits(start[k]), math.Float32bits(d[k]), math.Float32bits(h[k]))
				}
			}
			if dx[n] != 7 || dx[n+1] != 7 {
				t.Fatalf("%s wrote past n", f.name)
			}
		}
	}
}

// TestAddToBitForBit: AddTo (the SIMD module's add_to in a wasmsimd build) and AddToGo set dst to a + b, the
// float32 sum as Go's (any NaN for a NaN sum), in place over a or b too, never past len(dst).
func TestAddToBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 400; trial++ {
		n := r.IntN(70)
		a, b := randomFloats(r, n+2), randomFloats(r, n+2)
		want := make([]float32, n)
		for k := range want {
			want[k] = a[k] + b[k]
		}
		for _, f := range []struct {
			name string
			fn   func(dst, a, b []float32)
		}{{"AddTo", AddTo}, {"AddToGo", AddToGo}} {
			for _, into := range []string{"dst", "a", "b"} {
				dst := make([]float32, n+2)
				x, y := append([]float32(nil), a...), append([]float32(nil), b...)
				switch into {
				case "a":
					dst = x
				case "b":
					dst = y
				}
				dst[n], dst[n+1] = 7, 7
				f.fn(dst[:n], x, y)
				for k := 0; k < n; k++ {
					if want[k] != want[k] && dst[k] != dst[k] {
						continue // a NaN sum: which NaN's bits it carries is the hardware's, not ours
					}
					if got, w := math.Float32bits(dst[k]), math.Float32bits(want[k]); got != w {
						t.Fatalf("%s into %s, n=%d: element %d is %#08x, want %#08x", f.name, into, n, k, got, w)
					}
				}
				if dst[n] != 7 || dst[n+1] != 7 {
					t.Fatalf("%s into %s wrote past n", f.name, into)
				}
			}
		}
	}
}

// sameOrNaN reports whether got and want have the same bits, or are both NaNs (whose bits are the engine's).
func sameOrNaN(got, want float32) bool {
	return math.Float32bits(got) == math.Float32bits(want) || got != got && want != want
}

// TestL1BitForBit: L1Rows and L1Grad (the SIMD module's l1_rows and l1_grad in a wasmsimd build) against the
// loops of the engine's l1Op (L1RowsGo, L1GradGo): odd and even row counts, every column tail, one target for all
// rows and one a row, equal values, ±0, NaN and random bits; nothing written past the rows.
func TestL1BitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 300; trial++ {
		rows, cols := r.IntN(7), r.IntN(40)
		if trial%30 == 0 {
			cols = 784
		}
		stride := 0
		if r.IntN(2) == 0 {
			stride = cols
		}
		x := randomFloats(r, rows*cols+3)
		tg := randomFloats(r, max(0, rows-1)*stride+cols+3)
		for j := 0; j < rows*cols; j++ { // some equal pairs, ±0 against ∓0, and plain numbers
			switch r.IntN(6) {
			case 0:
				x[j] = tg[(j/max(cols, 1))*stride+j%max(cols, 1)]
			case 1:
				x[j] = float32(r.NormFloat64())
			}
		}
		for j := range tg {
			if r.IntN(3) == 0 {
				tg[j] = float32(r.NormFloat64())
			}
		}
		want, got := make([]float32, rows+2), make([]float32, rows+2)
		want[rows], want[rows+1], got[rows], got[rows+1] = 7, 7, 7, 7
		L1RowsGo(want, x, tg, rows, cols, stride)
		L1Rows(got, x, tg, rows, cols, stride)
		for i := range got {
			if !sameOrNaN(got[i], want[i]) {
				t.Fatalf("L1Rows rows=%d cols=%d stride=%d: out[%d] = %#08x, want %#08x", rows, cols, stride, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
		g := randomFloats(r, rows)
		for i := range g {
			if r.IntN(2) == 0 {
				g[i] = float32(r.NormFloat64())
			}
		}
		dx0 := randomFloats(r, rows*cols+3)
		for j := range dx0 {
			if r.IntN(2) == 0 {
				dx0[j] = float32(r.NormFloat64())
			}
		}
		wantDx, gotDx := append([]float32(nil), dx0...), append([]float32(nil), dx0...)
		L1GradGo(wantDx, x, tg, g, rows, cols, stride)
		L1Grad(gotDx, x, tg, g, rows, cols, stride)
		for i := range gotDx {
			if !sameOrNaN(gotDx[i], wantDx[i]) {
				t.Fatalf("L1Grad rows=%d cols=%d stride=%d: dx[%d] = %#08x, want %#08x", rows, cols, stride, i, math.Float32bits(gotDx[i]), math.Float32bits(wantDx[i]))
			}
		}
	}
}

// TestPlanesMeanAddBitForBit: MeanPlanes and AddPlanes (the SIMD module's mean_planes and add_planes in a
// wasmsimd build) against their Go loops, the global average pool's: plane counts around the blocks of four,
// sizes with every tail, ±0 (a plane of -0 sums to +0), NaN and random bits; nothing written past the planes.
func TestPlanesMeanAddBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 300; trial++ {
		planes, size := r.IntN(11), r.IntN(60)
		if trial%25 == 0 {
			planes, size = 1600, 49
		}
		n := float32(max(size, 1))
		if r.IntN(4) == 0 {
			n = float32(r.NormFloat64())
		}
		src := randomFloats(r, planes*size+3)
		for j := range src {
			switch r.IntN(5) {
			case 0:
				src[j] = float32(math.Copysign(0, -1))
			case 1, 2:
				src[j] = float32(r.NormFloat64())
			}
		}
		if planes > 0 && size > 0 && trial%3 == 0 { // a plane of -0 only
			for j := 0; j < size; j++ {
				src[j] = float32(math.Copysign(0, -1))
			}
		}
		want, got := make([]float32, planes+2), make([]float32, planes+2)
		want[planes], want[planes+1], got[planes], got[planes+1] = 7, 7, 7, 7
		MeanPlanesGo(want[:planes], src, size, n)
		MeanPlanes(got[:planes], src, size, n)
		for i := range got {
			if !sameOrNaN(got[i], want[i]) {
				t.Fatalf("MeanPlanes planes=%d size=%d: dst[%d] = %#08x, want %#08x", planes, size, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
		dy := randomFloats(r, planes)
		for j := range dy {
			if r.IntN(2) == 0 {
				dy[j] = float32(r.NormFloat64())
			}
		}
		dst0 := randomFloats(r, planes*size+3)
		for j := range dst0 {
			if r.IntN(2) == 0 {
				dst0[j] = float32(r.NormFloat64())
			}
		}
		wantD, gotD := append([]float32(nil), dst0...), append([]float32(nil), dst0...)
		AddPlanesGo(wantD, dy, size, n)
		AddPlanes(gotD, dy, size, n)
		for i := range gotD {
			if !sameOrNaN(gotD[i], wantD[i]) {
				t.Fatalf("AddPlanes planes=%d size=%d: dst[%d] = %#08x, want %#08x", planes, size, i, math.Float32bits(gotD[i]), math.Float32bits(wantD[i]))
			}
		}
	}
}

// TestReluBitForBit: Relu (the SIMD module's relu in a wasmsimd build) gives ReluBits of every value, over random
// bits and every special value, every tail, in place too; nothing past len(in) is touched.
func TestReluBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for trial := 0; trial < 300; trial++ {
		n := r.IntN(70)
		in := randomFloats(r, n+2)
		for _, inPlace := range []bool{false, true} {
			for _, f := range []struct {
				name string
				fn   func(dst, in []float32)
			}{{"Relu", Relu}, {"ReluGo", ReluGo}} {
				src := append([]float32(nil), in...)
				dst := make([]float32, n+2)
				if inPlace {
					dst = src
				}
				dst[n], dst[n+1] = 7, 7
				f.fn(dst, src[:n])
				for k := 0; k < n; k++ {
					if got, want := math.Float32bits(dst[k]), ReluBits(math.Float32bits(in[k])); got != want {
						t.Fatalf("%s n=%d in place %v: element %d is %#08x, want %#08x", f.name, n, inPlace, k, got, want)
					}
				}
				if dst[n] != 7 || dst[n+1] != 7 {
					t.Fatalf("%s wrote past n", f.name)
				}
			}
		}
	}
}

// TestExpToBitForBit: ExpTo (the SIMD module's exp_to in a wasmsimd build, AVX-512 natively) gives fmath.Exp's bits for every value
// when it reports it did, and does on slices of the predictive's range (x ≤ 0, exact zeros among them) and of
// both signs away from Exp's other cases; values near those cases' edges (k = −1021, ±2^−28, overflow), ±0, NaN
// and ±Inf either match or make it report that it did not.
func TestExpToBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	edges := []float64{0, math.Copysign(0, -1), 1.0 / (1 << 28), -1.0 / (1 << 28), 1.0 / (1 << 29), -1.0 / (1 << 30),
		math.Nextafter(1.0/(1<<28), 0), math.Nextafter(-1.0/(1<<28), 0), -707.5, -707.7, -707.8, -708.4, -745.13, -745.2,
		709.78, 709.7827128933840, 709.79, 700, math.NaN(), math.Inf(1), math.Inf(-1), 1e-300, -1e-300}
	did := 0
	probe := []float64{-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16}
	loop := ExpTo(make([]float64, len(probe)), probe) // (a build whose ExpTo runs a loop)
	if loop != (SIMD || Native == "avx512") {
		t.Fatalf("ExpTo ran %v in a build whose kernel is %s (SIMD module %v)", loop, Native, SIMD)
	}
	for trial := 0; trial < 400; trial++ {
		n := r.IntN(40)
		if trial%20 == 0 {
			n = 200
		}
		src := make([]float64, n)
		for i := range src {
			switch {
			case trial%4 == 0: // the predictive's: x − max, x − lse
				src[i] = -math.Abs(r.NormFloat64() * math.Pow(2, float64(r.IntN(12)-4)))
				if r.IntN(8) == 0 {
					src[i] = 0
				}
			case trial%4 == 1:
				src[i] = r.NormFloat64() * math.Pow(2, float64(r.IntN(14)-4))
			case trial%4 == 2:
				src[i] = (r.Float64()*2 - 1) * 760
			default:
				src[i] = edges[r.IntN(len(edges))]
			}
		}
		dst := make([]float64, n+1)
		dst[n] = 7
		ok := ExpTo(dst[:n], src)
		if dst[n] != 7 {
			t.Fatal("ExpTo wrote past n")
		}
		if !ok {
			if loop && trial%4 <= 1 && !hasExpSpecial(src) {
				t.Fatalf("trial %d: ExpTo declined a slice without Exp's special cases: %v", trial, src)
			}
			continue
		}
		did++
		for i, x := range src {
			want := fmath.Exp(x)
			if math.Float64bits(dst[i]) != math.Float64bits(want) && !(dst[i] != dst[i] && want != want) {
				t.Fatalf("trial %d: Exp(%v) = %v (%#x), want %v (%#x)", trial, x, dst[i], math.Float64bits(dst[i]), want, math.Float64bits(want))
			}
		}
	}
	if loop && did == 0 {
		t.Fatal("ExpTo never ran")
	}
}

// hasExpSpecial reports whether some x of xs takes another path of fmath.Exp than its polynomial with 2^k built
// directly or 1 + x.
func hasExpSpecial(xs []float64) bool {
	for _, x := range xs {
		if !(x >= -7.45133219101941108420e+02 && x <= 7.09782712893383973096e+02) || x < -707.6 || x > 709.0 {
			return true
		}
	}
	return false
}

// TestSetWherePositiveBitForBit: SetWherePositive (the SIMD module's set_positive in a wasmsimd build) and
// SetWherePositiveGo give AddWherePositiveGo's bits onto a dx of +0 (a -0 in d made +0), whatever dx held, over
// random bits, ±0 and NaN in d and h, every tail; nothing past len(dx) is touched.
func TestSetWherePositiveBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for trial := 0; trial < 300; trial++ {
		n := r.IntN(40)
		d, h, junk := randomFloats(r, n+2), randomFloats(r, n+2), randomFloats(r, n+2)
		want := make([]float32, n)
		AddWherePositiveGo(want, d, h)
		for _, f := range []struct {
			name string
			fn   func(dx, d, h []float32)
		}{{"SetWherePositive", SetWherePositive}, {"SetWherePositiveGo", SetWherePositiveGo}} {
			dx := append([]float32(nil), junk...)
			dx[n], dx[n+1] = 7, 7
			f.fn(dx[:n], d, h)
			for k := 0; k < n; k++ {
				if !sameOrNaN(dx[k], want[k]) {
					t.Fatalf("%s n=%d: element %d is %#08x, want %#08x (d %#08x, h %#08x)", f.name, n, k, math.Float32bits(dx[k]), math.Float32bits(want[k]), math.Float32bits(d[k]), math.Float32bits(h[k]))
				}
			}
			if dx[n] != 7 || dx[n+1] != 7 {
				t.Fatalf("%s wrote past n", f.name)
			}
		}
	}
}

// TestPackColsBitForBit: PackCols (the SIMD module's pack_cols in a wasmsimd build) and PackColsGo copy the
// chosen columns of every row, every bit (NaN payloads, -0) as it was, for widths with and without a tail of
// fewer than four columns, into another slice and in place with increasing columns; nothing past the packed
// rows is touched. Columns outside a row panic.
func TestPackColsBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 400; trial++ {
		rows, w := r.IntN(9), 1+r.IntN(70)
		src := randomFloats(r, rows*w+3)
		var idx []int32
		for j := 0; j < w; j++ {
			if r.IntN(3) > 0 {
				idx = append(idx, int32(j))
			}
		}
		n := len(idx)
		want := make([]uint32, rows*n)
		for i := 0; i < rows; i++ {
			for t, j := range idx {
				want[i*n+t] = math.Float32bits(src[i*w+int(j)])
			}
		}
		shuffled := append([]int32(nil), idx...)
		r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		wantShuffled := make([]uint32, rows*n)
		for i := 0; i < rows; i++ {
			for t, j := range shuffled {
				wantShuffled[i*n+t] = math.Float32bits(src[i*w+int(j)])
			}
		}
		for _, f := range []struct {
			name string
			fn   func(dst, src []float32, rows, w int, idx []int32)
		}{{"PackCols", PackCols}, {"PackColsGo", PackColsGo}} {
			check := func(how string, got []float32, want []uint32, past []float32) {
				t.Helper()
				for k, u := range want {
					if math.Float32bits(got[k]) != u {
						t.Fatalf("%s %s rows %d w %d n %d: value %d is %#x, want %#x", f.name, how, rows, w, n, k, math.Float32bits(got[k]), u)
					}
				}
				for k, v := range past {
					if math.Float32bits(v) != math.Float32bits(got[len(want)+k]) {
						t.Fatalf("%s %s rows %d w %d n %d: wrote past the packed rows", f.name, how, rows, w, n)
					}
				}
			}
			dst := make([]float32, rows*n+3)
			for k := range dst {
				dst[k] = 7
			}
			f.fn(dst, src, rows, w, idx)
			check("into another slice", dst, want, []float32{7, 7, 7})
			f.fn(dst, src, rows, w, shuffled)
			check("in any order of columns", dst, wantShuffled, []float32{7, 7, 7})
			in := append([]float32(nil), src...)
			f.fn(in, in, rows, w, idx)
			check("in place", in, want, nil)
			if rows > 0 {
				func() {
					defer func() {
						if recover() == nil {
							t.Fatalf("%s: a column outside the row did not panic", f.name)
						}
					}()
					f.fn(dst, src, rows, w, append(append([]int32(nil), idx...), int32(w)))
				}()
			}
		}
	}
}
