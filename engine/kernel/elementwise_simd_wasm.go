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

// wasmAddPositive is matmul.wasm's export "add_positive", supplied like the others; it reads and writes only
// within n values of each slice.
//
//go:wasmimport deltaclue_kernel add_positive
//go:noescape
func wasmAddPositive(dx, d, h unsafe.Pointer, n int32)

// The caller has checked the lengths and that len(dx) is at least 1.
func addWherePositive(dx, d, h []float32) {
	wasmAddPositive(unsafe.Pointer(&dx[0]), unsafe.Pointer(&d[0]), unsafe.Pointer(&h[0]), int32(len(dx)))
}

// wasmTranspose and wasmScaleRows are matmul.wasm's exports "transpose" and "scale_rows", supplied like the
// others; they read and write only within rows*cols values (and rows of m).
//
//go:wasmimport deltaclue_kernel transpose
//go:noescape
func wasmTranspose(src, dst unsafe.Pointer, rows, cols int32)

//go:wasmimport deltaclue_kernel scale_rows
//go:noescape
func wasmScaleRows(src, dst, m unsafe.Pointer, rows, cols int32)

// The callers have checked the lengths and that rows*cols is at least 1.
func transpose(dst, src []float32, rows, cols int) {
	wasmTranspose(unsafe.Pointer(&src[0]), unsafe.Pointer(&dst[0]), int32(rows), int32(cols))
}

func scaleRows(dst, src, m []float32, rows, cols int) {
	wasmScaleRows(unsafe.Pointer(&src[0]), unsafe.Pointer(&dst[0]), unsafe.Pointer(&m[0]), int32(rows), int32(cols))
}

// wasmPackCols is matmul.wasm's export "pack_cols", supplied like the others; it reads and writes only within
// the sizes and columns PackCols checked.
//
//go:wasmimport deltaclue_kernel pack_cols
//go:noescape
func wasmPackCols(dst, src, idx unsafe.Pointer, rows, w, n int32)

func packCols(dst, src []float32, rows, w int, idx []int32) {
	wasmPackCols(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&idx[0]), int32(rows), int32(w), int32(len(idx)))
}

// wasmGatherIdx and wasmScatterIdx are matmul.wasm's exports "gather_idx" and "scatter_idx", supplied like the
// others; they touch only the n positions the caller checked (Index.check).
//
//go:wasmimport deltaclue_kernel gather_idx
//go:noescape
func wasmGatherIdx(dst, src, idx unsafe.Pointer, n int32)

//go:wasmimport deltaclue_kernel scatter_idx
//go:noescape
func wasmScatterIdx(dst, src, idx unsafe.Pointer, n int32)

// The callers have checked the positions and that there is at least one.
func gatherIdx(dst, src []float32, idx []int32) {
	wasmGatherIdx(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&idx[0]), int32(len(idx)))
}

func scatterIdx(dst, src []float32, idx []int32) {
	wasmScatterIdx(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&idx[0]), int32(len(idx)))
}

// wasmSparseTranspose, wasmSparseGather, wasmSparseRows and wasmSparseMatMul are matmul.wasm's exports
// "sparse_transpose", "sparse_gather", "sparse_rows" and "sparse_matmul", supplied like the others; they read and write only within the sizes the
// callers checked (a Sparse's rows × cols entries, its rows' counts, the positions of an Index).
//
//go:wasmimport deltaclue_kernel sparse_transpose
//go:noescape
func wasmSparseTranspose(d, n, col, val unsafe.Pointer, rows, cols int32)

//go:wasmimport deltaclue_kernel sparse_gather
//go:noescape
func wasmSparseGather(src, wn, wcol, wpos, n, col, val unsafe.Pointer, rows, cols int32)

//go:wasmimport deltaclue_kernel sparse_rows
//go:noescape
func wasmSparseRows(d, n, col, val unsafe.Pointer, rows, cols int32) int32

//go:wasmimport deltaclue_kernel sparse_matmul
//go:noescape
func wasmSparseMatMul(c, b, n, col, val unsafe.Pointer, rows, cols, width, zero int32)

// The callers have checked the sizes and that s has at least one row and one column (and d one value).
func sparseTranspose(s *Sparse, d []float32) {
	wasmSparseTranspose(unsafe.Pointer(&d[0]), unsafe.Pointer(&s.N[0]), unsafe.Pointer(&s.Col[0]), unsafe.Pointer(&s.Val[0]), int32(s.Rows), int32(s.Cols))
}

func sparseGather(s *Sparse, src []float32, w *Windows) {
	wasmSparseGather(unsafe.Pointer(&src[0]), unsafe.Pointer(&w.N[0]), unsafe.Pointer(&w.Col[0]), unsafe.Pointer(&w.Pos[0]),
		unsafe.Pointer(&s.N[0]), unsafe.Pointer(&s.Col[0]), unsafe.Pointer(&s.Val[0]), int32(s.Rows), int32(s.Cols))
}

func sparseMatMul(a *Sparse, b, c []float32, n int, zero bool) {
	z := int32(0)
	if zero {
		z = 1
	}
	wasmSparseMatMul(unsafe.Pointer(&c[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&a.N[0]), unsafe.Pointer(&a.Col[0]), unsafe.Pointer(&a.Val[0]), int32(a.Rows), int32(a.Cols), int32(n), z)
}

func sparseRows(s *Sparse, d []float32) int {
	return int(wasmSparseRows(unsafe.Pointer(&d[0]), unsafe.Pointer(&s.N[0]), unsafe.Pointer(&s.Col[0]), unsafe.Pointer(&s.Val[0]), int32(s.Rows), int32(s.Cols)))
}

// wasmScatterPairs is matmul.wasm's export "scatter_pairs", supplied like the others; it touches only the
// positions the caller checked (Pairs.check).
//
//go:wasmimport deltaclue_kernel scatter_pairs
//go:noescape
func wasmScatterPairs(dst, src, pd, ps unsafe.Pointer, n int32)

// The caller has checked the positions and that there is at least one pair.
func scatterPairs(dst, src []float32, x *Pairs) {
	wasmScatterPairs(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), unsafe.Pointer(&x.Dst[0]), unsafe.Pointer(&x.Src[0]), int32(len(x.Dst)))
}

// wasmSigmoid is matmul.wasm's export "sigmoid", supplied like the others; it reads n values of x and writes n of
// out and e.
//
//go:wasmimport deltaclue_kernel sigmoid
//go:noescape
func wasmSigmoid(x, out, e unsafe.Pointer, n int32) int32

// The caller has checked the lengths and that there is at least one value.
func sigmoid(out, e, x []float32) bool {
	return wasmSigmoid(unsafe.Pointer(&x[0]), unsafe.Pointer(&out[0]), unsafe.Pointer(&e[0]), int32(len(x))) == 0
}

// wasmAddTo is matmul.wasm's export "add_to", supplied like the others; it reads n values of a and b and writes n
// of dst (which may be a or b).
//
//go:wasmimport deltaclue_kernel add_to
//go:noescape
func wasmAddTo(dst, a, b unsafe.Pointer, n int32)

// addToSIMD runs add_to: a + b a lane at a time, the bits of the product by one it replaces (1·b is b) without
// matmul_add's call per 8 columns. The caller has checked the lengths and that there is at least one value.
func addToSIMD(dst, a, b []float32) bool {
	wasmAddTo(unsafe.Pointer(&dst[0]), unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), int32(len(dst)))
	return true
}

// wasmL1Rows and wasmL1Grad are matmul.wasm's exports "l1_rows" and "l1_grad", supplied like the others; they read
// rows·cols values of x (and dx), each row's cols values of t stride apart, and write rows values of out (rows·cols
// of dx).
//
//go:wasmimport deltaclue_kernel l1_rows
//go:noescape
func wasmL1Rows(x, t, out unsafe.Pointer, rows, cols, stride int32)

//go:wasmimport deltaclue_kernel l1_grad
//go:noescape
func wasmL1Grad(dx, x, t, g unsafe.Pointer, rows, cols, stride int32)

// The callers have checked the lengths and that rows and cols are at least 1.
func l1Rows(out, x, t []float32, rows, cols, stride int) {
	wasmL1Rows(unsafe.Pointer(&x[0]), unsafe.Pointer(&t[0]), unsafe.Pointer(&out[0]), int32(rows), int32(cols), int32(stride))
}

func l1Grad(dx, x, t, g []float32, rows, cols, stride int) {
	wasmL1Grad(unsafe.Pointer(&dx[0]), unsafe.Pointer(&x[0]), unsafe.Pointer(&t[0]), unsafe.Pointer(&g[0]), int32(rows), int32(cols), int32(stride))
}

// wasmMeanPlanes and wasmAddPlanes are matmul.wasm's exports "mean_planes" and "add_planes", supplied like the
// others; they read and write planes values of one side and planes·size of the other.
//
//go:wasmimport deltaclue_kernel mean_planes
//go:noescape
func wasmMeanPlanes(src, dst unsafe.Pointer, planes, size int32, n float32)

//go:wasmimport deltaclue_kernel add_planes
//go:noescape
func wasmAddPlanes(dst, src unsafe.Pointer, planes, size int32, n float32)

// The callers have checked the lengths and that there is at least one plane of at least one value.
func meanPlanes(dst, src []float32, size int, n float32) {
	wasmMeanPlanes(unsafe.Pointer(&src[0]), unsafe.Pointer(&dst[0]), int32(len(dst)), int32(size), n)
}

func addPlanes(dst, src []float32, size int, n float32) {
	wasmAddPlanes(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), int32(len(src)), int32(size), n)
}

// wasmRelu is matmul.wasm's export "relu", supplied like the others; it reads n values of in and writes n of dst.
//
//go:wasmimport deltaclue_kernel relu
//go:noescape
func wasmRelu(in, dst unsafe.Pointer, n int32)

// The caller has checked the lengths and that there is at least one value.
func relu(dst, in []float32) {
	wasmRelu(unsafe.Pointer(&in[0]), unsafe.Pointer(&dst[0]), int32(len(in)))
}

// wasmExpTo is matmul.wasm's export "exp_to", supplied like the others; it reads n float64 of src and writes n of
// dst, and returns how many values need Exp's other cases.
//
//go:wasmimport deltaclue_kernel exp_to
//go:noescape
func wasmExpTo(src, dst unsafe.Pointer, n int32) int32

// The caller has checked the lengths and that there is at least one value.
func expTo(dst, src []float64) bool {
	return wasmExpTo(unsafe.Pointer(&src[0]), unsafe.Pointer(&dst[0]), int32(len(src))) == 0
}

// wasmSetPositive is matmul.wasm's export "set_positive", supplied like the others; it reads n values of d and h
// and writes n of dx.
//
//go:wasmimport deltaclue_kernel set_positive
//go:noescape
func wasmSetPositive(dx, d, h unsafe.Pointer, n int32)

// The caller has checked the lengths and that len(dx) is at least 1.
func setWherePositive(dx, d, h []float32) {
	wasmSetPositive(unsafe.Pointer(&dx[0]), unsafe.Pointer(&d[0]), unsafe.Pointer(&h[0]), int32(len(dx)))
}
