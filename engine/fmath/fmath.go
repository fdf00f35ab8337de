// Package fmath holds the elementary functions the engine needs, written in plain Go so that they give the
// same bits on every platform.
//
// The standard library's math.Exp and math.Log use assembly on amd64 and pure Go elsewhere (WASM), and the
// two can differ in the last bit. The engine promises bit-identical results natively and in WASM, so it uses
// these instead: the classic FreeBSD msun algorithms (range reduction, then a minimax polynomial), accurate to
// below 1 ulp in float64, which is far finer than the float32 the engine computes in.
package fmath

import "math"

const (
	ln2Hi     = 6.93147180369123816490e-01
	ln2Lo     = 1.90821492927058770002e-10
	log2e     = 1.44269504088896338700e+00
	overflow  = 7.09782712893383973096e+02
	underflow = -7.45133219101941108420e+02
	nearZero  = 1.0 / (1 << 28)
)

// Exp returns e**x. Exp(+Inf) = +Inf, Exp(-Inf) = 0, Exp(NaN) = NaN.
func Exp(x float64) float64 {
	switch {
	case x != x || x > overflow:
		return x + math.Inf(1) // NaN stays NaN
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	var k int
	if x < 0 {
		k = int(log2e*x - 0.5)
	} else {
		k = int(log2e*x + 0.5)
	}
	hi := x - float64(k)*ln2Hi
	lo := float64(k) * ln2Lo
	const (
		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	r := hi - lo
	t := r * r
	c := r - t*(p1+t*(p2+t*(p3+t*(p4+t*p5))))
	y := 1 - ((lo - (r*c)/(2-c)) - hi)
	if k >= -1021 && k <= 1023 {
		return y * math.Float64frombits(uint64(k+1023)<<52) // exact: y·2^k with 2^k built directly
	}
	return math.Ldexp(y, k)
}

// ExpTo sets dst[i] = Exp(src[i]) for i < len(src): the same bits as Exp, computed with Exp's steps written out
// in the loop (no call per element), so that the processor overlaps consecutive elements. dst must be at least
// as long as src.
func ExpTo(dst, src []float64) {
	const (
		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	dst = dst[:len(src)]
	for i, x := range src {
		// Exp's special cases (NaN, overflow, underflow, |x| < 2^-28) go to Exp itself.
		if !(x >= underflow && x <= overflow) || (-nearZero < x && x < nearZero) {
			dst[i] = Exp(x)
			continue
		}
		var k int
		if x < 0 {
			k = int(log2e*x - 0.5)
		} else {
			k = int(log2e*x + 0.5)
		}
		hi := x - float64(k)*ln2Hi
		lo := float64(k) * ln2Lo
		r := hi - lo
		t := r * r
		c := r - t*(p1+t*(p2+t*(p3+t*(p4+t*p5))))
		y := 1 - ((lo - (r*c)/(2-c)) - hi)
		if k >= -1021 && k <= 1023 {
			dst[i] = y * math.Float64frombits(uint64(k+1023)<<52)
		} else {
			dst[i] = math.Ldexp(y, k)
		}
	}
}

// Log returns the natural logarithm of x. Log(0) = -Inf, Log(x < 0) = NaN, Log(+Inf) = +Inf.
func Log(x float64) float64 {
	switch {
	case x != x || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	const (
		l1 = 6.666666666666735130e-01
		l2 = 3.999999999940941908e-01
		l3 = 2.857142874366239149e-01
		l4 = 2.222219843214978396e-01
		l5 = 1.818357216161805012e-01
		l6 = 1.531383769920937332e-01
		l7 = 1.479819860511658591e-01
	)
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * (l1 + s4*(l3+s4*(l5+s4*l7)))
	t2 := s4 * (l2 + s4*(l4+s4*l6))
	hfsq := 0.5 * f * f
	return k*ln2Hi - ((hfsq - (s*(hfsq+t1+t2) + k*ln2Lo)) - f)
}

// Exp32 is Exp for float32 arguments, rounded once to float32.
func Exp32(x float32) float32 { return float32(Exp(float64(x))) }

// Log32 is Log for float32 arguments, rounded once to float32.
func Log32(x float32) float32 { return float32(Log(float64(x))) }

// Sigmoid32 returns 1/(1+e^-x) in float32, computed without overflow for large |x|.
func Sigmoid32(x float32) float32 {
	if x >= 0 {
		return float32(1 / (1 + Exp(-float64(x))))
	}
	e := Exp(float64(x))
	return float32(e / (1 + e))
}

// Softplus32 returns log(1+e^x) in float32, stable for large |x|.
func Softplus32(x float32) float32 {
	v := float64(x)
	if v > 0 {
		return float32(v + Log(1+Exp(-v)))
	}
	e := Exp(v)
	if e < 1e-8 {
		return float32(e) // log(1+e) = e - e²/2 + …, and e²/2 is below float32's resolution of e
	}
	return float32(Log(1 + e))
}
