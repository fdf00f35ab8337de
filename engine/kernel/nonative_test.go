//go:build !amd64 || purego

package kernel

// altKernels returns the kernels MatMulAdd can run in this build besides the pure-Go one: the WebAssembly SIMD
// kernel in a wasmsimd build, none otherwise.
func altKernels() []namedKernel {
	if SIMD {
		return []namedKernel{{"wasmsimd", MatMulAdd}}
	}
	return nil
}
