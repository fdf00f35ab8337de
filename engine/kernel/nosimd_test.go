//go:build !(js && wasm && wasmsimd)

package kernel

import "testing"

func TestSIMDDisabled(t *testing.T) {
	if SIMD {
		t.Fatal("SIMD is true outside a js && wasm && wasmsimd build")
	}
}
