package kernel

import (
	"math"
	"strconv"
)

// ReluRows computes the rectifier of rows × w values and, per column, the OR of the results' bits: for every
// row i and column j (row-major, stride w), with u the bits of in[i*w+j],
//
//	dst[i*w+j] = bits u &^ (neg &^ nan)    (neg: all ones if u's sign bit is set; nan: all ones if u is a NaN)
//	acc[j]    |= those bits
//
// that is, +0 for every value ≤ 0 (-0 and -Inf included) and the value itself otherwise, a NaN's bits untouched;
// acc[j] is nonzero iff some row's result in column j is > 0 or a NaN. Integer operations only, so every build
// gives the same bits. in and dst may be the same slice. In a js/wasm build with the wasmsimd tag it runs
// matmul.wasm's relu_rows (SIMD); natively AVX-512 or AVX2 where MatMulAdd runs it (loops_amd64.s); elsewhere
// ReluRowsGo.
//
// It panics if rows or w is negative or a slice is shorter than the rows it holds.
func ReluRows(in, dst []float32, acc []uint32, rows, w int) {
	in, dst, acc = checkRows(in, dst, acc, rows, w)
	if rows == 0 || w == 0 {
		return
	}
	reluRows(in, dst, acc, rows, w)
}

// Relu sets dst[t] to the bits ReluBits gives for in[t], for t < len(in): ReluRows' values without the columns'
// OR. in and dst may be the same slice. In a wasmsimd build it runs matmul.wasm's relu (an image layer's: a
// DenseOnly build does not call it); elsewhere ReluGo.
//
// It panics if dst is shorter than in.
func Relu(dst, in []float32) {
	dst = dst[:len(in)]
	if len(in) == 0 {
		return
	}
	relu(dst, in)
}

// ReluGo is Relu always in Go: the reference the SIMD version is tested against.
func ReluGo(dst, in []float32) {
	dst = dst[:len(in)]
	for i, v := range in {
		dst[i] = math.Float32frombits(ReluBits(math.Float32bits(v)))
	}
}

// PackCols copies columns idx of the rows × w values of src (row-major, stride w), row by row, into dst packed
// (stride len(idx)): dst[i·n + t] = src[i·w + idx[t]], bits and all. dst and src may be the same slice when idx
// is increasing: a compaction packs a batch's active columns in place. In a js/wasm build with the wasmsimd tag
// it runs matmul.wasm's pack_cols, one call for the batch (Go's loop compiled to WASM cost more than the products
// packing saves, on the credit model's 64-unit layers); elsewhere PackColsGo.
//
// It panics if rows or w is negative, a slice is shorter than its rows, or an index is outside [0, w).
func PackCols(dst, src []float32, rows, w int, idx []int32) {
	dst, src = checkPack(dst, src, rows, w, idx)
	if rows == 0 || len(idx) == 0 {
		return
	}
	packCols(dst, src, rows, w, idx)
}

// PackColsGo is PackCols always in Go: the reference the SIMD version is tested against.
func PackColsGo(dst, src []float32, rows, w int, idx []int32) {
	dst, src = checkPack(dst, src, rows, w, idx)
	packColsGo(dst, src, rows, w, idx)
}

func checkPack(dst, src []float32, rows, w int, idx []int32) ([]float32, []float32) {
	n := len(idx)
	if rows < 0 || w < 0 || n > w && rows > 0 || rows*w > len(src) || rows*n > len(dst) {
		panic("kernel.PackCols: rows=" + strconv.Itoa(rows) + " w=" + strconv.Itoa(w) + " n=" + strconv.Itoa(n) +
			" do not fit len(src)=" + strconv.Itoa(len(src)) + ", len(dst)=" + strconv.Itoa(len(dst)))
	}
	for _, j := range idx {
		if j < 0 || int(j) >= w {
			panic("kernel.PackCols: column " + strconv.Itoa(int(j)) + " outside a row of " + strconv.Itoa(w))
		}
	}
	return dst[:rows*n], src[:rows*w]
}

func packColsGo(dst, src []float32, rows, w int, idx []int32) {
	n := len(idx)
	for i := 0; i < rows; i++ {
		d, row := dst[i*n:(i+1)*n], src[i*w:(i+1)*w]
		t := 0
		for ; t+4 <= n; t += 4 {
			x := idx[t : t+4 : t+4]
			o := d[t : t+4 : t+4]
			o[0], o[1], o[2], o[3] = row[x[0]], row[x[1]], row[x[2]], row[x[3]]
		}
		for ; t < n; t++ {
			d[t] = row[idx[t]]
		}
	}
}

// ReluRowsGo is ReluRows always in Go: the reference the SIMD version is tested against in one binary.
func ReluRowsGo(in, dst []float32, acc []uint32, rows, w int) {
	in, dst, acc = checkRows(in, dst, acc, rows, w)
	reluRowsGo(in, dst, acc, rows, w)
}

func checkRows(in, dst []float32, acc []uint32, rows, w int) ([]float32, []float32, []uint32) {
	if rows < 0 || w < 0 || (w > 0 && rows > len(in)/w) || (w > 0 && rows > len(dst)/w) || len(acc) < w {
		panic("kernel.ReluRows: rows=" + strconv.Itoa(rows) + " w=" + strconv.Itoa(w) + " do not fit len(in)=" +
			strconv.Itoa(len(in)) + ", len(dst)=" + strconv.Itoa(len(dst)) + ", len(acc)=" + strconv.Itoa(len(acc)))
	}
	return in[:rows*w], dst[:rows*w], acc[:w]
}

func reluRowsGo(in, dst []float32, acc []uint32, rows, w int) {
	for i := 0; i < rows; i++ {
		row, out := in[i*w:(i+1)*w], dst[i*w:(i+1)*w]
		out = out[:len(row)]
		a := acc[:len(row)]
		for j, v := range row {
			u := ReluBits(math.Float32bits(v))
			out[j] = math.Float32frombits(u)
			a[j] |= u
		}
	}
}

// ReluBits returns the bits of ReLU(v) for the bits u of v: +0 for every v ≤ 0 (-0 and -Inf included), else v
// itself (a NaN with its bits untouched, as `if v <= 0 { v = 0 }` gives). Integer operations only: no branch to
// mispredict, and no float max, which Go compiles to a runtime call in WASM.
func ReluBits(u uint32) uint32 {
	neg := uint32(int32(u) >> 31)                         // all ones if the sign bit is set
	nan := uint32(int32(0x7f800000-(u&0x7fffffff)) >> 31) // all ones if v is a NaN
	return u &^ (neg &^ nan)
}

// MaskPositive sets dx[t] to d[t] where h[t] > 0 and to +0 elsewhere (a NaN h[t] included), for t < len(dx):
// d's bits and-ed with all ones or none, so every build gives the same bits. dx may be d. In a js/wasm build
// with the wasmsimd tag it runs matmul.wasm's mask_positive (SIMD); natively AVX-512 or AVX2; elsewhere
// MaskPositiveGo.
//
// It panics if d or h is shorter than dx.
func MaskPositive(dx, d, h []float32) {
	d, h = checkMask(dx, d, h)
	if len(dx) == 0 {
		return
	}
	maskPositive(dx, d, h)
}

// MaskPositiveGo is MaskPositive always in Go: the reference the SIMD version is tested against.
func MaskPositiveGo(dx, d, h []float32) {
	d, h = checkMask(dx, d, h)
	maskPositiveGo(dx, d, h)
}

func checkMask(dx, d, h []float32) ([]float32, []float32) {
	if len(d) < len(dx) || len(h) < len(dx) {
		panic("kernel.MaskPositive: len(dx)=" + strconv.Itoa(len(dx)) + " > len(d)=" + strconv.Itoa(len(d)) + " or len(h)=" + strconv.Itoa(len(h)))
	}
	return d[:len(dx)], h[:len(dx)]
}

func maskPositiveGo(dx, d, h []float32) {
	d, h = d[:len(dx)], h[:len(dx)]
	for t, v := range h {
		dx[t] = Masked(d[t], v)
	}
}

// Masked is d where v > 0 and +0 elsewhere (a NaN v included): d's bits and-ed with all ones or none, without a
// branch. MaskPositive does this over slices; the engine's ReLU uses it alone where only some columns are packed.
func Masked(d, v float32) float32 {
	var m uint32
	if v > 0 {
		m = ^uint32(0)
	}
	return math.Float32frombits(math.Float32bits(d) & m)
}

// AddWherePositive adds d[t] to dx[t] where h[t] > 0 and leaves dx[t] alone elsewhere (a NaN h[t] included), for
// t < len(dx): the rectifier's backward pass at full width, `if h > 0 { dx += d }`, bit for bit (a -0 in dx
// stays -0 where h ≤ 0). In a js/wasm build with the wasmsimd tag it runs matmul.wasm's add_positive (SIMD);
// natively AVX-512 or AVX2; elsewhere AddWherePositiveGo.
//
// It panics if d or h is shorter than dx.
func AddWherePositive(dx, d, h []float32) {
	d, h = checkMask(dx, d, h)
	if len(dx) == 0 {
		return
	}
	addWherePositive(dx, d, h)
}

// SetWherePositive sets dx[t] to +0 + d[t] where h[t] > 0 and to +0 elsewhere (a NaN h[t] included), for
// t < len(dx): AddWherePositive onto a dx of +0, bit for bit (a -0 in d becomes +0 as +0 + -0 does), for a
// gradient nothing else writes, which then need not be cleared first. In a wasmsimd build it runs matmul.wasm's
// set_positive (an image layer's: a DenseOnly build does not call it); elsewhere SetWherePositiveGo.
//
// It panics if d or h is shorter than dx.
func SetWherePositive(dx, d, h []float32) {
	d, h = checkMask(dx, d, h)
	if len(dx) == 0 {
		return
	}
	setWherePositive(dx, d, h)
}

// SetWherePositiveGo is SetWherePositive always in Go: the reference the SIMD version is tested against.
func SetWherePositiveGo(dx, d, h []float32) {
	d, h = checkMask(dx, d, h)
	setWherePositiveGo(dx, d, h)
}

func setWherePositiveGo(dx, d, h []float32) {
	d, h = d[:len(dx)], h[:len(dx)]
	for t, v := range h {
		u := math.Float32bits(d[t])
		u &^= uint32(int32(u^0x80000000-1)>>31) & 0x80000000 // -0 → +0, as +0 + -0
		var m uint32
		if v > 0 {
			m = ^uint32(0)
		}
		dx[t] = math.Float32frombits(u & m)
	}
}

// AddWherePositiveGo is AddWherePositive always in Go: the reference the SIMD version is tested against.
func AddWherePositiveGo(dx, d, h []float32) {
	d, h = checkMask(dx, d, h)
	addWherePositiveGo(dx, d, h)
}

// addWherePositiveGo computes every sum and keeps it or dx's bits by a mask, without a branch: the rectifier's
// pattern is as good as random, and natively the branch's mispredictions took 17 % of the example ResNet's step.
func addWherePositiveGo(dx, d, h []float32) {
	d, h = d[:len(dx)], h[:len(dx)]
	for t, v := range h {
		x := dx[t]
		s := x + d[t]
		var m uint32
		if v > 0 {
			m = ^uint32(0)
		}
		dx[t] = math.Float32frombits(math.Float32bits(s)&m | math.Float32bits(x)&^m)
	}
}

// Sigmoid is the engine's sigmoid in the SIMD module, where there is one: for i < len(x), with ei = e^{−|x[i]|}
// by fmath.Exp's steps in float64, e[i] = float32(ei) and out[i] = float32((x[i] < 0 ? ei : 1)/(1 + ei)), the
// same float64 operations in the same order as engine's sigmoidOp, two at a time. It reports whether it did:
// not in a build without the SIMD module, nor when some value needs one of Exp's special cases (a NaN, |x|
// above 708 or below 2^−28), whose slice the caller then computes itself (out and e hold garbage then).
//
// It panics if out or e is shorter than x.
func Sigmoid(out, e, x []float32) bool {
	if len(x) == 0 {
		return true
	}
	_, _ = out[len(x)-1], e[len(x)-1] // (the bounds are the check: a message would cost the worker's download)
	return sigmoid(out, e, x)
}

// AddTo sets dst[t] = a[t] + b[t] for t < len(dst), each sum rounded once to float32, as Go's float32 addition
// gives it: the same bits in every build whenever the sum is not a NaN (WebAssembly leaves a NaN's sign and
// payload to the engine). dst may be a or b, but must not overlap them otherwise. In a wasmsimd build it runs
// matmul.wasm's add_to (four sums a lane); natively the AVX-512 or AVX2 loop (add512, add256: VADDPS, a first);
// elsewhere AddToGo.
//
// It panics if a or b is shorter than dst.
func AddTo(dst, a, b []float32) {
	a, b = checkAdd(dst, a, b)
	if len(dst) == 0 {
		return
	}
	if !addToSIMD(dst, a, b) {
		addToGo(dst, a, b)
	}
}

// AddToGo is AddTo always in Go: the reference the SIMD version is tested against.
func AddToGo(dst, a, b []float32) {
	a, b = checkAdd(dst, a, b)
	addToGo(dst, a, b)
}

func checkAdd(dst, a, b []float32) ([]float32, []float32) {
	if len(a) < len(dst) || len(b) < len(dst) {
		panic("kernel.AddTo: len(dst)=" + strconv.Itoa(len(dst)) + " > len(a)=" + strconv.Itoa(len(a)) + " or len(b)=" + strconv.Itoa(len(b)))
	}
	return a[:len(dst)], b[:len(dst)]
}

func addToGo(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for t := range dst {
		dst[t] = a[t] + b[t]
	}
}

// L1Rows sets out[r], for r < rows, to the float32 rounding of the float64 sum, from +0 in column order, of
// |x[r·cols + j] − t[r·stride + j]| for j < cols (each difference rounded to float32, then widened exactly): the
// engine's L1 distance of each row to its target (stride 0: one target for every row). In a wasmsimd build it
// runs matmul.wasm's l1_rows; elsewhere L1RowsGo. The same bits whenever no difference is a NaN.
//
// It panics if a slice is shorter than its rows.
func L1Rows(out, x, t []float32, rows, cols, stride int) {
	checkL1(len(out), x, t, rows, cols, stride)
	if rows == 0 || cols == 0 {
		L1RowsGo(out, x, t, rows, cols, stride)
		return
	}
	l1Rows(out, x, t, rows, cols, stride)
}

// L1RowsGo is L1Rows always in Go: the reference the SIMD version is tested against.
func L1RowsGo(out, x, t []float32, rows, cols, stride int) {
	checkL1(len(out), x, t, rows, cols, stride)
	for r := 0; r < rows; r++ {
		var d float64
		tr := t[r*stride : r*stride+cols]
		for j, v := range x[r*cols : (r+1)*cols] {
			e := v - tr[j]
			if e < 0 {
				e = -e
			}
			d += float64(e)
		}
		out[r] = float32(d)
	}
}

// L1Grad adds, for r < rows and j < cols, g[r] to dx[r·cols + j] where x[r·cols + j] > t[r·stride + j] and
// subtracts it where x is less (nothing where they are equal or either is a NaN): L1Rows' backward. In a wasmsimd
// build it runs matmul.wasm's l1_grad; elsewhere L1GradGo.
//
// It panics if a slice is shorter than its rows.
func L1Grad(dx, x, t, g []float32, rows, cols, stride int) {
	checkL1(len(g), x, t, rows, cols, stride)
	if len(dx) < rows*cols {
		panic("kernel.L1Grad: dx shorter than its rows")
	}
	if rows == 0 || cols == 0 {
		return
	}
	l1Grad(dx, x, t, g, rows, cols, stride)
}

// L1GradGo is L1Grad always in Go: the reference the SIMD version is tested against.
func L1GradGo(dx, x, t, g []float32, rows, cols, stride int) {
	checkL1(len(g), x, t, rows, cols, stride)
	for r := 0; r < rows; r++ {
		gr := g[r]
		xr, dr, tr := x[r*cols:(r+1)*cols], dx[r*cols:(r+1)*cols], t[r*stride:r*stride+cols]
		for j, v := range xr {
			switch {
			case v > tr[j]:
				dr[j] += gr
			case v < tr[j]:
				dr[j] -= gr
			}
		}
	}
}

func checkL1(nout int, x, t []float32, rows, cols, stride int) {
	if rows < 0 || cols < 0 || stride < 0 || nout < rows || len(x) < rows*cols || rows > 0 && len(t) < (rows-1)*stride+cols {
		panic("kernel.L1Rows: rows=" + strconv.Itoa(rows) + " cols=" + strconv.Itoa(cols) + " stride=" + strconv.Itoa(stride) + " do not fit the slices")
	}
}

// MeanPlanes sets dst[p], for p < len(dst), to (the float32 sum, from +0 in order, of src[p·size … (p+1)·size))
// divided by n: a global average pool. In a wasmsimd build it runs matmul.wasm's mean_planes; elsewhere
// MeanPlanesGo.
//
// It panics if src is shorter than len(dst)·size.
func MeanPlanes(dst, src []float32, size int, n float32) {
	if size < 0 || len(src) < len(dst)*size {
		panic("kernel.MeanPlanes: src shorter than its planes")
	}
	if len(dst) == 0 || size == 0 {
		MeanPlanesGo(dst, src, size, n)
		return
	}
	meanPlanes(dst, src, size, n)
}

// MeanPlanesGo is MeanPlanes always in Go: the reference the SIMD version is tested against.
func MeanPlanesGo(dst, src []float32, size int, n float32) {
	for p := range dst {
		var s float32
		for _, v := range src[p*size : (p+1)*size] {
			s += v
		}
		dst[p] = s / n
	}
}

// AddPlanes adds src[p] / n to each of dst[p·size … (p+1)·size), for p < len(src): a global average pool's
// backward. In a wasmsimd build it runs matmul.wasm's add_planes; elsewhere AddPlanesGo.
//
// It panics if dst is shorter than len(src)·size.
func AddPlanes(dst, src []float32, size int, n float32) {
	if size < 0 || len(dst) < len(src)*size {
		panic("kernel.AddPlanes: dst shorter than its planes")
	}
	if len(src) == 0 || size == 0 {
		return
	}
	addPlanes(dst, src, size, n)
}

// AddPlanesGo is AddPlanes always in Go: the reference the SIMD version is tested against.
func AddPlanesGo(dst, src []float32, size int, n float32) {
	for p, v := range src {
		d := v / n
		row := dst[p*size : (p+1)*size]
		for i := range row {
			row[i] += d
		}
	}
}

// ExpTo sets dst[i] = fmath.Exp(src[i]) for i < len(src) in the SIMD module, where there is one: fmath.ExpTo's
// float64 steps in the same order, two at a time (1 + x where |x| < 2^−28). It reports whether it did: not in a
// build without the SIMD module (nor in a DenseOnly build's, which leaves it out: the caller's job), nor when some
// value needs another of Exp's cases (a NaN, x above 709.78 or below −707.7 where the result is subnormal or 0),
// whose slice the caller then computes itself with fmath.ExpTo (dst holds garbage then).
//
// It panics if dst is shorter than src.
func ExpTo(dst, src []float64) bool {
	if len(src) == 0 {
		return true
	}
	_ = dst[len(src)-1]
	return expTo(dst, src)
}
