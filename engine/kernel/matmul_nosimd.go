//go:build !(js && wasm && wasmsimd)

package kernel

// SIMD reports whether MatMulAdd runs the WebAssembly SIMD kernel (matmul.wasm). It is true only in
// GOOS=js GOARCH=wasm builds with the wasmsimd build tag; in this build MatMulAdd runs the pure-Go kernel or, on
// amd64, the native SIMD kernel named by Native.
const SIMD = false
