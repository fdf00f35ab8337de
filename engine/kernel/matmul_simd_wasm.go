//go:build js && wasm && wasmsimd

package kernel

import "unsafe"

// SIMD reports whether MatMulAdd runs the WebAssembly SIMD kernel (matmul.wasm). It is true only in
// GOOS=js GOARCH=wasm builds with the wasmsimd build tag, whose host must supply the import
// deltaclue_kernel.matmul_add (see the package documentation).
const SIMD = true

// Native names the kernel MatMulAdd runs: "wasmsimd" in this build (on amd64 natively: "avx512", "avx2" or "go").
var Native = "wasmsimd"

// SparsePays says whether multiplying only a matrix's listed nonzero values (MatMulAddSparse) outruns MatMulAdd
// on a ReLU's output: in WebAssembly, yes.
const SparsePays = true

// wasmMatMulAdd is matmul.wasm's export "matmul_add", supplied by the host under the import module
// "deltaclue_kernel". Pointers are passed as i32 byte addresses into Go's linear memory, which the kernel
// imports; it reads a and b and writes c only, within m*k, k*n and m*n elements, and keeps no reference.
//
//go:wasmimport deltaclue_kernel matmul_add
//go:noescape
func wasmMatMulAdd(a, b, c unsafe.Pointer, m, k, n int32)

// matMulAdd runs the SIMD kernel. The caller has checked the shapes, m, k, n >= 1 and resliced a, b, c to
// exactly m*k, k*n, m*n elements. The sizes fit in int32 because a wasm32 address space holds at most 2^30
// float32s.
func matMulAdd(a, b, c []float32, m, k, n int) {
	wasmMatMulAdd(unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&c[0]), int32(m), int32(k), int32(n))
}

// matMulAddT runs the SIMD kernel, which does not read aᵀ.
func matMulAddT(a, _, b, c []float32, m, k, n int) { matMulAdd(a, b, c, m, k, n) }

// InitNative says whether MatMulInitT's kernels start their tiles from init: not in this build, where it sets
// c's rows and adds (see the amd64 build's).
const InitNative = false

func matMulInitT(a, at, b, c, init []float32, m, k, n int) {
	setRows(c, init, m, n)
	matMulAdd(a, b, c, m, k, n)
}
