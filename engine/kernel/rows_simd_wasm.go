//go:build js && wasm && wasmsimd

package kernel

import "unsafe"

// RowsInPlace says whether MatMulAddRows runs a kernel (matmul.wasm's) that outruns copying B's rows and calling
// MatMulAdd: in this build, yes.
const RowsInPlace = true

// wasmMatMulAddRows is matmul.wasm's export "matmul_add_rows", supplied like matmul_add. It reads a, the n values
// at each of b's k offsets and the table, writes c's m rows of n values ldc apart, and keeps no reference.
//
//go:wasmimport deltaclue_kernel matmul_add_rows
//go:noescape
func wasmMatMulAddRows(a, b, offs, c unsafe.Pointer, m, k, n, ldc int32)

// The caller has checked every row and m, k, n >= 1.
func matMulAddRows(a, b []float32, offs []int32, c []float32, m, k, n, ldc int) {
	wasmMatMulAddRows(unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&offs[0]), unsafe.Pointer(&c[0]),
		int32(m), int32(k), int32(n), int32(ldc))
}

// wasmPlanesGrad is matmul.wasm's export "planes_grad", supplied like matmul_add; dims holds cig, taps, m, n, sb
// and sd (the host's trampolines pass at most 9 numbers).
//
//go:wasmimport deltaclue_kernel planes_grad
//go:noescape
func wasmPlanesGrad(a, b, shifts, dst, dims unsafe.Pointer)

// The caller has checked every address and that cig, taps, m, n are at least 1.
func planesGrad(a, b []float32, b0 int, shifts []int32, dst []float32, cig, taps, m, n, sb, sd int) {
	dims := [6]int32{int32(cig), int32(taps), int32(m), int32(n), int32(sb), int32(sd)}
	wasmPlanesGrad(unsafe.Pointer(&a[0]), unsafe.Pointer(&b[b0]), unsafe.Pointer(&shifts[0]), unsafe.Pointer(&dst[0]), unsafe.Pointer(&dims[0]))
}

// wasmMoveRows is matmul.wasm's export "move_rows", supplied like matmul_add (mode: 1 add, 2 the table on src's
// side).
//
//go:wasmimport deltaclue_kernel move_rows
//go:noescape
func wasmMoveRows(dst, src, offs unsafe.Pointer, rows, w, mode int32)

// The caller has checked every row and that there is at least one row of at least one value.
func moveRows(dst, src []float32, offs []int32, w int, onDst, add bool) {
	mode := int32(0)
	if add {
		mode |= 1
	}
	if !onDst {
		mode |= 2
	}
	wasmMoveRows(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&offs[0]), int32(len(offs)), int32(w), mode)
}
