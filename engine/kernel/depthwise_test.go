package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDepthwiseBitForBit: Depthwise (natively with AVX-512) gives DepthwiseGo's bits on random planes and taps: a
// convolution's (padding 0–3, dilation 1–2, kernels 1×1 to 5×5, rows 1–40 wide, so one to three blocks and every
// tail) and its input gradient's (the taps negated), from a bias and from +0, stored and added; values with -0,
// subnormals and wide exponents, weights with zeros; guard values after each plane.
func TestDepthwiseBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 2))
	for trial := 0; trial < 600; trial++ {
		grad := trial%2 == 1
		p := randomDepthwisePlan(r, false, grad)
		if p == nil {
			continue
		}
		w := make([]float32, len(p.DX))
		for i := range w {
			w[i] = dwValue(r)
			if i%4 == 2 {
				w[i] = 0
			}
		}
		src := make([]float32, p.InH*p.InW)
		for i := range src {
			src[i] = dwValue(r)
			if i%7 == 3 {
				src[i] = float32(math.Copysign(0, -1))
			}
		}
		init := float32(0)
		if !grad {
			init = float32(r.NormFloat64())
		}
		n := p.OutH * p.OutW
		got, want := make([]float32, n+16), make([]float32, n+16)
		for i := range got {
			got[i] = dwValue(r)
			want[i] = got[i]
		}
		Depthwise(got, src, w, p, init, grad)
		DepthwiseGo(want, src, w, p, init, grad)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d: value %d is %#x, DepthwiseGo gives %#x", trial, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
	}
}

// randomDepthwisePlan is the plan of a random depthwise convolution's channel (a kernel 1×1 to 5×5, dilation 1–2,
// padding 0–3, or "same" padding where same and the window allows it, planes 1×1 to 12×40), or with grad of its
// input gradient (∂x from ∂out, the taps negated); nil where the padding leaves no output.
func randomDepthwisePlan(r *rand.Rand, same, grad bool) *DepthwisePlan {
	kh, kw := 1+r.IntN(5), 1+r.IntN(5)
	dh, dw := 1+r.IntN(2), 1+r.IntN(2)
	ph, pw := r.IntN(4), r.IntN(4)
	if same && dh*(kh-1)%2 == 0 && dw*(kw-1)%2 == 0 {
		ph, pw = dh*(kh-1)/2, dw*(kw-1)/2
	}
	inH, inW := 1+r.IntN(12), 1+r.IntN(40)
	outH, outW := inH+2*ph-dh*(kh-1), inW+2*pw-dw*(kw-1)
	if outH < 1 || outW < 1 {
		return nil
	}
	var dy, dx, ny, nx []int32
	for ky := 0; ky < kh; ky++ {
		for kx := 0; kx < kw; kx++ {
			y, x := int32(ky*dh-ph), int32(kx*dw-pw)
			dy, dx, ny, nx = append(dy, y), append(dx, x), append(ny, -y), append(nx, -x)
		}
	}
	if grad {
		return NewDepthwisePlan(inH, inW, outH, outW, ny, nx)
	}
	return NewDepthwisePlan(outH, outW, inH, inW, dy, dx)
}

// dwValue is a finite value from a mix: normal, wide exponents, subnormals, ±0.
func dwValue(r *rand.Rand) float32 {
	switch r.IntN(8) {
	case 0:
		return 0
	case 1:
		return float32(math.Copysign(0, -1))
	case 2:
		return math.Float32frombits(uint32(1 + r.IntN(1<<22))) // subnormal
	}
	return float32(r.NormFloat64()) * float32(math.Pow(2, float64(r.IntN(40)-20)))
}

// TestDepthwisePlanesBitForBit: DepthwisePlanes (natively with AVX-512, four planes at once along their flattened
// outputs where rows are as wide) gives DepthwiseGo's bits plane by plane: 1–9 planes (so four at once and a
// tail), each with its own weights and bias or from +0, stored and added, on convolutions mostly with "same"
// padding (rows as wide: planes 1×1 to 12×40, so odd and even counts of blocks, rows narrower and wider than a
// vector) and their input gradients, and others (the loop plane by plane); guard values after the planes.
func TestDepthwisePlanesBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 5))
	flat := 0
	for trial := 0; trial < 800; trial++ {
		grad := trial%2 == 1
		p := randomDepthwisePlan(r, trial%3 != 0, grad)
		if p == nil {
			continue
		}
		if p.pairs > 0 {
			flat++
		}
		planes, T := 1+r.IntN(9), len(p.DX)
		w := make([]float32, planes*T)
		for i := range w {
			w[i] = dwValue(r)
			if i%4 == 2 {
				w[i] = 0
			}
		}
		var bias []float32
		if !grad || r.IntN(2) == 0 {
			bias = make([]float32, planes)
			for i := range bias {
				bias[i] = float32(r.NormFloat64())
			}
		}
		inP, outP := p.InH*p.InW, p.OutH*p.OutW
		src := make([]float32, planes*inP)
		for i := range src {
			src[i] = dwValue(r)
		}
		add := r.IntN(2) == 0
		got, want := make([]float32, planes*outP+16), make([]float32, planes*outP+16)
		for i := range got {
			got[i] = dwValue(r)
			want[i] = got[i]
		}
		DepthwisePlanes(got, src, w, bias, p, planes, add)
		for k := range planes {
			init := float32(0)
			if bias != nil {
				init = bias[k]
			}
			DepthwiseGo(want[k*outP:(k+1)*outP], src[k*inP:(k+1)*inP], w[k*T:(k+1)*T], p, init, add)
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d (%d planes of %d×%d from %d×%d, %d taps, add %v): value %d is %#x, DepthwiseGo gives %#x",
					trial, planes, p.OutH, p.OutW, p.InH, p.InW, T, add, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
	}
	if flat < 300 {
		t.Fatalf("only %d trials had rows as wide", flat)
	}
}
