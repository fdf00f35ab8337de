// Package kernel holds the engine's dense matrix-multiply kernel, MatMulAdd, in bit-identical implementations: a
// pure-Go one (every platform), native amd64 ones in Go assembly (AVX-512 and AVX2, chosen at start-up; see
// Native), and a hand-written WebAssembly SIMD one (matmul.wat, used by js/wasm builds made with the wasmsimd
// build tag).
//
// # Determinism contract
//
// For row-major a [m×k], b [k×n], c [m×n], MatMulAdd performs, for every i, j,
//
//	c[i*n+j] += float32(a[i*k+0] * b[0*n+j])
//	c[i*n+j] += float32(a[i*k+1] * b[1*n+j])
//	...
//	c[i*n+j] += float32(a[i*k+k-1] * b[(k-1)*n+j])
//
// strictly in increasing order of the inner index p, each product rounded to float32 before it is added (never a
// fused multiply-add), so the result is a function of the inputs alone: natively (any GOAMD64 level, any
// GOARCH) and in WebAssembly, with or without SIMD, it is the same bits. Implementations may block and unroll over
// i and j freely, but never reorder or split the sum over p.
//
// Implementations may skip a product whose a element is exactly zero. That is invisible (x + ±0 == x bitwise)
// under the preconditions below, which the engine always meets:
//
//   - c must not contain -0: callers start c from +0 (a zeroed slice) or from biases (which are never -0). A sum
//     of float32 values is -0 only if every addend is -0, so c never becomes -0 either.
//   - a and b must be finite (no Inf or NaN), so 0*b is always ±0.
//
// # The native amd64 kernels
//
// On amd64 (unless built with the purego tag) MatMulAdd runs an AVX-512 kernel (16 columns per ZMM register) when
// the CPU has AVX-512F and the OS saves the ZMM state, else an AVX2 kernel (8 columns per YMM register) when it has
// AVX2, else the pure-Go kernel; Native says which. They vectorise across j and keep the order over p: VMULPS
// then VADDPS per p step, never a fused multiply-add (see matmul_amd64.go and internal/asmgen). The environment
// variable DELTACLUE_KERNEL, read at start-up, caps the choice: "go" forces the pure-Go kernel, "avx2" AVX2.
//
// # The WebAssembly SIMD kernel
//
// In a GOOS=js GOARCH=wasm build with the build tag wasmsimd, MatMulAdd calls the function imported as
//
//	//go:wasmimport deltaclue_kernel matmul_add
//
// i.e. import module "deltaclue_kernel", name "matmul_add", signature (a, b, c, m, k, n i32) with a, b, c byte
// addresses in Go's linear memory. The host supplies it from matmul.wasm (embedded here as WASM), which imports
// Go's memory as "go" "mem" and so must be instantiated after the Go module, behind a small JS trampoline; see
// web/node/wasm_exec_simd.js for the Node test runner and for the pattern a browser worker uses. Without the tag,
// js/wasm builds use the pure-Go kernel and need nothing from the host.
//
// The same module also supplies two element-wise loops of the engine, ReluRows and MaskPositive (imported as
// deltaclue_kernel.relu_rows and mask_positive): integer operations on the floats' bits, the same bits as
// their Go versions, which JavaScriptCore ran slower than the matrix products when compiled from Go.
package kernel

import (
	_ "embed" // for WASM
	"strconv"
)

// WASM is matmul.wasm: the WebAssembly SIMD kernel that a wasmsimd build of this package imports as
// deltaclue_kernel.matmul_add. Tools write it out for the web page.
//
//go:embed matmul.wasm
var WASM []byte

// DenseWASM is matmul_dense.wasm: WASM without the loops only convolutional models call (the image layers of
// matmul.wat), the kernel a site ships beside a worker built for dense models (engine's build tag denseonly),
// which imports none of them.
//
//go:embed matmul_dense.wasm
var DenseWASM []byte

// MatMulAdd computes c += a·b for row-major a [m×k], b [k×n], c [m×n]: for every i, j it adds the products
// a[i*k+p]*b[p*n+j], each rounded to float32, to c[i*n+j] one at a time in increasing order of p (no fused
// multiply-add). See the package documentation for the exact contract and its preconditions: c must not contain
// -0 (callers start from +0 or from biases) and a, b must be finite.
//
// It panics if m, k or n is negative or if len(a) < m*k, len(b) < k*n or len(c) < m*n. Elements past those
// lengths are neither read nor written. If m, k or n is zero it does nothing (after those checks).
//
// In a js/wasm build with the wasmsimd tag it runs the WebAssembly SIMD kernel (SIMD is true); on amd64 the
// native AVX-512 or AVX2 kernel where the CPU has it (Native names it); elsewhere the same pure-Go kernel as
// MatMulAddGo. All give the same bits.
func MatMulAdd(a, b, c []float32, m, k, n int) {
	a, b, c = check(a, b, c, m, k, n)
	if m == 0 || k == 0 || n == 0 {
		return
	}
	matMulAdd(a, b, c, m, k, n)
}

// MatMulAddT is MatMulAdd for an a whose transpose at [k×m] the caller also holds (a layer's weights, whose
// transpose it keeps): the same bits, c += a·b. Natively, the last columns that would fill a vector only in part
// (n not a multiple of the lanes) run as rows of cᵀ += (their columns of b)ᵀ·aᵀ, with the lanes across a's rows:
// a convolution's 7×7 = 49 positions are three vectors of 16 and one column, which as a masked vector costs
// each row of c a whole vector's work for one value. Each product is then b·a rather than a·b, the same float32
// (multiplication commutes), added to the same element in the same order of p. Elsewhere (the pure-Go and the
// WebAssembly kernels) at is not read.
//
// It panics as MatMulAdd does, and if len(at) < k*m.
func MatMulAddT(a, at, b, c []float32, m, k, n int) {
	a, b, c = check(a, b, c, m, k, n)
	if m > 0 && k > len(at)/m {
		panic("kernel.MatMulAddT: len(at)=" + strconv.Itoa(len(at)) + " < " + strconv.Itoa(k) + "*" + strconv.Itoa(m))
	}
	if m == 0 || k == 0 || n == 0 {
		return
	}
	matMulAddT(a, at, b, c, m, k, n)
}

// MatMulInitT is MatMulAddT onto a c whose row i starts as init[i] in every column (init nil: +0): c[i][j] =
// init[i] + Σ_p float32(a[i][p]·b[p][j]) added in increasing p, the bits of setting c's rows and calling
// MatMulAddT. Natively with AVX-512 the kernels start their tiles from init, neither writing c first nor loading
// it (a convolution's outputs from their biases, its windows' gradients from +0); elsewhere it sets the rows and
// calls MatMulAddT. init holds no -0, as MatMulAdd's c holds none. It panics as MatMulAddT does, and if init is
// not nil and shorter than m.
func MatMulInitT(a, at, b, c, init []float32, m, k, n int) {
	a, b, c = check(a, b, c, m, k, n)
	if m > 0 && k > len(at)/m {
		panic("kernel.MatMulInitT: len(at)=" + strconv.Itoa(len(at)) + " < " + strconv.Itoa(k) + "*" + strconv.Itoa(m))
	}
	if init != nil && len(init) < m {
		panic("kernel.MatMulInitT: len(init)=" + strconv.Itoa(len(init)) + " < m=" + strconv.Itoa(m))
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		setRows(c, init, m, n)
		return
	}
	matMulInitT(a, at, b, c, init, m, k, n)
}

// setRows sets each row i of c [m×n] to init[i] (init nil: +0), as MatMulInitT's products start.
func setRows(c, init []float32, m, n int) {
	if n == 0 {
		return
	}
	if init == nil {
		clear(c[:m*n])
		return
	}
	for i, v := range init[:m] {
		row := c[i*n : (i+1)*n]
		row[0] = v
		for w := 1; w < n; w *= 2 {
			copy(row[w:], row[:w])
		}
	}
}

// MatMulAddGo is MatMulAdd always using the pure-Go kernel, whatever the build and CPU. It is the reference the
// SIMD kernels (WebAssembly, AVX2, AVX-512) are compared with bit for bit in one binary.
func MatMulAddGo(a, b, c []float32, m, k, n int) {
	a, b, c = check(a, b, c, m, k, n)
	if m == 0 || k == 0 || n == 0 {
		return
	}
	matMulAddGo(a, b, c, m, k, n)
}

// check validates the shapes and returns a, b, c resliced to exactly m*k, k*n and m*n elements.
func check(a, b, c []float32, m, k, n int) ([]float32, []float32, []float32) {
	if m < 0 || k < 0 || n < 0 {
		panic("kernel.MatMulAdd: negative dimension m=" + strconv.Itoa(m) + " k=" + strconv.Itoa(k) + " n=" + strconv.Itoa(n))
	}
	// x*y <= l  <=>  x <= l/y for y > 0; this form cannot overflow.
	short := func(name string, l, x, y int) {
		if y > 0 && x > l/y {
			panic("kernel.MatMulAdd: len(" + name + ")=" + strconv.Itoa(l) + " < " + strconv.Itoa(x) + "*" + strconv.Itoa(y))
		}
	}
	short("a", len(a), m, k)
	short("b", len(b), k, n)
	short("c", len(c), m, n)
	return a[:m*k], b[:k*n], c[:m*n]
}
