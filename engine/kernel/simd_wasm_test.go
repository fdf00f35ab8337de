//go:build js && wasm && wasmsimd

package kernel

import "testing"

// TestSIMDEnabled: in a wasmsimd build MatMulAdd must be the SIMD kernel, so the other tests compare it with the
// naive loop and with MatMulAddGo. (Run with web/node/go_js_wasm_exec_simd, which supplies the import.)
func TestSIMDEnabled(t *testing.T) {
	if !SIMD {
		t.Fatal("SIMD is false in a js && wasm && wasmsimd build")
	}
}
