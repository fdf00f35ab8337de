package kernel

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGatherScatterBitForBit: GatherIdx, ScatterAddIdx and ScatterAddPairs (matmul.wasm's gather_idx,
// scatter_idx and scatter_pairs in a wasmsimd build) give the bits of the plain loops, over random maps with padding and repeated positions (a
// scatter's sums in its order), finite values only (a NaN's payload is the engine's to choose in WebAssembly);
// nothing past the map is touched.
func TestGatherScatterBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		nsrc, n := 1+r.IntN(40), r.IntN(120)
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(r.IntN(nsrc+nsrc/3)) - 1
			if idx[i] >= int32(nsrc) {
				idx[i] = -1
			}
		}
		x := NewIndex(idx)
		src := make([]float32, nsrc)
		for i := range src {
			src[i] = float32(r.NormFloat64()) * float32(math.Pow(10, float64(r.IntN(7)-3)))
		}
		want := make([]float32, n+2)
		for i, j := range idx {
			if j >= 0 {
				want[i] = src[j]
			}
		}
		want[n], want[n+1] = 7, 7
		for _, f := range []struct {
			name string
			fn   func(dst, src []float32, x Index)
		}{{"GatherIdx", GatherIdx}, {"GatherIdxGo", GatherIdxGo}} {
			dst := make([]float32, n+2)
			for k := range dst {
				dst[k] = 7
			}
			f.fn(dst, src, x)
			for k := range want {
				if math.Float32bits(dst[k]) != math.Float32bits(want[k]) {
					t.Fatalf("trial %d: %s: value %d is %v, want %v", trial, f.name, k, dst[k], want[k])
				}
			}
		}
		col := make([]float32, n)
		for i := range col {
			col[i] = float32(r.NormFloat64())
		}
		base := make([]float32, nsrc+1)
		for i := range base {
			base[i] = float32(r.NormFloat64())
		}
		wantS := append([]float32(nil), base...)
		for i, j := range idx {
			if j >= 0 {
				wantS[j] += col[i]
			}
		}
		for _, f := range []struct {
			name string
			fn   func(dst, src []float32, x Index)
		}{{"ScatterAddIdx", ScatterAddIdx}, {"ScatterAddIdxGo", ScatterAddIdxGo}} {
			dst := append([]float32(nil), base...)
			f.fn(dst, col, x)
			for k := range wantS {
				if math.Float32bits(dst[k]) != math.Float32bits(wantS[k]) {
					t.Fatalf("trial %d: %s: value %d is %v, want %v", trial, f.name, k, dst[k], wantS[k])
				}
			}
		}
		// The same scatter with its source read through a map: col reversed, its padding left out.
		var pd, ps []int32
		rev := make([]float32, n)
		for i, j := range idx {
			rev[n-1-i] = col[i]
			if j >= 0 {
				pd, ps = append(pd, j), append(ps, int32(n-1-i))
			}
		}
		pairs := NewPairs(pd, ps)
		for _, f := range []struct {
			name string
			fn   func(dst, src []float32, x *Pairs)
		}{{"ScatterAddPairs", ScatterAddPairs}, {"ScatterAddPairsGo", ScatterAddPairsGo}} {
			dst := append([]float32(nil), base...)
			f.fn(dst, rev, pairs)
			for k := range wantS {
				if math.Float32bits(dst[k]) != math.Float32bits(wantS[k]) {
					t.Fatalf("trial %d: %s: value %d is %v, want %v", trial, f.name, k, dst[k], wantS[k])
				}
			}
		}
	}
}

// TestIndexChecks: a map that does not fit its slices panics before anything is read or written.
func TestIndexChecks(t *testing.T) {
	x := NewIndex([]int32{0, 5, -1})
	for name, f := range map[string]func(){
		"gather from too short a source": func() { GatherIdx(make([]float32, 3), make([]float32, 5), x) },
		"gather into too short a slice":  func() { GatherIdx(make([]float32, 2), make([]float32, 6), x) },
		"scatter into too short a slice": func() { ScatterAddIdx(make([]float32, 5), make([]float32, 3), x) },
		"a position below -1":            func() { NewIndex([]int32{-2}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "kernel.") {
					t.Errorf("%s: recovered %v, want a panic", name, r)
				}
			}()
			f()
		}()
	}
}
