package engine

import (
	"os"
	"slices"

	"github.com/deltaclue/deltaclue/engine/kernel"
)

// Compaction: multiply only what is not zero.
//
// After a ReLU most hidden units are exactly zero for every live point of the batch, and each MC sample's
// dropout mask zeroes a quarter of the rows of its folded weights. The products those zeros take part in are
// exact zeros, and engine/kernel's contract lets a product whose a element is zero be skipped: so, per step,
// the dense ops multiply only the columns of the activations that can be nonzero by the matching rows of the
// weights, running the same kernel on the smaller matrices. Each remaining product is added to the same
// accumulator in the same increasing order of the inner index, so every output bit is unchanged (the golden
// hashes and TestCompactionBitForBit check it). The accumulators never hold -0 (they start at +0 or at biases,
// which NewLayer makes +0, and a sum is -0 only if every addend is), so a skipped ±0 product is invisible.
//
// Packed tensors. A ReLU's forward pass finds, per block (the batch, or each MC sample's rows), the columns of
// its output that are nonzero in some live row (its colSet), and writes its output packed: those columns only,
// [rows × n] (pack); when nearly all are, it keeps every column rather than move the rows. The next dense op multiplies that packed matrix as it is, by the matching rows of W
// (gathered once and cached while the columns do not change). Backward runs the other way round in the same
// packed columns: the dense op writes ∂/∂(ReLU output) packed, the ReLU masks it into ∂/∂(its input) packed,
// and the dense op before reads that as its packed ∂out. So between a ReLU and its neighbours no activation or
// gradient is ever gathered or scattered; the full-width tensors are not even written when nothing else reads
// them (so their Data and Grad are then stale: only the graph's outputs are promised).
//
// The BNN's hidden layers after the first compute only the units the next layer's dropout mask keeps (the rows
// of its folded weights that are not all zero: denseSamples' outCols), packed, and the masked rows of the
// weights are skipped where that pays: the products are exact zeros.
//
// Per matrix product a small cost model (prod.run) chooses how far to compact: whether to drop rows of W that
// are zero for this sample (a gather of the activations) and whether to compute only the wanted columns of a
// full-width accumulator (a gather and a scatter), weighing multiply-adds saved against elements moved and
// weights gathered (nothing when cached). The gathers reuse buffers allocated when the graph is built: a step
// allocates nothing.
//
// NaN inputs: a NaN activation counts as nonzero, so the ReLU selections never drop it; only products with
// weights that are exactly zero are skipped, which the dense kernel would have turned into NaN. A NaN point's
// outputs are NaN either way (perhaps a NaN with other bits), and the other points are untouched.

// compaction turns compaction on. DELTACLUE_COMPACT=0 in the environment at start-up turns it off (for
// comparisons: the results are the same bits); tests and benchmarks flip it. Graph.Forward reads it, and the
// following Backward uses the same setting.
var compaction = os.Getenv("DELTACLUE_COMPACT") != "0"

// Cost model, in units of one multiply-add of the kernel: the price of moving one float32 in a gather or a
// scatter (costMove), and of gathering one weight as part of whole rows (costRow) or one by one (cost2D). Set
// for the kernel in use by setCosts, from measurements at the models' shapes (engine/README.md): the faster the
// kernel, the dearer a move. They steer speed only, never bits.
var costMove, costRow, cost2D float64

func init() { setCosts(kernel.Native) }

func setCosts(native string) {
	switch native {
	case "avx512": // a multiply-add ~0.009 ns; a gathered element ~0.3 ns, scattered ~0.6, a row copied ~0.07
		costMove, costRow, cost2D = 40, 8, 34
	case "avx2":
		costMove, costRow, cost2D = 20, 4, 17
	case "wasmsimd": // a multiply-add ~0.045 ns; a gathered element ~0.9 ns, scattered ~1.2, a row copied ~0.07
		costMove, costRow, cost2D = 20, 2, 20
	default: // the pure-Go kernel, native or WASM: a multiply-add costs about as much as a move
		costMove, costRow, cost2D = 1.5, 0.3, 1.5
	}
}

// colSet lists, per block of rows, columns of a tensor: every column that can be nonzero in a live row of the
// block, and perhaps a few that cannot.
type colSet struct {
	cols int
	idx  []int32 // block k's list: idx[k*cols : k*cols+n[k]], increasing
	n    []int
}

func newColSet(cols, blocks int) *colSet {
	return &colSet{cols: cols, idx: make([]int32, cols*blocks), n: make([]int, blocks)}
}

func (s *colSet) list(k int) []int32 { return s.idx[k*s.cols : k*s.cols+s.n[k]] }

// pack is a tensor's Data or Grad in packed form: block k's rows hold only the columns cols.list(k), as a
// row-major [rows × n_k] matrix at data[k·rows·Cols:]; every other column is +0.
type pack struct {
	cols *colSet
	data []float32
	on   bool // Data: written by the last Forward. Grad: set at wire time (see Tensor.gradPacked)
}

func newPack(cols *colSet, size int) *pack { return &pack{cols: cols, data: make([]float32, size)} }

// block returns block k of the pack for batch b, and its column list. A per-point tensor has one block.
func (p *pack) block(t *Tensor, k int) ([]float32, []int32) {
	if t.PerPoint == 1 {
		k = 0
	}
	l := p.cols.list(k)
	b := t.g.batch
	return p.data[k*b*t.Cols : k*b*t.Cols+b*len(l)], l
}

// dataPacked reports whether t's Data is available packed for this pass.
func (t *Tensor) dataPacked() bool { return t.pk != nil && t.pk.on && t.g.compact }

// gradPacked reports whether t's gradient travels packed in this Backward: written packed by its only reader
// and read packed by its producer (decided by Graph.wire), unless Backward seeded t itself.
func (t *Tensor) gradPacked() bool {
	return t.gpk != nil && t.gpk.on && t.g.compact && t != t.g.loss
}

// nonzeroRows returns the rows of w [in×out] that are not entirely ±0, or nil if every row is.
func nonzeroRows(w []float32, in, out int) []int32 {
	var rows []int32
	for i := 0; i < in; i++ {
		for _, v := range w[i*out : (i+1)*out] {
			if v != 0 {
				rows = append(rows, int32(i))
				break
			}
		}
	}
	if len(rows) == in {
		return nil
	}
	return rows
}

// operand is the a operand or the c accumulator of a product: m rows of a full-width matrix (cols nil), or of a
// packed one holding only the columns cols.
type operand struct {
	data []float32
	cols []int32
}

// prod is one matrix B [k×n] (row-major) used as the right operand of c += a·B, with what is known about it
// statically: which rows of B can be nonzero (inR) and which columns of c are wanted (inC); nil for all.
type prod struct {
	b        []float32
	k, n     int
	inR, inC []bool
	ident    []int32 // 0, 1, …, max(k, n)-1

	p, pa, q []int32 // per-step selections: rows of B (and their positions in a packed a), columns of c

	// The last gathered sub-matrix B[pkP, pkQ] (pk2D; else whole rows), kept while the selection is unchanged.
	pk       []float32
	pkValid  bool
	pk2D     bool
	pkP, pkQ []int32

	denseRuns int // runs since a listing found a too dense to multiply sparse (multiply)
}

// newProd prepares B [k×n] with the rows that can be nonzero and the wanted columns (nil: all). gathers says
// whether a sub-matrix of B may ever be gathered (else there is no buffer for it: see run).
func newProd(b []float32, k, n int, rows, cols []int32, gathers bool) *prod {
	pr := &prod{b: b, k: k, n: n, ident: make([]int32, max(k, n)),
		p: make([]int32, k), pa: make([]int32, k), q: make([]int32, n),
		pkP: make([]int32, 0, k), pkQ: make([]int32, 0, n)}
	if gathers || rows != nil || cols != nil {
		pr.pk = make([]float32, k*n)
	}
	for i := range pr.ident {
		pr.ident[i] = int32(i)
	}
	set := func(sel []int32, size int) []bool {
		if sel == nil {
			return nil
		}
		in := make([]bool, size)
		for _, j := range sel {
			in[j] = true
		}
		return in
	}
	pr.inR, pr.inC = set(rows, k), set(cols, n)
	return pr
}

// run computes, for m rows,
//
//	c[i, j] += a[i, p]·B[p, j]   for every p in increasing order, for every wanted column j,
//
// bit for bit as kernel.MatMulAdd(a, B, c, m, k, n) computes those columns, skipping only products that are
// exactly zero. a is full-width [m×k] or packed (a.cols: the columns it holds; the others are +0). c is
// full-width [m×n], or packed (c.cols:
// the columns to compute, and the only ones wanted); wanted, when hasWanted and c is full-width, lists the
// columns anyone reads. Columns of a full-width c outside inC, or outside wanted, are left alone or get ±0
// products: nothing that changes them. ag [≥ m·k] and cg [≥ m·n] are scratch, and sp, if not nil, a Sparse of
// m·k entries for row-sparse products (multiply). A prod made with gathers false
// and no static selections must only be run with a full-width a and c and no wanted list (it multiplies B as
// it is).
func (pr *prod) run(m int, a operand, c operand, wanted []int32, hasWanted bool, ag, cg []float32, sp *kernel.Sparse) {
	// Rows of B: as a holds them (P0: no gather), or only those that can be nonzero in B too (P1: gathers a).
	P0 := a.cols
	if P0 == nil {
		P0 = pr.ident[:pr.k]
	}
	P1, PA1 := P0, pr.ident[:len(P0)]
	if pr.inR != nil {
		n := 0
		for t, j := range P0 {
			if pr.inR == nil || pr.inR[j] {
				pr.p[n], pr.pa[n] = j, int32(t)
				if a.cols == nil {
					pr.pa[n] = j
				}
				n++
			}
		}
		P1, PA1 = pr.p[:n], pr.pa[:n]
	}
	// Columns: those of a packed c; or all of a full c (Q0), or only the wanted ones (Q1: gathers and scatters c).
	Q0 := c.cols
	if Q0 == nil {
		Q0 = pr.ident[:pr.n]
	}
	Q1 := Q0
	if c.cols == nil && (pr.inC != nil || hasWanted) {
		src := pr.ident[:pr.n]
		if hasWanted {
			src = wanted
		}
		n := 0
		for _, j := range src {
			if pr.inC == nil || pr.inC[j] {
				pr.q[n] = j
				n++
			}
		}
		Q1 = pr.q[:n]
	}
	if len(P1) == 0 || len(Q1) == 0 {
		return // every product is zero, or no column is wanted
	}

	fm := float64(m)
	cost := func(P, Q []int32, moveA, moveC bool) float64 {
		nP, nQ := float64(len(P)), float64(len(Q))
		c := fm * nP * nQ
		if moveA {
			c += costMove * fm * nP
		}
		if moveC {
			c += 2 * costMove * fm * nQ
		}
		switch {
		case len(P) == pr.k && len(Q) == pr.n: // B as it is
		case len(Q) == pr.n:
			if !pr.cached(false, P, Q) {
				c += costRow * nP * nQ
			}
		default:
			if !pr.cached(true, P, Q) {
				c += cost2D * nP * nQ
			}
		}
		return c
	}
	P, PA, moveA, Q, moveC := P0, pr.ident[:len(P0)], false, Q0, false
	best := cost(P0, Q0, false, false)
	if len(P1) < len(P0) {
		if c := cost(P1, Q0, true, false); c < best {
			best, P, PA, moveA = c, P1, PA1, true
		}
	}
	if len(Q1) < len(Q0) {
		if c := cost(P0, Q1, false, true); c < best {
			best, P, PA, moveA, Q, moveC = c, P0, pr.ident[:len(P0)], false, Q1, true
		}
		if len(P1) < len(P0) {
			if c := cost(P1, Q1, true, true); c < best {
				P, PA, moveA, Q, moveC = P1, PA1, true, Q1, true
			}
		}
	}
	nP, nQ := len(P), len(Q)

	b := pr.b
	if nP < pr.k || nQ < pr.n {
		b = pr.gather(P, Q, nQ < pr.n)
	}
	av := a.data
	if moveA {
		w := pr.k
		if a.cols != nil {
			w = len(a.cols)
		}
		av = ag[:m*nP]
		kernel.PackCols(av, a.data, m, w, PA)
	}
	if !moveC {
		pr.multiply(av, b, c.data, m, nP, nQ, sp)
		return
	}
	cv := cg[:m*nQ]
	kernel.PackCols(cv, c.data, m, pr.n, Q)
	pr.multiply(av, b, cv, m, nP, nQ, sp)
	scatterCols(c.data, cv, m, pr.n, Q)
}

// Row-sparse products (with a scratch Sparse, where sparseProducts): after a ReLU most of a row is +0, though
// across the rows of a batch far fewer columns are (the union compaction packs: for Fashion's classifier, 82 %
// of the 3,136 values after its convolutions are +0, but 64 % of the columns are nonzero in some row), so
// listing each row's nonzero values and multiplying only those (kernel.MatMulAddSparse, the same bits) does a
// fraction of the work. Listing costs a pass over a; a product that turned out dense is multiplied dense, and
// listed again only every sparseRetry runs.
const (
	sparseMinCols  = 32  // the narrowest c a listing pays for (it costs about 10 multiply-adds a value)
	sparseMaxShare = 0.6 // the densest a worth the sparse kernel, whose multiply-add costs about 1.4 dense ones
	sparseRetry    = 16  // how often a product found dense is listed again
)

// multiply computes c += a·b for a [m×k], b [k×n], c [m×n], sparse by rows where that pays.
func (pr *prod) multiply(a, b, c []float32, m, k, n int, sp *kernel.Sparse) {
	if !DenseOnly && sp != nil && n >= sparseMinCols && pr.denseRuns%sparseRetry == 0 { // (DenseOnly: the code left out)
		if listed := sp.SetRows(a, m, k); float64(listed) <= sparseMaxShare*float64(m*k) {
			pr.denseRuns = 0
			kernel.MatMulAddSparse(sp, b, c, n, false)
			return
		}
	}
	if sp != nil {
		pr.denseRuns++
	}
	kernel.MatMulAdd(a, b, c, m, k, n)
}

// cached reports whether pk holds B[P, Q] (whole rows unless twoD).
func (pr *prod) cached(twoD bool, P, Q []int32) bool {
	return pr.pkValid && pr.pk2D == twoD && slices.Equal(pr.pkP, P) && slices.Equal(pr.pkQ, Q)
}

// gather returns B[P, Q] packed [len(P)×len(Q)] (Q all columns unless twoD), from the cache when it holds it.
// Rows before the first where P differs from the cached selection (with the same columns) are already in place.
func (pr *prod) gather(P, Q []int32, twoD bool) []float32 {
	nP, nQ := len(P), len(Q)
	out := pr.pk[:nP*nQ]
	from := 0
	if pr.pkValid && pr.pk2D == twoD && slices.Equal(pr.pkQ, Q) {
		for from < nP && from < len(pr.pkP) && pr.pkP[from] == P[from] {
			from++
		}
		if from == nP && len(pr.pkP) == nP {
			return out
		}
	}
	for r := from; r < nP; r++ {
		row, dst := pr.b[int(P[r])*pr.n:(int(P[r])+1)*pr.n], out[r*nQ:(r+1)*nQ]
		if twoD {
			gatherRow(dst, row, Q)
		} else {
			copy(dst, row)
		}
	}
	pr.pkValid, pr.pk2D = true, twoD
	pr.pkP = append(pr.pkP[:0], P...)
	pr.pkQ = append(pr.pkQ[:0], Q...)
	return out
}

// gatherRow sets dst[t] = src[idx[t]].
func gatherRow(dst, src []float32, idx []int32) {
	dst = dst[:len(idx)]
	t := 0
	for ; t+4 <= len(idx); t += 4 {
		i := idx[t : t+4 : t+4]
		d := dst[t : t+4 : t+4]
		d[0], d[1], d[2], d[3] = src[i[0]], src[i[1]], src[i[2]], src[i[3]]
	}
	for ; t < len(idx); t++ {
		dst[t] = src[idx[t]]
	}
}

// scatterCols writes the m rows of src [m × len(idx)] into columns idx of dst [m × w].
func scatterCols(dst, src []float32, m, w int, idx []int32) {
	n := len(idx)
	for i := 0; i < m; i++ {
		d, s := dst[i*w:(i+1)*w], src[i*n:(i+1)*n]
		s = s[:len(idx)]
		for t, j := range idx {
			d[j] = s[t]
		}
	}
}
