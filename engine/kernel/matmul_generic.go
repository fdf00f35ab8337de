//go:build !(js && wasm && wasmsimd) && (!amd64 || purego)

package kernel

// Native names the kernel MatMulAdd runs: "go" (the pure-Go kernel) in this build. On amd64 (without the purego
// tag) it is "avx512", "avx2" or "go", chosen at start-up; "wasmsimd" in a js/wasm build with the wasmsimd tag.
var Native = "go"

// SparsePays says whether multiplying only a matrix's listed nonzero values (MatMulAddSparse) outruns MatMulAdd
// on a ReLU's output: with the pure-Go kernel, yes.
const SparsePays = true

func matMulAdd(a, b, c []float32, m, k, n int) { matMulAddGo(a, b, c, m, k, n) }

func matMulAddT(a, _, b, c []float32, m, k, n int) { matMulAddGo(a, b, c, m, k, n) }

// InitNative says whether MatMulInitT's kernels start their tiles from init: not in this build, where it sets
// c's rows and adds (see the amd64 build's).
const InitNative = false

func matMulInitT(a, at, b, c, init []float32, m, k, n int) {
	setRows(c, init, m, n)
	matMulAddT(a, at, b, c, m, k, n)
}
