//go:build amd64 && !purego

package kernel

// RowsInPlace says whether MatMulAddRows runs a kernel that outruns copying B's rows and calling MatMulAdd:
// natively with AVX-512 (the table kernels, avx512T…, which step through the offsets); with AVX2 or the Go kernel
// a plain loop, for tests. Fixed at start-up, as the kernel is.
var RowsInPlace = kind == kindAVX512

func matMulAddRows(a, b []float32, offs []int32, c []float32, m, k, n, ldc int) {
	if kind == kindAVX512 {
		matMulAddRowsAVX512(a, b, offs, c, m, k, n, ldc)
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

// matMulAddRowsAVX512 is MatMulAddRows with the AVX-512 table kernels, blocked as matMulAddAVX512 is (bands of
// rows, panels of p in increasing order, blocks of columns): each block's b pointer is column j0 of b, and the
// kernel adds row p's offset at each step. The caller has checked the shapes and m, k, n >= 1.
func matMulAddRowsAVX512(a, b []float32, offs []int32, c []float32, m, k, n, ldc int) {
	const R, V, W = avx512Rows, avx512Vecs, avx512Width
	nFull := n - n%(V*W)
	rem := n - nFull
	tv := (rem + W - 1) / W
	mask := uint64(1)<<rem - 1
	for i0 := 0; i0 < m; i0 += nativeBandRows {
		rows := min(nativeBandRows, m-i0)
		blocks, tail := rows/R, rows%R
		it := i0 + blocks*R
		for p0 := 0; p0 < k; p0 += nativePanelP {
			kc := min(nativePanelP, k-p0)
			op := &offs[p0]
			for j0 := 0; j0 < nFull; j0 += V * W {
				bp := &b[j0]
				if blocks > 0 {
					avx512Table(R, V, &a[i0*k+p0], bp, &c[i0*ldc+j0], kc, k, op, ldc, blocks)
				}
				if tail > 0 {
					avx512Table(tail, V, &a[it*k+p0], bp, &c[it*ldc+j0], kc, k, op, ldc, 1)
				}
			}
			if rem == 0 {
				continue
			}
			bp := &b[nFull]
			if rem%W == 0 {
				if blocks > 0 {
					avx512Table(R, tv, &a[i0*k+p0], bp, &c[i0*ldc+nFull], kc, k, op, ldc, blocks)
				}
				if tail > 0 {
					avx512Table(tail, tv, &a[it*k+p0], bp, &c[it*ldc+nFull], kc, k, op, ldc, 1)
				}
				continue
			}
			if blocks > 0 {
				avx512TableMasked(R, tv, &a[i0*k+p0], bp, &c[i0*ldc+nFull], kc, k, op, ldc, blocks, mask)
			}
			if tail > 0 {
				avx512TableMasked(tail, tv, &a[it*k+p0], bp, &c[it*ldc+nFull], kc, k, op, ldc, 1, mask)
			}
		}
	}
}
