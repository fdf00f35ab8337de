package fmath

import (
	"math"
	"testing"
)

// TestFrexpAsMath: frexp is math.Frexp, bit for bit, on positive normal and subnormal numbers.
func TestFrexpAsMath(t *testing.T) {
	xs := []float64{math.SmallestNonzeroFloat64, 1e-310, 2.2250738585072014e-308, 0.5, 1, math.Sqrt2 / 2, 3, 1e300, math.MaxFloat64}
	for i := 0; i < 100000; i++ {
		xs = append(xs, math.Float64frombits(uint64(i)*0x9E3779B97F4A7C15>>1))
	}
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 1) {
			continue
		}
		f, e := frexp(x)
		g, d := math.Frexp(x)
		if math.Float64bits(f) != math.Float64bits(g) || e != d {
			t.Fatalf("frexp(%v) = %v, %d; math.Frexp %v, %d", x, f, e, g, d)
		}
	}
}
