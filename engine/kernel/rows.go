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
