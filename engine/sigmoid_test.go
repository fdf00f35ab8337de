package engine

import (
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/engine/fmath"
	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/engine/rng"
)

// sigmoidRef is the sigmoid's forward pass as plainly as it is defined: e = e^{−|v|} (fmath.Exp, whose bits
// fmath.ExpTo gives), σ = (v < 0 ? e : 1)/(1 + e) in float64, each rounded to float32.
func sigmoidRef(v float32) (out, e float32) {
	ei := fmath.Exp(-math.Abs(float64(v)))
	num := 1.0
	if v < 0 {
		num = ei
	}
	return float32(num / (1 + ei)), float32(ei)
}

// TestSigmoidKeepsBits: the sigmoid's forward pass gives the bits of its definition (sigmoidRef) through the SIMD
// module (kernel.Sigmoid, in a wasmsimd build) and through its Go loop, on values from every ordinary range of
// fmath.Exp's argument, odd and even counts; a slice with one of Exp's special cases (±0, tiny values, |x| past
// where it scales by Ldexp or underflows, NaN, ±Inf) the module refuses, and the Go loop computes.
func TestSigmoidKeepsBits(t *testing.T) {
	r := rng.New(12)
	special := []float32{0, float32(math.Copysign(0, -1)), 1e-9, -1e-9, 3e-9, -4e-9, 709, -709, 745, -746, 1e30,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.SmallestNonzeroFloat32}
	g := NewGraph(1)
	in := g.Input(80, false)
	sig := g.Sigmoid(in)
	done := 0
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(70)
		x := make([]float32, n)
		for i := range x {
			switch r.IntN(6) {
			case 0:
				x[i] = float32(r.Norm() * 1e-3)
			case 1:
				x[i] = float32(max(-700, min(700, r.Norm()*100)))
			case 2:
				x[i] = float32(max(-700, min(700, r.Norm()*400)))
			default:
				x[i] = float32(r.Norm() * 4)
			}
		}
		withSpecial := trial%4 == 0
		if withSpecial {
			x[r.IntN(n)] = special[r.IntN(len(special))]
		}
		same := func(what string, out, e []float32) {
			for i, v := range x {
				wo, we := sigmoidRef(v)
				if math.IsNaN(float64(v)) && math.IsNaN(float64(out[i])) && math.IsNaN(float64(e[i])) {
					continue
				}
				if math.Float32bits(out[i]) != math.Float32bits(wo) || math.Float32bits(e[i]) != math.Float32bits(we) {
					t.Fatalf("trial %d, %s (kernel %s): σ(%v) = %v (e %v), want %v (e %v)", trial, what, kernel.Native, v, out[i], e[i], wo, we)
				}
			}
		}
		// The op, as the engine runs it (the module where it can, else its Go loop).
		g.SetBatch(1)
		in.Cols, sig.Cols = n, n
		copy(in.Data, x)
		g.ops[0].forward()
		same("the op", sig.Data[:n], g.ops[0].(*sigmoidOp).e[:n])
		// The module alone.
		out, e := make([]float32, n), make([]float32, n)
		if !kernel.Sigmoid(out, e, x) {
			if kernel.Native == "wasmsimd" && !withSpecial {
				t.Fatalf("trial %d: the SIMD module did not compute %v", trial, x)
			}
			continue
		}
		done++
		same("kernel.Sigmoid", out, e)
	}
	t.Logf("kernel %s: %d of 300 slices computed by kernel.Sigmoid", kernel.Native, done)
}
