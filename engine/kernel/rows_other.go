//go:build !(js && wasm && wasmsimd) && !(amd64 && !purego)

package kernel

// RowsInPlace says whether MatMulAddRows runs a kernel (matmul.wasm's) that outruns copying B's rows and calling
// MatMulAdd: in this build it is a plain loop, for tests.
const RowsInPlace = false

func matMulAddRows(a, b []float32, offs []int32, c []float32, m, k, n, ldc int) {
	matMulAddRowsGo(a, b, offs, c, m, k, n, ldc)
}

func planesGrad(a, b []float32, b0 int, shifts []int32, dst []float32, cig, taps, m, n, sb, sd int) {
	planesGradGo(a, b, b0, shifts, dst, cig, taps, m, n, sb, sd)
}

func moveRows(dst, src []float32, offs []int32, w int, onDst, add bool) {
	moveRowsGo(dst, src, offs, w, onDst, add)
}
