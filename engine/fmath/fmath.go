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
	f1, ki := frexp(x)
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

// frexp is math.Frexp for a positive finite x: f in [½, 1) and e with x = f·2^e, read off the bits of a normal
// x directly (math.Frexp is a call that no compiler inlines, a fifth of Log's time in WebAssembly).
func frexp(x float64) (float64, int) {
	const mask, shift, bias = 0x7ff, 52, 1022
	b := math.Float64bits(x)
	e := int(b>>shift) & mask
	if e == 0 { // subnormal
		return math.Frexp(x)
	}
	return math.Float64frombits(b&^(mask<<shift) | bias<<shift), e - bias
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

// ---- the error function ----
//
// Erf and Erfc are FreeBSD msun's s_erf.c (as Go's math/erf.go has it), with fmath's Exp in place of the
// platform's, so they give the same bits everywhere: a rational approximation on [0, 0.84375) and on
// [0.84375, 1.25), and beyond erfc(x) = exp(−x² − 0.5625 + R(1/x²)/S(1/x²))/x. Every product that feeds an
// addition is rounded on its own (madd), so no compiler may fuse the two. Below 1 ulp from the true value
// (msun's bounds), so within a couple of ulps of math.Erf and math.Erfc.
//
// The original C code came with this notice:
//
// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunPro, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================

const (
	erx  = 8.45062911510467529297e-01 // 0.84506291151 rounded to float32: erf(1) ≈ erx + P/Q on [0.84375, 1.25)
	efx  = 1.28379167095512586316e-01 // 2/√π − 1
	efx8 = 1.02703333676410069053e+00 // 8·efx
	// erf(x) = x + x·P(x²)/Q(x²) on [0, 0.84375)
	pp0 = 1.28379167095512558561e-01
	pp1 = -3.25042107247001499370e-01
	pp2 = -2.84817495755985104766e-02
	pp3 = -5.77027029648944159157e-03
	pp4 = -2.37630166566501626084e-05
	qq1 = 3.97917223959155352819e-01
	qq2 = 6.50222499887672944485e-02
	qq3 = 5.08130628187576562776e-03
	qq4 = 1.32494738004321644526e-04
	qq5 = -3.96022827877536812320e-06
	// erf(1+s) = erx + P(s)/Q(s) on [0.84375, 1.25)
	pa0 = -2.36211856075265944077e-03
	pa1 = 4.14856118683748331666e-01
	pa2 = -3.72207876035701323847e-01
	pa3 = 3.18346619901161753674e-01
	pa4 = -1.10894694282396677476e-01
	pa5 = 3.54783043256182359371e-02
	pa6 = -2.16637559486879084300e-03
	qa1 = 1.06420880400844228286e-01
	qa2 = 5.40397917702171048937e-01
	qa3 = 7.18286544141962662868e-02
	qa4 = 1.26171219808761642112e-01
	qa5 = 1.36370839120290507362e-02
	qa6 = 1.19844998467991074170e-02
	// erfc on [1.25, 1/0.35)
	ra0 = -9.86494403484714822705e-03
	ra1 = -6.93858572707181764372e-01
	ra2 = -1.05586262253232909814e+01
	ra3 = -6.23753324503260060396e+01
	ra4 = -1.62396669462573470355e+02
	ra5 = -1.84605092906711035994e+02
	ra6 = -8.12874355063065934246e+01
	ra7 = -9.81432934416914548592e+00
	sa1 = 1.96512716674392571292e+01
	sa2 = 1.37657754143519042600e+02
	sa3 = 4.34565877475229228821e+02
	sa4 = 6.45387271733267880336e+02
	sa5 = 4.29008140027567833386e+02
	sa6 = 1.08635005541779435134e+02
	sa7 = 6.57024977031928170135e+00
	sa8 = -6.04244152148580987438e-02
	// erfc on [1/0.35, 28)
	rb0 = -9.86494292470009928597e-03
	rb1 = -7.99283237680523006574e-01
	rb2 = -1.77579549177547519889e+01
	rb3 = -1.60636384855821916062e+02
	rb4 = -6.37566443368389627722e+02
	rb5 = -1.02509513161107724954e+03
	rb6 = -4.83519191608651397019e+02
	sb1 = 3.03380607434824582924e+01
	sb2 = 3.25792512996573918826e+02
	sb3 = 1.53672958608443695994e+03
	sb4 = 3.19985821950859553908e+03
	sb5 = 2.55305040643316442583e+03
	sb6 = 4.74528541206955367215e+02
	sb7 = -2.24409524465858183362e+01
)

// madd returns a + z·b with the product rounded to float64 before the addition: the explicit conversion
// forbids fusing the two (which Go may do on some platforms, and not on others).
func madd(a, z, b float64) float64 { return a + float64(z*b) }

// erfSmallRatio is P(x²)/Q(x²) of erf(x) = x + x·P/Q for |x| < 0.84375.
func erfSmallRatio(x float64) float64 {
	z := x * x
	r := madd(pp0, z, madd(pp1, z, madd(pp2, z, madd(pp3, z, pp4))))
	s := madd(1, z, madd(qq1, z, madd(qq2, z, madd(qq3, z, madd(qq4, z, qq5)))))
	return r / s
}

// erfMidRatio is P(s)/Q(s) of erf(1+s) = erx + P/Q for 0.84375 ≤ 1+s < 1.25.
func erfMidRatio(s float64) float64 {
	p := madd(pa0, s, madd(pa1, s, madd(pa2, s, madd(pa3, s, madd(pa4, s, madd(pa5, s, pa6))))))
	q := madd(1, s, madd(qa1, s, madd(qa2, s, madd(qa3, s, madd(qa4, s, madd(qa5, s, qa6))))))
	return p / q
}

// erfcTail is erfc(x) for 1.25 ≤ x < 28: exp(−x² − 0.5625 + R/S)/x, with −x² split as −h² + (h−x)(h+x), h
// being x with its low 32 bits cleared, so that h² is exact.
func erfcTail(x float64) float64 {
	s := 1 / (x * x)
	var r, q float64
	if x < 1/0.35 {
		r = madd(ra0, s, madd(ra1, s, madd(ra2, s, madd(ra3, s, madd(ra4, s, madd(ra5, s, madd(ra6, s, ra7)))))))
		q = madd(1, s, madd(sa1, s, madd(sa2, s, madd(sa3, s, madd(sa4, s, madd(sa5, s, madd(sa6, s, madd(sa7, s, sa8))))))))
	} else {
		r = madd(rb0, s, madd(rb1, s, madd(rb2, s, madd(rb3, s, madd(rb4, s, madd(rb5, s, rb6))))))
		q = madd(1, s, madd(sb1, s, madd(sb2, s, madd(sb3, s, madd(sb4, s, madd(sb5, s, madd(sb6, s, sb7)))))))
	}
	h := math.Float64frombits(math.Float64bits(x) & 0xffffffff00000000)
	return Exp(float64(-h*h)-0.5625) * Exp(float64((h-x)*(h+x))+r/q) / x
}

// Erf returns the error function of x, 2/√π ∫₀ˣ e^{−t²} dt. Erf(±Inf) = ±1, Erf(NaN) = NaN, Erf(±0) = ±0.
func Erf(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.Copysign(1, x)
	}
	a := math.Abs(x)
	var y float64
	switch {
	case a < nearZero: // erf(x) = x·2/√π to within x³
		if a < 0x1p-1015 {
			y = 0.125 * madd(8*a, efx8, a) // scaled up first: efx·a would lose bits as a subnormal
		} else {
			y = madd(a, efx, a)
		}
	case a < 0.84375:
		y = madd(a, a, erfSmallRatio(a))
	case a < 1.25:
		y = erx + erfMidRatio(a-1)
	case a < 6:
		y = 1 - erfcTail(a)
	default:
		y = 1 // 1 − erfc(x) rounds to 1 from x = 5.93 on
	}
	return math.Copysign(y, x)
}

// Erfc returns the complementary error function 1 − Erf(x), without the cancellation of that difference for
// large x: Erfc(+Inf) = 0, Erfc(−Inf) = 2, Erfc(NaN) = NaN. It underflows to 0 from x ≈ 27.2 on.
func Erfc(x float64) float64 {
	switch {
	case x != x:
		return x
	case math.IsInf(x, 1):
		return 0
	case math.IsInf(x, -1):
		return 2
	}
	a := math.Abs(x)
	switch {
	case a < 0x1p-56:
		return 1 - x
	case a < 0.84375:
		y := erfSmallRatio(a)
		if x < 0.25 { // x negative included
			return 1 - madd(x, x, y)
		}
		return 0.5 - (float64(x*y) + (x - 0.5))
	case a < 1.25:
		if x > 0 {
			return (1 - erx) - erfMidRatio(a-1)
		}
		return 1 + (erx + erfMidRatio(a-1))
	case x < -6:
		return 2 // 2 − erfc(|x|) rounds to 2
	case a < 28:
		if x > 0 {
			return erfcTail(a)
		}
		return 2 - erfcTail(a)
	}
	if x > 0 {
		return 0
	}
	return 2
}
