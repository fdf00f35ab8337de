package kernel

import "strconv"

// MatMulAddRows computes c += a·B for row-major a [m×k] and c [m×n] whose rows lie ldc values apart, where row p of
// B is the n values of b from offs[p]: for every i, j it adds a[i*k+p]*b[offs[p]+j], each rounded to float32, to
// c[i*ldc+j] one at a time in increasing order of p, as MatMulAdd does (the same contract and preconditions). It is
// MatMulAdd on a matrix of b's rows copied out, without the copies: a convolution's windows as shifted rows of its
// zero-padded planes, read where they lie.
//
// It panics if a shape is negative, ldc < n (with m > 1), len(offs) < k, len(a) < m*k, c is too short for its m
// rows, or a row of B leaves b. In a js/wasm build with the wasmsimd tag it runs matmul.wasm's matmul_add_rows
// (RowsInPlace is true); elsewhere a plain loop, which callers leave to the tests (they copy the rows and call
// MatMulAdd where RowsInPlace is false).
func MatMulAddRows(a, b []float32, offs []int32, c []float32, m, k, n, ldc int) {
	if m < 0 || k < 0 || n < 0 || m > 1 && ldc < n || len(offs) < k {
		panic("kernel.MatMulAddRows: bad shape m=" + strconv.Itoa(m) + " k=" + strconv.Itoa(k) + " n=" + strconv.Itoa(n) +
			" ldc=" + strconv.Itoa(ldc) + " offs=" + strconv.Itoa(len(offs)))
	}
	if m == 0 || k == 0 || n == 0 {
		return
	}
	if len(a) < m*k || len(c) < (m-1)*ldc+n {
		panic("kernel.MatMulAddRows: a or c too short")
	}
	offs = offs[:k]
	for _, o := range offs {
		if o < 0 || int(o) > len(b)-n {
			panic("kernel.MatMulAddRows: a row of b at " + strconv.Itoa(int(o)) + " leaves len(b)=" + strconv.Itoa(len(b)))
		}
	}
	matMulAddRows(a[:m*k], b, offs, c[:(m-1)*ldc+n], m, k, n, ldc)
}

// MatMulAddRowsGo is MatMulAddRows always in Go: the reference the WebAssembly kernel is compared with.
func MatMulAddRowsGo(a, b []float32, offs []int32, c []float32, m, k, n, ldc int) {
	if m == 0 || k == 0 || n == 0 {
		return
	}
	matMulAddRowsGo(a[:m*k], b, offs[:k], c[:(m-1)*ldc+n], m, k, n, ldc)
}

func matMulAddRowsGo(a, b []float32, offs []int32, c []float32, m, k, n, ldc int) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		ai := a[i*k : i*k+k]
		for j := range ci {
			s := ci[j]
			for p, o := range offs {
				s += float32(ai[p] * b[int(o)+j])
			}
			ci[j] = s
		}
	}
}

// PlanesGrad adds a convolution's input gradient in planes without W_gᵀ·∂out_g written out: for each of cig rows
// ci of dst (sd values apart, n each) and each column j < n, for each tap i < taps in order, the sum t from +0 of
// a[(ci*taps+i)*m+o]·b[b0+o*sb+j−shifts[i]] over o = 0, 1, …, m−1 in order (each product rounded to float32), is
// added to dst[ci*sd+j]. That is MatMulAdd of a's rows onto +0 (W_gᵀ·∂out_g's columns, ∂out's rows in b sb apart),
// the columns shifted right by their taps' shifts, and added in tap order by a product with ones (1·t is t): the
// same bits. The caller leaves +0 in b where a row shifted reads before its start (a shift's values before b0 +
// o*sb), as the shifted copy was cleared there. Preconditions as MatMulAdd's (dst holds no -0; a, b finite).
//
// It panics if a shape is negative, a shift is negative or larger than b0, or a, b, shifts or dst is too short.
// In a js/wasm build with the wasmsimd tag it runs matmul.wasm's planes_grad; elsewhere a plain loop (for tests:
// callers use it where RowsInPlace).
func PlanesGrad(a, b []float32, b0 int, shifts []int32, dst []float32, cig, taps, m, n, sb, sd int) {
	if cig < 0 || taps < 0 || m < 0 || n < 0 || sb < 0 || sd < 0 || len(shifts) < taps {
		panic("kernel.PlanesGrad: bad shape")
	}
	if cig == 0 || taps == 0 || m == 0 || n == 0 {
		return
	}
	if cig > 1 && sd < n || len(a) < cig*taps*m || len(dst) < (cig-1)*sd+n || b0 < 0 || len(b) < b0+(m-1)*sb+n {
		panic("kernel.PlanesGrad: a, b or dst too short")
	}
	for _, s := range shifts[:taps] {
		if s < 0 || int(s) > b0 {
			panic("kernel.PlanesGrad: shift " + strconv.Itoa(int(s)) + " past b0=" + strconv.Itoa(b0))
		}
	}
	planesGrad(a[:cig*taps*m], b, b0, shifts[:taps], dst[:(cig-1)*sd+n], cig, taps, m, n, sb, sd)
}

// PlanesGradGo is PlanesGrad always in Go: the reference the WebAssembly kernel is compared with.
func PlanesGradGo(a, b []float32, b0 int, shifts []int32, dst []float32, cig, taps, m, n, sb, sd int) {
	if cig == 0 || taps == 0 || m == 0 || n == 0 {
		return
	}
	planesGradGo(a, b, b0, shifts[:taps], dst, cig, taps, m, n, sb, sd)
}

func planesGradGo(a, b []float32, b0 int, shifts []int32, dst []float32, cig, taps, m, n, sb, sd int) {
	for ci := 0; ci < cig; ci++ {
		d := dst[ci*sd : ci*sd+n]
		for j := range d {
			acc := d[j]
			for i, s := range shifts {
				ai := a[(ci*taps+i)*m : (ci*taps+i+1)*m]
				at := b0 + j - int(s)
				var t float32
				for o, w := range ai {
					t += float32(w * b[at+o*sb])
				}
				acc += t
			}
			d[j] = acc
		}
	}
}

// MoveRows moves len(offs) rows of w values through a table of offsets: with onDst, row r of src (contiguous, at
// r*w) to dst from offs[r]; else row r of dst (contiguous) from src at offs[r]. With add each value is added
// (dst += src, a float32 addition), else copied, bits and all. It is GatherIdx (copied, onDst false),
// ScatterAddIdx (added, onDst) or ScatterAddPairs (added, from src's table) through a map whose rows are runs of w
// positions, each value written once (a convolution's images into and out of its planes). It panics if a row
// leaves dst or src. In a js/wasm build with the wasmsimd tag it runs matmul.wasm's move_rows (RowsInPlace);
// elsewhere a plain loop.
func MoveRows(dst, src []float32, offs []int32, w int, onDst, add bool) {
	if w < 0 {
		panic("kernel.MoveRows: negative width")
	}
	if len(offs) == 0 || w == 0 {
		return
	}
	table, flat := dst, src
	if !onDst {
		table, flat = src, dst
	}
	if len(flat) < len(offs)*w {
		panic("kernel.MoveRows: " + strconv.Itoa(len(offs)) + " rows of " + strconv.Itoa(w) + " leave a slice of " + strconv.Itoa(len(flat)))
	}
	lo, hi := offs[0], offs[0] // (one check of the extremes: no branch a row in the loop)
	for _, o := range offs {
		lo, hi = min(lo, o), max(hi, o)
	}
	if lo < 0 || int(hi) > len(table)-w {
		panic("kernel.MoveRows: rows from " + strconv.Itoa(int(lo)) + " to " + strconv.Itoa(int(hi)) + " leave a slice of " + strconv.Itoa(len(table)))
	}
	moveRows(dst, src, offs, w, onDst, add)
}

// MoveRowsGo is MoveRows always in Go.
func MoveRowsGo(dst, src []float32, offs []int32, w int, onDst, add bool) {
	if len(offs) == 0 || w == 0 {
		return
	}
	moveRowsGo(dst, src, offs, w, onDst, add)
}

func moveRowsGo(dst, src []float32, offs []int32, w int, onDst, add bool) {
	for r, o := range offs {
		var d, s []float32
		if onDst {
			d, s = dst[int(o):int(o)+w], src[r*w:r*w+w]
		} else {
			d, s = dst[r*w:r*w+w], src[int(o):int(o)+w]
		}
		if add {
			for j, v := range s {
				d[j] += v
			}
		} else {
			copy(d, s)
		}
	}
}
