package kernel

import "strconv"

// Index is a map of positions for GatherIdx and ScatterAddIdx (a convolution's windows: for each value of the
// windows' matrix, the input value it is, or −1 for the padding), with its largest position, checked once so
// that each call checks one number.
type Index struct {
	idx  []int32
	max  int32
	runs *runPlan // (WithRuns) the map cut into runs, where the native loops follow them
}

// NewIndex makes an Index of idx (kept, not copied): every position must be −1 or at least 0.
func NewIndex(idx []int32) Index {
	m := int32(-1)
	for _, j := range idx {
		if j < -1 {
			panic("kernel.NewIndex: position " + strconv.Itoa(int(j)))
		}
		m = max(m, j)
	}
	return Index{idx: idx, max: m}
}

// Len is the number of positions.
func (x Index) Len() int { return len(x.idx) }

func (x Index) check(op string, n, from int) {
	if n < len(x.idx) || int(x.max) >= from {
		panic("kernel." + op + ": " + strconv.Itoa(len(x.idx)) + " positions up to " + strconv.Itoa(int(x.max)) +
			" do not fit slices of " + strconv.Itoa(n) + " and " + strconv.Itoa(from))
	}
}

// GatherIdx sets dst[i] = src[x[i]] for every i < x.Len(), or +0 where x[i] is −1: values copied, bits and all.
// In a js/wasm build with the wasmsimd tag it runs matmul.wasm's gather_idx; natively AVX-512 or AVX2 where
// MatMulAdd runs it (loops_amd64.s: runs of consecutive positions a vector at a time); elsewhere GatherIdxGo.
//
// It panics if dst is shorter than x or a position is outside src.
func GatherIdx(dst, src []float32, x Index) {
	x.check("GatherIdx", len(dst), len(src))
	if len(x.idx) == 0 || len(src) == 0 { // (all padding: nothing to read)
		gatherIdxGo(dst, src, x.idx)
		return
	}
	if x.runs != nil && x.runs.gather != nil {
		gatherRuns(dst, src, x.runs.gather)
		return
	}
	gatherIdx(dst, src, x.idx)
}

// GatherIdxGo is GatherIdx always in Go: the reference the WebAssembly version is tested against.
func GatherIdxGo(dst, src []float32, x Index) {
	x.check("GatherIdx", len(dst), len(src))
	gatherIdxGo(dst, src, x.idx)
}

// ScatterAddIdx adds src[i] into dst[x[i]] for i = 0, 1, … in that order, where x[i] is not −1: the adjoint of
// GatherIdx, each sum a float32 addition, so every build gives the same bits (NaN payloads aside). In a js/wasm
// build with the wasmsimd tag it runs matmul.wasm's scatter_idx; natively AVX-512 or AVX2 (loops_amd64.s);
// elsewhere ScatterAddIdxGo.
//
// It panics if src is shorter than x or a position is outside dst.
func ScatterAddIdx(dst, src []float32, x Index) {
	x.check("ScatterAddIdx", len(src), len(dst))
	if len(x.idx) == 0 || len(dst) == 0 { // (all padding: nothing to write)
		return
	}
	if x.runs != nil && x.runs.sums != nil {
		sumRuns(dst, src, x.runs)
		return
	}
	scatterIdx(dst, src, x.idx)
}

// ScatterAddIdxGo is ScatterAddIdx always in Go.
func ScatterAddIdxGo(dst, src []float32, x Index) {
	x.check("ScatterAddIdx", len(src), len(dst))
	scatterIdxGo(dst, src, x.idx)
}

func gatherIdxGo(dst, src []float32, idx []int32) {
	dst = dst[:len(idx)]
	for i, j := range idx {
		v := float32(0)
		if j >= 0 {
			v = src[j]
		}
		dst[i] = v
	}
}

func scatterIdxGo(dst, src []float32, idx []int32) {
	src = src[:len(idx)]
	for i, j := range idx {
		if j >= 0 {
			dst[j] += src[i]
		}
	}
}

// At is position i of the map.
func (x Index) At(i int) int32 { return x.idx[i] }

// Pairs is a map for ScatterAddPairs: for i = 0, 1, …, the value src[Src[i]] goes to dst[Dst[i]], in that order.
type Pairs struct {
	Dst, Src       []int32
	maxDst, maxSrc int32
}

// NewPairs makes the map of the pairs (dst[i], src[i]), kept, not copied; every position must be at least 0.
func NewPairs(dst, src []int32) *Pairs {
	if len(dst) != len(src) {
		panic("kernel.NewPairs: " + strconv.Itoa(len(dst)) + " destinations for " + strconv.Itoa(len(src)) + " sources")
	}
	p := &Pairs{Dst: dst, Src: src, maxDst: -1, maxSrc: -1}
	for i := range dst {
		if dst[i] < 0 || src[i] < 0 {
			panic("kernel.NewPairs: pair " + strconv.Itoa(i) + " has a negative position")
		}
		p.maxDst, p.maxSrc = max(p.maxDst, dst[i]), max(p.maxSrc, src[i])
	}
	return p
}

// ScatterAddPairs adds src[x.Src[i]] into dst[x.Dst[i]] for i = 0, 1, … in that order, each sum a float32
// addition: ScatterAddIdx with its source read through a map (a convolution's windows held by position, added
// in the order of its windows' rows). In a js/wasm build with the wasmsimd tag it runs matmul.wasm's
// scatter_pairs; elsewhere ScatterAddPairsGo.
//
// It panics if a position is outside dst or src.
func ScatterAddPairs(dst, src []float32, x *Pairs) {
	x.check(len(dst), len(src))
	if len(x.Dst) == 0 {
		return
	}
	scatterPairs(dst, src, x)
}

// ScatterAddPairsGo is ScatterAddPairs always in Go.
func ScatterAddPairsGo(dst, src []float32, x *Pairs) {
	x.check(len(dst), len(src))
	scatterPairsGo(dst, src, x)
}

func (x *Pairs) check(dst, src int) {
	if int(x.maxDst) >= dst || int(x.maxSrc) >= src {
		panic("kernel.ScatterAddPairs: positions up to " + strconv.Itoa(int(x.maxDst)) + " and " + strconv.Itoa(int(x.maxSrc)) +
			" do not fit slices of " + strconv.Itoa(dst) + " and " + strconv.Itoa(src))
	}
}

func scatterPairsGo(dst, src []float32, x *Pairs) {
	s := x.Src[:len(x.Dst)]
	for i, j := range x.Dst {
		dst[j] += src[s[i]]
	}
}
