//go:build js && wasm && wasmsimd

package kernel

import "unsafe"

// wasmReluRows and wasmMaskPositive are matmul.wasm's exports "relu_rows" and "mask_positive", supplied by the
// host under the import module "deltaclue_kernel" like matmul_add. They read and write only within the slices'
// lengths (rows*w, w; n) and keep no reference.
//
//go:wasmimport deltaclue_kernel relu_rows
//go:noescape
func wasmReluRows(in, dst, acc unsafe.Pointer, rows, w int32)

//go:wasmimport deltaclue_kernel mask_positive
//go:noescape
func wasmMaskPositive(dx, d, h unsafe.Pointer, n int32)

// The callers have checked the lengths and that rows, w and len(dx) are at least 1.
func reluRows(in, dst []float32, acc []uint32, rows, w int) {
	wasmReluRows(unsafe.Pointer(&in[0]), unsafe.Pointer(&dst[0]), unsafe.Pointer(&acc[0]), int32(rows), int32(w))
}

func maskPositive(dx, d, h []float32) {
	wasmMaskPositive(unsafe.Pointer(&dx[0]), unsafe.Pointer(&d[0]), unsafe.Pointer(&h[0]), int32(len(dx)))
}
