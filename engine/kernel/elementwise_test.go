package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
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
