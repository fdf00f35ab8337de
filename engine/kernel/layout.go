package kernel

import "strconv"

// Transpose sets dst[j*rows+i] = src[i*cols+j] for i < rows and j < cols: the transpose of the row-major
// [rows×cols] matrix src, bits copied (NaNs included). src and dst must not overlap. In a js/wasm build with the
// wasmsimd tag it runs matmul.wasm's transpose (SIMD); elsewhere TransposeGo.
//
// It panics if rows or cols is negative or a slice is shorter than rows*cols.
func Transpose(dst, src []float32, rows, cols int) {
	dst, src = checkLayout("Transpose", dst, src, rows, cols)
	if len(src) == 0 {
		return
	}
	transpose(dst, src, rows, cols)
}

// TransposeGo is Transpose always in Go: the reference the SIMD version is tested against in one binary.
func TransposeGo(dst, src []float32, rows, cols int) {
	dst, src = checkLayout("Transpose", dst, src, rows, cols)
	transposeGo(dst, src, rows, cols)
}

// ScaleRows sets dst[i*cols+j] = m[i]·src[i*cols+j] for i < rows and j < cols, each the float32 product rounded
// once, as Go's float32 multiplication gives it: the same bits in every build whenever the product is not a NaN
// (WebAssembly leaves a NaN's sign and payload to the engine). dst may be src. In a js/wasm build with the
// wasmsimd tag it runs matmul.wasm's scale_rows (SIMD); elsewhere ScaleRowsGo.
//
// It panics if rows or cols is negative, a slice is shorter than rows*cols or m than rows.
func ScaleRows(dst, src, m []float32, rows, cols int) {
	dst, src, m = checkScale(dst, src, m, rows, cols)
	if len(src) == 0 {
		return
	}
	scaleRows(dst, src, m, rows, cols)
}

// ScaleRowsGo is ScaleRows always in Go: the reference the SIMD version is tested against in one binary.
func ScaleRowsGo(dst, src, m []float32, rows, cols int) {
	dst, src, m = checkScale(dst, src, m, rows, cols)
	scaleRowsGo(dst, src, m, rows, cols)
}

func checkLayout(name string, dst, src []float32, rows, cols int) ([]float32, []float32) {
	if rows < 0 || cols < 0 || (cols > 0 && (rows > len(src)/cols || rows > len(dst)/cols)) {
		panic("kernel." + name + ": rows=" + strconv.Itoa(rows) + " cols=" + strconv.Itoa(cols) + " do not fit len(dst)=" +
			strconv.Itoa(len(dst)) + ", len(src)=" + strconv.Itoa(len(src)))
	}
	return dst[:rows*cols], src[:rows*cols]
}

func checkScale(dst, src, m []float32, rows, cols int) ([]float32, []float32, []float32) {
	dst, src = checkLayout("ScaleRows", dst, src, rows, cols)
	if len(m) < rows {
		panic("kernel.ScaleRows: len(m)=" + strconv.Itoa(len(m)) + " < rows=" + strconv.Itoa(rows))
	}
	return dst, src, m[:rows]
}

// transposeGo walks 32×32 tiles: cache-friendly, and in WebAssembly many short calls, which the browser
// optimises after the first few, where one long loop would run unoptimised to its end.
func transposeGo(dst, src []float32, rows, cols int) {
	const tile = 32
	for i0 := 0; i0 < rows; i0 += tile {
		for j0 := 0; j0 < cols; j0 += tile {
			transposeTile(dst, src, rows, cols, i0, min(i0+tile, rows), j0, min(j0+tile, cols))
		}
	}
}

// transposeTile sets dst[j·rows+i] = src[i·cols+j] for i in [i0, i1), j in [j0, j1).
//
//go:noinline
func transposeTile(dst, src []float32, rows, cols, i0, i1, j0, j1 int) {
	for i := i0; i < i1; i++ {
		row := src[i*cols : i*cols+j1]
		for j := j0; j < j1; j++ {
			dst[j*rows+i] = row[j]
		}
	}
}

func scaleRowsGo(dst, src, m []float32, rows, cols int) {
	for i, s := range m[:rows] {
		row, out := src[i*cols:(i+1)*cols], dst[i*cols:(i+1)*cols]
		out = out[:len(row)]
		for j, v := range row {
			out[j] = s * v
		}
	}
}
