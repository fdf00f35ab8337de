package fmath_test

import (
	"math"
	"testing"

	. "github.com/deltaclue/deltaclue/engine/fmath"
	"github.com/deltaclue/deltaclue/engine/rng"
)

// ulps is the distance between a and b in units in the last place of float64.
func ulps(a, b float64) uint64 {
	ia, ib := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if ia > ib {
		return uint64(ia - ib)
	}
	return uint64(ib - ia)
}

func TestExpLogAgreeWithMath(t *testing.T) {
	r := rng.New(1)
	var worstExp, worstLog uint64
	for i := 0; i < 200000; i++ {
		x := (r.Float64()*2 - 1) * 700
		if d := ulps(Exp(x), math.Exp(x)); d > worstExp {
			worstExp = d
		}
		y := math.Exp((r.Float64()*2 - 1) * 700)
		if d := ulps(Log(y), math.Log(y)); d > worstLog {
			worstLog = d
		}
	}
	// Both are < 1 ulp from the true value, so they differ from math's by at most 1-2 ulps.
	if worstExp > 2 || worstLog > 2 {
		t.Fatalf("worst disagreement with package math: exp %d ulps, log %d ulps", worstExp, worstLog)
	}
}

func TestSpecialValues(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name      string
		got, want float64
	}{
		{"exp(0)", Exp(0), 1},
		{"exp(1)", Exp(1), math.E},
		{"exp(-inf)", Exp(-inf), 0},
		{"exp(+inf)", Exp(inf), inf},
		{"exp(800)", Exp(800), inf},
		{"exp(-800)", Exp(-800), 0},
		{"log(1)", Log(1), 0},
		{"log(e)", Log(math.E), 1},
		{"log(0)", Log(0), -inf},
		{"log(+inf)", Log(inf), inf},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, v := range []float64{Exp(math.NaN()), Log(math.NaN()), Log(-1)} {
		if !math.IsNaN(v) {
			t.Errorf("want NaN, got %v", v)
		}
	}
}

func TestSigmoidSoftplusStable(t *testing.T) {
	for _, x := range []float32{-200, -30, -1, 0, 1, 30, 200} {
		s := Sigmoid32(x)
		want := 1 / (1 + math.Exp(-float64(x)))
		if math.Abs(float64(s)-want) > 1e-7*math.Max(want, 1e-30) && !(want < 1e-38 && s == 0) {
			t.Errorf("Sigmoid32(%v) = %v, want %v", x, s, want)
		}
		sp := Softplus32(x)
		wantSP := math.Log1p(math.Exp(float64(x)))
		if math.IsInf(wantSP, 0) {
			wantSP = float64(x)
		}
		if math.Abs(float64(sp)-wantSP) > 1e-6*math.Max(math.Abs(wantSP), 1e-30) && !(wantSP < 1e-40) {
			t.Errorf("Softplus32(%v) = %v, want %v", x, sp, wantSP)
		}
	}
}

// ExpTo is Exp on a slice: the same bits for every input, special values and range edges included.
func TestExpToIsExp(t *testing.T) {
	r := rng.New(3)
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 1e-9, -1e-9, 1.0 / (1 << 28), -1.0 / (1 << 28), 1.0/(1<<28) + 1e-25,
		709.782712893383973096, 709.79, -745.13321910194110842, -745.14, -708.4, -708.3, -720, 700,
		math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, math.MaxFloat64}
	for i := 0; i < 300000; i++ {
		switch i % 4 {
		case 0:
			xs = append(xs, (r.Float64()*2-1)*750)
		case 1:
			xs = append(xs, (r.Float64()*2-1)*30)
		case 2:
			xs = append(xs, -r.Float64()*110) // the sigmoid's e^{-|x|} of float32 logits
		default:
			xs = append(xs, float64(float32(r.Norm()*5)))
		}
	}
	got := make([]float64, len(xs))
	ExpTo(got, xs)
	for i, x := range xs {
		if want := Exp(x); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("ExpTo(%v) = %v, Exp = %v", x, got[i], want)
		}
	}
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = -float64(i%200) * 0.1
	}
	out := make([]float64, len(xs))
	b.Run("Exp", func(b *testing.B) {
		for range b.N {
			for i, x := range xs {
				out[i] = Exp(x)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exp")
	})
	b.Run("ExpTo", func(b *testing.B) {
		for range b.N {
			ExpTo(out, xs)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exp")
	})
}
