package kernel

import (
	"cmp"
	"slices"
)

// WithRuns returns x with its map also cut into runs, where the machine's loops go faster by them (natively with
// AVX-512), for a map used many times (a convolution's windows):
//
//   - for GatherIdx, stretches of up to 16 values whose positions step by 1 or by 2 (a window's row inside the
//     image at a stride of 1 or 2) or are all −1 (the padding), each one or two masked loads and a masked store;
//   - for ScatterAddIdx, the sums: up to 16 positions one or two apart (at most 8 at two) that take the same
//     number of values, each from values of the map side by side (the same tap of neighbouring windows), each
//     position's value loaded once, its values added in the map's order, and stored once. A scatter-add by
//     blocks of the map would load and store a position once for each value it takes, each load waiting on the
//     store before it where a stride of 2 interleaves two taps' positions.
//
// The same bits either way. Each half is kept only where its runs are long enough to pay, at least 5 values on
// average besides the padding (resnet18's 1×1/2 shortcut, runs of 4, went 10–15 % slower by them; Fashion's
// transposed 4×4/2 convolution, runs of 6 and 7 between single values of padding, faster); elsewhere, or where
// neither is, WithRuns returns x.
func (x Index) WithRuns() Index {
	if !runsPay() || len(x.idx) == 0 {
		return x
	}
	values := 0 // not the padding's
	for _, j := range x.idx {
		if j >= 0 {
			values++
		}
	}
	p := new(runPlan)
	runs := cutRuns(x.idx)
	reads := 0 // runs that read (the padding's only store +0)
	for _, r := range runs {
		if r.lanes>>16 != 0 {
			reads++
		}
	}
	if 5*reads <= values {
		p.gather = runs
	}
	if sums, taps := cutSums(x.idx, x.max); 5*len(sums) <= values {
		p.sums, p.taps = sums, taps
	}
	if p.gather != nil || p.sums != nil {
		x.runs = p
	}
	return x
}

// runPlan is a map cut into runs (Index.WithRuns): for the gather, and for the scatter-add's sums.
type runPlan struct {
	gather []run
	sums   []sumRun
	taps   []int32 // the sums' taps: where each takes its values in the map
}

// A run is one stretch of a map for the native gather (WithRuns): the map's values i0, i0+1, …, i0+n−1 are the
// positions j0, j0+s, …, j0+(n−1)·s, or all −1 (s = 0). lanes holds n low bits and the kind s in bits 16–17;
// loads, for s = 2, the lanes of the 32 values from j0 that the run reads (spreadEven of the lanes' halves, the
// second half's in the high 16 bits).
type run struct {
	i0, j0       int32
	lanes, loads uint32
}

// maxRun is the values of a run: a vector of AVX-512.
const maxRun = 16

// cutRuns cuts idx into runs, each as long as it can be (at most maxRun); a position alone is a run of one.
func cutRuns(idx []int32) []run {
	var runs []run
	for i := 0; i < len(idx); {
		j, s := idx[i], int32(1)
		switch {
		case j < 0:
			s = 0
		case i+1 < len(idx) && idx[i+1] == j+2:
			s = 2
		}
		n := 1
		for n < maxRun && i+n < len(idx) && (s == 0 && idx[i+n] < 0 || s > 0 && idx[i+n] == j+s*int32(n)) {
			n++
		}
		r := run{i0: int32(i), j0: max(j, 0), lanes: uint32(1)<<n - 1 | uint32(s)<<16}
		if s == 2 {
			r.loads = uint32(spreadEven[r.lanes&0xff]) | uint32(spreadEven[r.lanes>>8&0xff])<<16
		}
		runs = append(runs, r)
		i += n
	}
	return runs
}

// A sumRun is n positions d0, d0+s, …, d0+(n−1)·s of a scatter-add's destination (s = 1, n ≤ 16; or s = 2,
// n ≤ 8) that each take values from ntaps places of the map, tap t of lane l from the map's value taps[first+t]
// + l, in the map's order. lanes holds n low bits and, for s = 2, the same lanes spread over the even lanes of
// 16 in its high 16 bits (0 for s = 1).
type sumRun struct {
	d0           int32
	lanes        uint32
	first, ntaps int32
}

// cutSums cuts the scatter-add through idx (largest position top) into sums: each position that takes a value,
// with the next ones one apart (else two) while they take as many values from the map's next places; in the
// order interleave gives them.
func cutSums(idx []int32, top int32) ([]sumRun, []int32) {
	if top < 0 {
		return nil, nil
	}
	// The map's places by position, each position's in the map's order: the distinct positions pos[r], position
	// pos[r]'s places order[start[r]:start[r+1]].
	order := placesByPosition(idx, top)
	var pos, start []int32
	for k, i := range order {
		if k == 0 || idx[i] != idx[order[k-1]] {
			pos, start = append(pos, idx[i]), append(start, int32(k))
		}
	}
	start = append(start, int32(len(order)))
	places := func(r int) []int32 { return order[start[r]:start[r+1]] }
	// rank is the rank of position d, or −1, for d = pos[r0] + k with 0 ≤ k ≤ 2·maxRun: the positions are
	// distinct and increasing, so at most k ranks on.
	rank := func(r0 int, d int32) int {
		r := r0
		for r < len(pos) && pos[r] < d {
			r++
		}
		if r < len(pos) && pos[r] == d {
			return r
		}
		return -1
	}
	done := make([]bool, len(pos))
	continues := func(r0 int, s, l int32) bool { // position pos[r0] + s·l is lane l of a run from pos[r0]
		r := rank(r0, pos[r0]+s*l)
		if r < 0 || done[r] {
			return false
		}
		a, b := places(r0), places(r)
		if len(a) != len(b) {
			return false
		}
		for t := range a {
			if b[t] != a[t]+l {
				return false
			}
		}
		return true
	}
	var sums []sumRun
	var taps []int32
	for r0, d0 := range pos {
		if done[r0] {
			continue
		}
		s, most := int32(1), int32(maxRun)
		if !continues(r0, 1, 1) && continues(r0, 2, 1) {
			s, most = 2, maxRun/2
		}
		n := int32(1)
		for n < most && continues(r0, s, n) {
			n++
		}
		lanes := uint32(1)<<n - 1
		if s == 2 {
			lanes |= uint32(spreadEven[lanes]) << 16
		}
		for l := range n {
			done[rank(r0, d0+s*l)] = true
		}
		sums = append(sums, sumRun{d0: d0, lanes: lanes, first: int32(len(taps)), ntaps: int32(len(places(r0)))})
		taps = append(taps, places(r0)...)
	}
	return interleave(sums), taps
}

// placesByPosition is the places of idx's positions (not −1), ordered by position and each position's in the map's
// order: as they come where they increase (a plane's map, which reads one channel of images far apart), else by a
// table as long as the positions' range where that is at most four times the map, else by a stable sort.
func placesByPosition(idx []int32, top int32) []int32 {
	order := make([]int32, 0, len(idx))
	last := int32(-1)
	for i, j := range idx {
		if j >= 0 {
			if j <= last { // not increasing: not its order
				order = nil
				break
			}
			order, last = append(order, int32(i)), j
		}
	}
	if order != nil || last < 0 { // increasing (a plane's map), or no position at all
		return order
	}
	if int(top) < 4*len(idx) {
		at := make([]int32, top+2) // position d's places from at[d]
		for _, j := range idx {
			if j >= 0 {
				at[j+1]++
			}
		}
		for d := 1; d < len(at); d++ {
			at[d] += at[d-1]
		}
		order := make([]int32, at[top+1])
		for i, j := range idx {
			if j >= 0 {
				order[at[j]] = int32(i)
				at[j]++
			}
		}
		return order
	}
	order = make([]int32, 0, len(idx))
	for i, j := range idx {
		if j >= 0 {
			order = append(order, int32(i))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(idx[a], idx[b]) })
	return order
}

// interleave orders runs (by their first positions) four ways, the first quarter's first, the second's, the
// third's, the fourth's, then each quarter's second, …: a run whose positions lie beside the last one's (whose
// load would wait on that run's store, even where their lanes do not meet) runs four runs after it.
func interleave(runs []sumRun) []sumRun {
	const ways = 4
	q := (len(runs) + ways - 1) / ways
	out := make([]sumRun, 0, len(runs))
	for i := range q {
		for w := range ways {
			if j := w*q + i; j < len(runs) {
				out = append(out, runs[j])
			}
		}
	}
	return out
}

// spreadEven[b] has bit 2i set where b has bit i: 8 lanes spread over the even lanes of 16.
var spreadEven = func() (t [256]uint16) {
	for b := range t {
		for i := range 8 {
			if b>>i&1 == 1 {
				t[b] |= 1 << (2 * i)
			}
		}
	}
	return t
}()
