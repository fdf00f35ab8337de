//go:build !(js && wasm && wasmsimd)

package kernel

func transpose(dst, src []float32, rows, cols int) { transposeGo(dst, src, rows, cols) }

func packCols(dst, src []float32, rows, w int, idx []int32) { packColsGo(dst, src, rows, w, idx) }

func scaleRows(dst, src, m []float32, rows, cols int) { scaleRowsGo(dst, src, m, rows, cols) }

func sparseTranspose(s *Sparse, d []float32) { sparseTransposeGo(s, d) }

func sparseGather(s *Sparse, src []float32, w *Windows) { sparseGatherGo(s, src, w) }

func sparseMatMul(a *Sparse, b, c []float32, n int, zero bool) { sparseMatMulGo(a, b, c, n, zero) }

func sparseRows(s *Sparse, d []float32) int { return sparseRowsGo(s, d) }

func scatterPairs(dst, src []float32, x *Pairs) { scatterPairsGo(dst, src, x) }

func sigmoid(out, e, x []float32) bool { return false } // (the engine's own loop)

func addToSIMD(dst, a, b []float32) bool { return addTo(dst, a, b) } // (natively the AVX loops; else Go's loop)

func l1Rows(out, x, t []float32, rows, cols, stride int) { L1RowsGo(out, x, t, rows, cols, stride) }

func l1Grad(dx, x, t, g []float32, rows, cols, stride int) { L1GradGo(dx, x, t, g, rows, cols, stride) }

func meanPlanes(dst, src []float32, size int, n float32) { MeanPlanesGo(dst, src, size, n) }

func addPlanes(dst, src []float32, size int, n float32) { AddPlanesGo(dst, src, size, n) }
