//go:build amd64 && !purego

package kernel

// RowsInPlace says whether MatMulAddRows runs a kernel that outruns copying B's rows and calling MatMulAdd:
// natively with AVX-512 (the table kernels, avx512T…, which step through the offsets); with AVX2 or the Go kernel
// a plain loop, for tests. Fixed at start-up, as the kernel is.
var RowsInPlace = kind == kindAVX512

func matMulAddRows(a, b []float32, offs []int32, c []float32, m, k, n, ldc int) {
	if kind == kindAVX512 { // blocked as MatMulAdd is, the table kernels stepping through offs
		matMulAVX512(a, b, c, nil, false, offs, m, k, n, k, 0, ldc)
		return
	}
	matMulAddRowsGo(a, b, offs, c, m, k, n, ldc)
}

func planesGrad(a, b []float32, b0 int, shifts []int32, dst []float32, cig, taps, m, n, sb, sd int) {
	if kind != kindAVX512 {
		planesGradGo(a, b, b0, shifts, dst, cig, taps, m, n, sb, sd)
		return
	}
	// 64 columns a call: four vectors of sums over the outputs for each of two input channels, eight dependent
	// chains of additions in flight (four, for a last channel alone).
	for j0 := 0; j0 < n; j0 += 64 {
		mask := uint64(1)<<min(64, n-j0) - 1 // (1<<64 is 0 in Go: all ones)
		ci := 0
		for ; ci+1 < cig; ci += 2 {
			planesGrad512x2(&a[ci*taps*m], &b[b0+j0], &shifts[0], &dst[ci*sd+j0], taps, m, sb, sd, mask)
		}
		if ci < cig {
			planesGrad512(&a[ci*taps*m], &b[b0+j0], &shifts[0], &dst[ci*sd+j0], taps, m, sb, mask)
		}
	}
}

//go:noescape
func planesGrad512x2(a, b *float32, shifts *int32, dst *float32, taps, m, sb, sd int, mask uint64)

//go:noescape
func planesGrad512(a, b *float32, shifts *int32, dst *float32, taps, m, sb int, mask uint64)

func moveRows(dst, src []float32, offs []int32, w int, onDst, add bool) {
	if !add || kind != kindAVX512 {
		moveRowsGo(dst, src, offs, w, onDst, add) // copies: a memmove a row
		return
	}
	addRows512(&dst[0], &src[0], &offs[0], len(offs), w, onDst)
}

//go:noescape
func addRows512(dst, src *float32, offs *int32, rows, w int, onDst bool)
