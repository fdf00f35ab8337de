//go:build amd64 && !purego

package kernel

import (
	"math"

	"github.com/deltaclue/deltaclue/engine/fmath"
)

// The element-wise loops natively (loops_amd64.s): where MatMulAdd runs AVX-512 (or AVX2), the gathers and
// scatter-adds by index, the rectifier's forward pass and its backward masks run in AVX-512 (or AVX2) too, whole
// blocks of 16 (or 8) values, their tails in Go; with DELTACLUE_KERNEL=go, all in Go. The same bits as the Go
// loops (every lane does their operation on the same operands; see loops_amd64.s). A scatter-add in AVX-512 needs
// AVX512CD (VPCONFLICTD) to find a block's repeated positions; AVX2 has no scatter: there a block that is not one
// run of positions goes lane by lane. With AVX-512 only: a map cut into runs once (Index.WithRuns) is followed
// run by run (gatherRuns512, sumRuns512), and a depthwise convolution's channel runs by rows (depthwise512).

//go:noescape
func gatherIdx512(dst, src *float32, idx *int32, blocks int)

//go:noescape
func gatherIdx256(dst, src *float32, idx *int32, blocks int)

//go:noescape
func scatterIdx512(dst, src *float32, idx *int32, blocks int)

//go:noescape
func scatterIdx256(dst, src *float32, idx *int32, blocks int)

//go:noescape
func reluRows512(in, dst *float32, acc *uint32, rows, w, ld int)

//go:noescape
func reluRows256(in, dst *float32, acc *uint32, rows, w, ld int)

//go:noescape
func addWherePositive512(dx, d, h *float32, blocks int)

//go:noescape
func addWherePositive256(dx, d, h *float32, blocks int)

//go:noescape
func maskPositive512(dx, d, h *float32, blocks int)

//go:noescape
func maskPositive256(dx, d, h *float32, blocks int)

//go:noescape
func setWherePositive512(dx, d, h *float32, blocks int)

//go:noescape
func relu512(dst, in *float32, blocks int)

//go:noescape
func add512(dst, a, b *float32, blocks int)

//go:noescape
func add256(dst, a, b *float32, blocks int)

//go:noescape
func relu256(dst, in *float32, blocks int)

//go:noescape
func setWherePositive256(dx, d, h *float32, blocks int)

// scatterCD says whether the CPU has AVX512CD (CPUID 7: EBX bit 28), which scatterIdx512 needs.
var scatterCD = kind == kindAVX512 && func() bool {
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<28) != 0
}()

// runsPay says whether GatherIdx and ScatterAddIdx follow an Index's runs (Index.WithRuns): with AVX-512.
func runsPay() bool { return loopWidth == 16 }

//go:noescape
func gatherRuns512(dst, src *float32, runs *run, n int)

//go:noescape
func sumRuns512(dst, src *float32, sums *sumRun, n int, taps *int32)

// gatherRuns and sumRuns follow the runs of a map (cutRuns, cutSums) whose positions the caller has checked.
func gatherRuns(dst, src []float32, runs []run) { gatherRuns512(&dst[0], &src[0], &runs[0], len(runs)) }

func sumRuns(dst, src []float32, p *runPlan) {
	sumRuns512(&dst[0], &src[0], &p.sums[0], len(p.sums), &p.taps[0])
}

// DepthwiseNative says whether Depthwise runs a native loop: with AVX-512 (16 outputs a vector).
var DepthwiseNative = kind == kindAVX512

//go:noescape
func depthwise512(dst, src, w *float32, taps *int32, masks *uint16, ntaps, rows, blocks, outW, inH, inW, yLo, yHi int, init float32, add bool)

// depthwise runs Depthwise's loop in AVX-512; the caller has checked the planes.
func depthwise(dst, src, w []float32, p *DepthwisePlan, T int, init float32, add bool) {
	depthwise512(&dst[0], &src[0], &w[0], &p.taps[0], &p.masks[0], T, p.OutH, p.blocks, p.OutW, p.InH, p.InW, p.yLo, p.yHi, init, add)
}

//go:noescape
func depthwise4x512(dst, src, w, init *float32, taps *int32, masks *uint16, ntaps, pairs, inP, outP int, add bool)

// depthwise4 runs DepthwisePlanes' loop on four planes in AVX-512; the caller has checked the planes.
func depthwise4(dst, src, w []float32, init *[4]float32, p *DepthwisePlan, T, inP, outP int, add bool) {
	depthwise4x512(&dst[0], &src[0], &w[0], &init[0], &p.taps[0], &p.pmasks[0], T, p.pairs, inP, outP, add)
}

//go:noescape
func exp512(dst, src *float64, blocks int) int

// expTo runs fmath.ExpTo's steps in AVX-512, 8 values a block (the rest by fmath.ExpTo itself), where MatMulAdd
// runs AVX-512; it reports false (dst then holds garbage) where some value needs another of Exp's cases, as the
// SIMD module's does, or without AVX-512.
func expTo(dst, src []float64) bool {
	if kind != kindAVX512 {
		return false
	}
	blocks := len(src) / 8
	if blocks > 0 && exp512(&dst[0], &src[0], blocks) > 0 {
		return false
	}
	fmath.ExpTo(dst[8*blocks:len(src)], src[8*blocks:])
	return true
}

// loopWidth is the block of the native loops: 16 values (AVX-512), 8 (AVX2) or none (the Go kernel).
var loopWidth = [...]int{kindGo: 0, kindAVX2: 8, kindAVX512: 16}[kind]

func gatherIdx(dst, src []float32, idx []int32) {
	w := loopWidth
	blocks := 0
	if w > 0 {
		blocks = len(idx) / w
	}
	if blocks > 0 {
		dst = dst[:len(idx)]
		if w == 16 {
			gatherIdx512(&dst[0], &src[0], &idx[0], blocks)
		} else {
			gatherIdx256(&dst[0], &src[0], &idx[0], blocks)
		}
	}
	done := blocks * w
	gatherIdxGo(dst[done:], src, idx[done:])
}

func scatterIdx(dst, src []float32, idx []int32) {
	w := loopWidth
	if w == 16 && !scatterCD {
		w = 8 // (AVX-512 without AVX512CD: the AVX2 loop)
	}
	blocks := 0
	if w > 0 {
		blocks = len(idx) / w
	}
	if blocks > 0 {
		src = src[:len(idx)]
		if w == 16 {
			scatterIdx512(&dst[0], &src[0], &idx[0], blocks)
		} else {
			scatterIdx256(&dst[0], &src[0], &idx[0], blocks)
		}
	}
	done := blocks * w
	scatterIdxGo(dst, src[done:], idx[done:])
}

func reluRows(in, dst []float32, acc []uint32, rows, w int) {
	full := 0
	if loopWidth > 0 {
		full = w - w%loopWidth
	}
	if full > 0 {
		_, _ = in[(rows-1)*w+full-1], dst[(rows-1)*w+full-1] // (checked by ReluRows: for the compiler)
		if loopWidth == 16 {
			reluRows512(&in[0], &dst[0], &acc[0], rows, full, w)
		} else {
			reluRows256(&in[0], &dst[0], &acc[0], rows, full, w)
		}
		if full == w {
			return
		}
	}
	for i := 0; i < rows; i++ {
		row, out := in[i*w+full:(i+1)*w], dst[i*w+full:(i+1)*w]
		out = out[:len(row)]
		a := acc[full:w]
		a = a[:len(row)]
		for j, v := range row {
			u := ReluBits(math.Float32bits(v))
			out[j] = math.Float32frombits(u)
			a[j] |= u
		}
	}
}

func addWherePositive(dx, d, h []float32) {
	done := inBlocks(len(dx),
		func(blocks int) { addWherePositive512(&dx[0], &d[0], &h[0], blocks) },
		func(blocks int) { addWherePositive256(&dx[0], &d[0], &h[0], blocks) })
	addWherePositiveGo(dx[done:], d[done:], h[done:])
}

func maskPositive(dx, d, h []float32) {
	done := inBlocks(len(dx),
		func(blocks int) { maskPositive512(&dx[0], &d[0], &h[0], blocks) },
		func(blocks int) { maskPositive256(&dx[0], &d[0], &h[0], blocks) })
	maskPositiveGo(dx[done:], d[done:], h[done:])
}

func setWherePositive(dx, d, h []float32) {
	done := inBlocks(len(dx),
		func(blocks int) { setWherePositive512(&dx[0], &d[0], &h[0], blocks) },
		func(blocks int) { setWherePositive256(&dx[0], &d[0], &h[0], blocks) })
	setWherePositiveGo(dx[done:], d[done:], h[done:])
}

func relu(dst, in []float32) {
	done := inBlocks(len(in),
		func(blocks int) { relu512(&dst[0], &in[0], blocks) },
		func(blocks int) { relu256(&dst[0], &in[0], blocks) })
	ReluGo(dst[done:], in[done:])
}

// addTo is AddTo with the AVX loops (whole blocks; Go's loop for the rest), or false with the Go kernel.
func addTo(dst, a, b []float32) bool {
	if loopWidth == 0 {
		return false
	}
	done := inBlocks(len(dst),
		func(blocks int) { add512(&dst[0], &a[0], &b[0], blocks) },
		func(blocks int) { add256(&dst[0], &a[0], &b[0], blocks) })
	addToGo(dst[done:], a[done:], b[done:])
	return true
}

// inBlocks runs an element-wise loop over the whole blocks of n values at this CPU's width, f512 with 16 values a
// block or f256 with 8, and returns how many values it did: the caller's Go loop does the rest.
func inBlocks(n int, f512, f256 func(blocks int)) int {
	w := loopWidth
	if w == 0 || n < w {
		return 0
	}
	if w == 16 {
		f512(n / w)
	} else {
		f256(n / w)
	}
	return n / w * w
}
