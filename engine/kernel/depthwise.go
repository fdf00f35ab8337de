package kernel

import "strconv"

// A DepthwisePlan is where each tap of a depthwise convolution's channel reads, for Depthwise: an output plane
// of OutH × OutW values from an input plane of InH × InW, tap t reading at the output's place shifted by DY[t]
// rows and DX[t] columns (a convolution of stride 1: ky·dilation − padding; its input gradient: the negations),
// nothing where that falls outside the input. It holds, per block of 16 outputs in a row and tap, the lanes that
// read inside the input, for the native loop.
type DepthwisePlan struct {
	OutH, OutW, InH, InW int
	DY, DX               []int32
	masks                []uint16 // per block: each tap's lanes that read inside the row, then the block's outputs
	taps                 []int32  // per tap: DY, and where it reads from the output's place (DY·InW + DX)
	blocks               int
	yLo, yHi             int // the output rows whose every tap reads a row of the input

	// Where input and output rows are as wide (InW = OutW: a convolution of stride 1 with "same" padding, or its
	// input gradient), output j of the flattened plane reads input j + DY·InW + DX at every tap, so the native
	// loop of DepthwisePlanes runs the flattened plane 16 outputs a vector whatever its rows' width, two blocks at
	// once: per pair of blocks and tap, each block's lanes that read inside the input (its row and its column),
	// then each block's outputs; a last odd block is paired with one of no lanes.
	pairs  int
	pmasks []uint16
}

// NewDepthwisePlan makes the plan of taps dy, dx (as many of each) between planes of outH × outW and inH × inW.
func NewDepthwisePlan(outH, outW, inH, inW int, dy, dx []int32) *DepthwisePlan {
	if len(dy) != len(dx) || outH < 0 || outW < 0 || inH < 0 || inW < 0 {
		panic("kernel.NewDepthwisePlan: " + strconv.Itoa(len(dy)) + " rows for " + strconv.Itoa(len(dx)) + " columns of taps, or a negative size")
	}
	p := &DepthwisePlan{OutH: outH, OutW: outW, InH: inH, InW: inW, DY: dy, DX: dx, blocks: (outW + 15) / 16}
	T := len(dx)
	p.taps = make([]int32, 2*T)
	p.yLo, p.yHi = 0, outH
	for t := range T {
		p.taps[2*t], p.taps[2*t+1] = dy[t], dy[t]*int32(inW)+dx[t]
		p.yLo, p.yHi = max(p.yLo, -int(dy[t])), min(p.yHi, inH-int(dy[t]))
	}
	p.masks = make([]uint16, p.blocks*(T+1))
	for b := 0; b < p.blocks; b++ {
		for l := 0; l < 16; l++ {
			x := 16*b + l
			if x >= outW {
				break
			}
			p.masks[b*(T+1)+T] |= 1 << l
			for t, d := range dx {
				if ix := x + int(d); ix >= 0 && ix < inW {
					p.masks[b*(T+1)+t] |= 1 << l
				}
			}
		}
	}
	if inW == outW && T > 0 {
		p.flatMasks()
	}
	return p
}

// flatMasks sets p's masks of the flattened plane (see DepthwisePlan.pairs).
func (p *DepthwisePlan) flatMasks() {
	T, n := len(p.DX), p.OutH*p.OutW
	p.pairs = (n + 31) / 32
	p.pmasks = make([]uint16, p.pairs*(T+1)*2)
	for j := 0; j < n; j++ {
		y, x, q, h, l := j/p.OutW, j%p.OutW, j/32, j/16%2, j%16
		at := func(t int) *uint16 { return &p.pmasks[(q*(T+1)+t)*2+h] }
		*at(T) |= 1 << l
		for t := range T {
			iy, ix := y+int(p.DY[t]), x+int(p.DX[t])
			if iy >= 0 && iy < p.InH && ix >= 0 && ix < p.InW {
				*at(t) |= 1 << l
			}
		}
	}
}

// DepthwisePlanes runs Depthwise on planes channels one after another, each by plan p: plane k's input at
// src[k·InH·InW:], its output at dst[k·OutH·OutW:], its taps' weights w[k·T:(k+1)·T] and its sums from bias[k]
// (from +0 where bias is nil). The same bits as Depthwise plane by plane; natively with AVX-512, where input and
// output rows are as wide, four planes at once along their flattened outputs (more work a call, and rows of any
// width fill the vectors).
//
// It panics if w, bias or a plane is too short.
func DepthwisePlanes(dst, src, w, bias []float32, p *DepthwisePlan, planes int, add bool) {
	T := len(p.DX)
	inP, outP := p.InH*p.InW, p.OutH*p.OutW
	if planes < 0 || len(w) < planes*T || bias != nil && len(bias) < planes || len(src) < planes*inP || len(dst) < planes*outP {
		panic("kernel.DepthwisePlanes: " + strconv.Itoa(planes) + " planes for " + strconv.Itoa(len(w)) + " weights, " + strconv.Itoa(len(bias)) + " biases, or a plane too short")
	}
	k := 0
	if DepthwiseNative && p.pairs > 0 && inP > 0 {
		for ; k+4 <= planes; k += 4 {
			var init [4]float32
			if bias != nil {
				copy(init[:], bias[k:k+4])
			}
			depthwise4(dst[k*outP:], src[k*inP:], w[k*T:], &init, p, T, inP, outP, add)
		}
	}
	for ; k < planes; k++ {
		init := float32(0)
		if bias != nil {
			init = bias[k]
		}
		Depthwise(dst[k*outP:(k+1)*outP], src[k*inP:(k+1)*inP], w[k*T:(k+1)*T], p, init, add)
	}
}

// Depthwise computes one channel of a depthwise convolution (or of its input gradient) by plan p: for every
// output place (y, x), the sum from init of w[t]·src[(y+DY[t])·InW + x+DX[t]] over the taps t that read inside
// the input, in order, each product rounded to float32 and added one at a time (no fused multiply-add); then
// stored in dst[y·OutW + x], or with add, added to it (dst + sum). That is the sum a product of the taps' weights
// by the windows gives from init (a bias, or +0) where the windows hold +0 outside the input: those products are
// ±0, which leave a sum that never holds -0 as it is (init must not be -0; w and src finite). Natively with
// AVX-512 16 outputs a vector (DepthwiseNative); elsewhere DepthwiseGo.
//
// It panics if w has fewer values than taps or a plane is too short.
func Depthwise(dst, src, w []float32, p *DepthwisePlan, init float32, add bool) {
	T := p.check(dst, src, w)
	if p.OutH == 0 || p.blocks == 0 {
		return
	}
	if DepthwiseNative && T > 0 && len(src) > 0 {
		depthwise(dst, src, w, p, T, init, add)
		return
	}
	depthwiseGo(dst, src, w, p, init, add)
}

// DepthwiseGo is Depthwise always in Go: the reference the native loop is compared with.
func DepthwiseGo(dst, src, w []float32, p *DepthwisePlan, init float32, add bool) {
	p.check(dst, src, w)
	depthwiseGo(dst, src, w, p, init, add)
}

func (p *DepthwisePlan) check(dst, src, w []float32) int {
	T := len(p.DX)
	if len(w) < T || len(dst) < p.OutH*p.OutW || len(src) < p.InH*p.InW {
		panic("kernel.Depthwise: " + strconv.Itoa(len(w)) + " weights for " + strconv.Itoa(T) + " taps, or a plane too short")
	}
	return T
}

func depthwiseGo(dst, src, w []float32, p *DepthwisePlan, init float32, add bool) {
	for y := 0; y < p.OutH; y++ {
		for x := 0; x < p.OutW; x++ {
			s := init
			for t := range p.DX {
				iy, ix := y+int(p.DY[t]), x+int(p.DX[t])
				if iy >= 0 && iy < p.InH && ix >= 0 && ix < p.InW {
					s += float32(w[t] * src[iy*p.InW+ix])
				}
			}
			if add {
				s = dst[y*p.OutW+x] + s
			}
			dst[y*p.OutW+x] = s
		}
	}
}
