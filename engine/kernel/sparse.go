package kernel

import "strconv"

// Sparse is a matrix [Rows × Cols] held by its rows' nonzero values: row i lists N[i] values, at Col[i*Cols:]
// (their columns, increasing) and Val[i*Cols:]. A value is listed when it is not equal to zero, so NaNs are
// and ±0 are not. The entries past N[i] in a row's stretch are stale.
//
// It is how a convolution multiplies an image's windows, or its channels at each position, after a ReLU: about
// half of a rectified image is +0, and most of its gradient (a ReLU passes none where it was inactive), and
// MatMulAddSparse skips those products, which MatMulAdd's contract lets it skip (x + ±0 == x).
type Sparse struct {
	Rows, Cols int
	N          []int32
	Col        []int32
	Val        []float32
}

// NewSparse makes a Sparse of rows × cols, every row empty.
func NewSparse(rows, cols int) *Sparse {
	if rows < 0 || cols < 0 || (cols > 0 && rows > (1<<30)/cols) {
		panic("kernel.NewSparse: " + strconv.Itoa(rows) + " × " + strconv.Itoa(cols))
	}
	return &Sparse{Rows: rows, Cols: cols, N: make([]int32, rows), Col: make([]int32, rows*cols), Val: make([]float32, rows*cols)}
}

// SetTranspose sets s to the transpose of d, a row-major [s.Cols × s.Rows] matrix: row i of s lists the nonzero
// values of d's column i, by row of d. In a js/wasm build with the wasmsimd tag it runs matmul.wasm's
// sparse_transpose; elsewhere SetTransposeGo's loop.
//
// It panics if d is shorter than s.Rows·s.Cols.
func (s *Sparse) SetTranspose(d []float32) {
	d = s.checkDense("SetTranspose", d)
	if len(d) == 0 {
		clear(s.N)
		return
	}
	sparseTranspose(s, d)
}

// SetTransposeGo is SetTranspose always in Go: the reference the WebAssembly version is tested against.
func (s *Sparse) SetTransposeGo(d []float32) { sparseTransposeGo(s, s.checkDense("SetTranspose", d)) }

// SetRows sets s to rows × cols of the row-major d [rows × cols], which it takes as its shape (its buffers must
// hold rows·cols entries): row i lists the nonzero values of d's row i. It returns how many values it listed. In
// a js/wasm build with the wasmsimd tag it runs matmul.wasm's sparse_rows; elsewhere SetRowsGo's loop.
//
// It panics if the shape does not fit s's buffers or d.
func (s *Sparse) SetRows(d []float32, rows, cols int) int {
	d = s.reshape("SetRows", d, rows, cols)
	if len(d) == 0 {
		clear(s.N)
		return 0
	}
	return sparseRows(s, d)
}

// SetRowsGo is SetRows always in Go: the reference the WebAssembly version is tested against.
func (s *Sparse) SetRowsGo(d []float32, rows, cols int) int {
	return sparseRowsGo(s, s.reshape("SetRows", d, rows, cols))
}

func (s *Sparse) reshape(op string, d []float32, rows, cols int) []float32 {
	if rows < 0 || cols < 0 || (cols > 0 && (rows > len(s.Val)/cols || rows > len(d)/cols)) || rows > cap(s.N) {
		panic("kernel.Sparse." + op + ": " + strconv.Itoa(rows) + " × " + strconv.Itoa(cols) + " does not fit " +
			strconv.Itoa(len(s.Val)) + " entries or " + strconv.Itoa(len(d)) + " values")
	}
	s.Rows, s.Cols, s.N = rows, cols, s.N[:rows]
	return d[:rows*cols]
}

// Windows is a map for SetGather: a convolution's windows by position, without their padding. Row i lists N[i]
// of the window's values, at Col[i*Cols:] (their columns in the window, increasing) and Pos[i*Cols:] (where each is
// read in the image); the window's other columns are padding, +0.
type Windows struct {
	Rows, Cols int
	N, Col     []int32
	Pos        []int32
	max        int32 // the largest position, −1 for none
}

// NewWindows makes the map of x, a map by position [rows × cols] (−1: padding), as NewIndex takes it.
func NewWindows(x Index, rows, cols int) *Windows {
	if x.Len() != rows*cols {
		panic("kernel.NewWindows: " + strconv.Itoa(x.Len()) + " positions for " + strconv.Itoa(rows) + " × " + strconv.Itoa(cols))
	}
	w := &Windows{Rows: rows, Cols: cols, N: make([]int32, rows), Col: make([]int32, rows*cols), Pos: make([]int32, rows*cols), max: x.max}
	for i := 0; i < rows; i++ {
		for k := 0; k < cols; k++ {
			if j := x.idx[i*cols+k]; j >= 0 {
				e := i*cols + int(w.N[i])
				w.Col[e], w.Pos[e] = int32(k), j
				w.N[i]++
			}
		}
	}
	return w
}

// SetGather sets s to the windows w over src: row i lists the nonzero values among src[w.Pos[e]] of row i's
// entries e, at columns w.Col[e]: the rows GatherIdx would gather (the padding +0), listed sparse. In a js/wasm
// build with the wasmsimd tag it runs matmul.wasm's sparse_gather; elsewhere SetGatherGo's loop.
//
// It panics if w is not s's shape or reads outside src.
func (s *Sparse) SetGather(src []float32, w *Windows) {
	s.checkGather(src, w)
	if len(src) == 0 || s.Rows == 0 || s.Cols == 0 { // (nothing to read)
		sparseGatherGo(s, src, w)
		return
	}
	sparseGather(s, src, w)
}

// SetGatherGo is SetGather always in Go: the reference the WebAssembly version is tested against.
func (s *Sparse) SetGatherGo(src []float32, w *Windows) {
	s.checkGather(src, w)
	sparseGatherGo(s, src, w)
}

func (s *Sparse) checkDense(op string, d []float32) []float32 {
	if len(d) < s.Rows*s.Cols {
		panic("kernel.Sparse." + op + ": " + strconv.Itoa(len(d)) + " values for " + strconv.Itoa(s.Cols) + " × " + strconv.Itoa(s.Rows))
	}
	return d[:s.Rows*s.Cols]
}

func (s *Sparse) checkGather(src []float32, w *Windows) {
	if w.Rows != s.Rows || w.Cols != s.Cols || int(w.max) >= len(src) {
		panic("kernel.Sparse.SetGather: windows " + strconv.Itoa(w.Rows) + " × " + strconv.Itoa(w.Cols) + " up to position " + strconv.Itoa(int(w.max)) +
			" for " + strconv.Itoa(s.Rows) + " × " + strconv.Itoa(s.Cols) + " from " + strconv.Itoa(len(src)) + " values")
	}
}

// MatMulAddSparse computes c += a·b for the sparse a [a.Rows × a.Cols] and row-major b [a.Cols × n], c [a.Rows ×
// n]: for every i, j it adds the products a[i][p]·b[p][j] of row i's listed values to c[i*n+j] one at a time in
// increasing order of p, each rounded to float32 (no fused multiply-add). That is MatMulAdd on a's dense form,
// which may skip the products of a's zeros, under the same contract: c holds no -0 and b is finite, so a
// skipped product (±0) changes nothing, and the result is the same bits. With zero set, the sums start from +0
// rather than from c (c = a·b; c's old values are not read).
//
// In a js/wasm build with the wasmsimd tag it runs matmul.wasm's sparse_matmul; elsewhere MatMulAddSparseGo's
// loop.
//
// It panics if n is negative, b is shorter than a.Cols·n or c than a.Rows·n.
func MatMulAddSparse(a *Sparse, b, c []float32, n int, zero bool) {
	b, c = a.checkProduct(b, c, n)
	if a.Rows == 0 || n == 0 {
		return
	}
	if a.Cols == 0 {
		if zero {
			clear(c)
		}
		return
	}
	sparseMatMul(a, b, c, n, zero)
}

// MatMulAddSparseGo is MatMulAddSparse always in Go: the reference the WebAssembly version is tested against.
func MatMulAddSparseGo(a *Sparse, b, c []float32, n int, zero bool) {
	b, c = a.checkProduct(b, c, n)
	sparseMatMulGo(a, b, c, n, zero)
}

func (a *Sparse) checkProduct(b, c []float32, n int) ([]float32, []float32) {
	if n < 0 || (n > 0 && (a.Cols > len(b)/n || a.Rows > len(c)/n)) {
		panic("kernel.MatMulAddSparse: n=" + strconv.Itoa(n) + " with a " + strconv.Itoa(a.Rows) + " × " + strconv.Itoa(a.Cols) +
			" does not fit len(b)=" + strconv.Itoa(len(b)) + ", len(c)=" + strconv.Itoa(len(c)))
	}
	return b[:a.Cols*n], c[:a.Rows*n]
}

// The loops below write every value into its row's next entry and move the row's end past it only when it is
// not zero: no branch on the data.

func sparseTransposeGo(s *Sparse, d []float32) {
	clear(s.N)
	for k := 0; k < s.Cols; k++ {
		row := d[k*s.Rows : (k+1)*s.Rows]
		for p, v := range row {
			e := p*s.Cols + int(s.N[p])
			s.Col[e], s.Val[e] = int32(k), v
			s.N[p] += nonzero(v)
		}
	}
}

func sparseRowsGo(s *Sparse, d []float32) int {
	total := 0
	for i := 0; i < s.Rows; i++ {
		at := i * s.Cols
		n := int32(0)
		for k, v := range d[at : at+s.Cols] {
			s.Col[at+int(n)], s.Val[at+int(n)] = int32(k), v
			n += nonzero(v)
		}
		s.N[i] = n
		total += int(n)
	}
	return total
}

func sparseGatherGo(s *Sparse, src []float32, w *Windows) {
	for p := 0; p < s.Rows; p++ {
		at := p * s.Cols
		n := int32(0)
		for e := at; e < at+int(w.N[p]); e++ {
			v := src[w.Pos[e]]
			s.Col[at+int(n)], s.Val[at+int(n)] = w.Col[e], v
			n += nonzero(v)
		}
		s.N[p] = n
	}
}

func nonzero(v float32) int32 {
	if v != 0 {
		return 1
	}
	return 0
}

func sparseMatMulGo(a *Sparse, b, c []float32, n int, zero bool) {
	for i := 0; i < a.Rows; i++ {
		row := c[i*n : (i+1)*n]
		if zero {
			clear(row)
		}
		at := i * a.Cols
		for e := at; e < at+int(a.N[i]); e++ {
			v, p := a.Val[e], int(a.Col[e])
			bp := b[p*n : (p+1)*n]
			bp = bp[:len(row)]
			for j := range row {
				row[j] += float32(v * bp[j]) // the conversion keeps the compiler from fusing a multiply-add
			}
		}
	}
}
