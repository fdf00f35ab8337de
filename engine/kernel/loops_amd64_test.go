//go:build amd64 && !purego

package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// eachLoopWidth runs f with the native loops at each width this CPU has (AVX-512's 16 with and without its
// scatter, AVX2's 8) and in Go (0), restoring the start-up choice after.
func eachLoopWidth(t *testing.T, f func(t *testing.T)) {
	w0, cd0 := loopWidth, scatterCD
	defer func() { loopWidth, scatterCD = w0, cd0 }()
	type setting struct {
		name string
		w    int
		cd   bool
	}
	settings := []setting{{"go", 0, false}}
	if cpuKind >= kindAVX2 {
		settings = append(settings, setting{"avx2", 8, false})
	}
	if cpuKind >= kindAVX512 {
		settings = append(settings, setting{"avx512-noCD", 16, false})
		if cd0 || kind < kindAVX512 {
			_, ebx7, _, _ := cpuid(7, 0)
			if ebx7&(1<<28) != 0 {
				settings = append(settings, setting{"avx512", 16, true})
			}
		}
	}
	for _, s := range settings {
		loopWidth, scatterCD = s.w, s.cd
		t.Run(s.name, f)
	}
}

// oddValue is a float32 from a wide set: normal values of many exponents, ±0, subnormals, ±Inf and NaNs with
// payloads (when nan).
func oddValue(r *rand.Rand, nan bool) float32 {
	switch r.IntN(12) {
	case 0:
		return float32(math.Copysign(0, -1))
	case 1:
		return 0
	case 2:
		return math.Float32frombits(uint32(r.IntN(1<<23)) | uint32(r.IntN(2))<<31) // subnormal
	case 3:
		if nan {
			return math.Float32frombits(0x7f800001 | uint32(r.IntN(1<<22)) | uint32(r.IntN(2))<<31)
		}
	case 4:
		if nan {
			return float32(math.Inf(1 - 2*r.IntN(2)))
		}
	}
	return float32(r.NormFloat64()) * float32(math.Pow(2, float64(r.IntN(40)-20)))
}

// randomMap is a map of n positions into [0, nsrc): runs of consecutive positions (a window's row inside the
// image), runs of every other position (stride 2), runs of −1 (padding), scattered and repeated positions, mixed in stretches.
func randomMap(r *rand.Rand, n, nsrc int) []int32 {
	idx := make([]int32, n)
	for i := 0; i < n; {
		l := min(n-i, 1+r.IntN(40))
		switch r.IntN(6) {
		case 4, 5: // every other (stride 2) or every third position, with holes of padding sometimes
			s, st := r.IntN(nsrc), 2+r.IntN(2)*r.IntN(2)
			for k := 0; k < l; k++ {
				idx[i+k] = int32(s + st*k)
				if s+st*k >= nsrc || r.IntN(8) == 0 {
					idx[i+k] = -1
				}
			}
		case 0: // a run, often from the first position (after padding, as a convolution's left edge)
			s := r.IntN(nsrc)
			if r.IntN(3) == 0 {
				s = r.IntN(2)
			}
			for k := 0; k < l; k++ {
				if s+k < nsrc {
					idx[i+k] = int32(s + k)
				} else {
					idx[i+k] = -1
				}
			}
		case 1:
			for k := 0; k < l; k++ {
				idx[i+k] = -1
			}
		case 2: // few positions: repeated
			for k := 0; k < l; k++ {
				idx[i+k] = int32(r.IntN(min(nsrc, 3)))
			}
		default:
			for k := 0; k < l; k++ {
				idx[i+k] = int32(r.IntN(nsrc+1)) - 1
			}
		}
		i += l
	}
	return idx
}

func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: value %d is %#x, want %#x", what, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
		}
	}
}

// TestNativeGatherScatter: GatherIdx and ScatterAddIdx in AVX-512 and AVX2 give the Go loops' bits (NaNs, -0 and
// subnormals in the values; runs, padding and repeated positions in the maps, in blocks and across them; every
// length up to 70 and some long ones) and touch nothing past the map; with AVX-512 also by the map's runs
// (Index.WithRuns), the scatter-add onto its own result.
func TestNativeGatherScatter(t *testing.T) {
	eachLoopWidth(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(39, 1))
		for trial := 0; trial < 2000; trial++ {
			n := trial % 71
			if trial%10 == 9 {
				n = r.IntN(3000)
			}
			nsrc := 1 + r.IntN(200)
			idx := randomMap(r, n, nsrc)
			x := NewIndex(idx)
			src := make([]float32, nsrc)
			for i := range src {
				src[i] = oddValue(r, true)
			}
			got, want := make([]float32, n+32), make([]float32, n+32) // 16 guard values either side
			for i := range got {
				got[i] = 7
				want[i] = 7
			}
			GatherIdx(got[16:16+n], src, x)
			gatherIdxGo(want[16:16+n], src, idx)
			sameBits(t, "GatherIdx", got, want)

			col := make([]float32, n)
			for i := range col {
				col[i] = oddValue(r, trial%3 == 0)
			}
			guarded := make([]float32, nsrc+32) // 16 guard values either side
			for i := range guarded {
				guarded[i] = oddValue(r, trial%3 == 0)
			}
			wantS := append([]float32(nil), guarded...)
			ScatterAddIdx(guarded[16:16+nsrc], col, x)
			scatterIdxGo(wantS[16:16+nsrc], col, idx)
			sameBits(t, "ScatterAddIdx", guarded, wantS)

			if !runsPay() || n == 0 {
				continue
			}
			// The same map cut into runs (Index.WithRuns), however short they are.
			xr := x
			sums, taps := cutSums(idx, x.max)
			xr.runs = &runPlan{gather: cutRuns(idx), sums: sums, taps: taps}
			for i := range got {
				got[i] = 7
			}
			GatherIdx(got[16:16+n], src, xr)
			sameBits(t, "GatherIdx by runs", got, want)
			for i := range guarded {
				guarded[i] = wantS[i]
			}
			ScatterAddIdx(guarded[16:16+nsrc], col, xr)
			scatterIdxGo(wantS[16:16+nsrc], col, idx)
			sameBits(t, "ScatterAddIdx by runs", guarded, wantS)
		}
	})
}

// TestNativeReluAndMasks: ReluRows, Relu, AddWherePositive, MaskPositive and SetWherePositive in AVX-512 and AVX2 give the Go loops' bits
// (NaNs with payloads, ±Inf, ±0, subnormals), in place and not, for every width up to 50 and rows 1–5.
func TestNativeReluAndMasks(t *testing.T) {
	eachLoopWidth(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(39, 2))
		for trial := 0; trial < 1500; trial++ {
			rows, w := 1+r.IntN(5), trial%51
			if trial%10 == 9 {
				w = r.IntN(700)
			}
			in := make([]float32, rows*w+2)
			for i := range in {
				in[i] = oddValue(r, true)
			}
			acc, accWant := make([]uint32, w+1), make([]uint32, w+1)
			for j := range acc {
				acc[j] = uint32(r.IntN(2)) << r.IntN(32)
				accWant[j] = acc[j]
			}
			got, want := make([]float32, rows*w+2), make([]float32, rows*w+2)
			if trial%2 == 0 {
				got = append([]float32(nil), in...)
				ReluRows(got, got, acc, rows, w)
			} else {
				ReluRows(in, got, acc, rows, w)
				want[rows*w], want[rows*w+1] = got[rows*w], got[rows*w+1]
			}
			if trial%2 == 0 {
				copy(want, in)
			}
			reluRowsGo(in[:rows*w], want, accWant, rows, w)
			sameBits(t, "ReluRows", got, want)
			for j := range acc {
				if acc[j] != accWant[j] {
					t.Fatalf("ReluRows: acc[%d] is %#x, want %#x", j, acc[j], accWant[j])
				}
			}

			n := rows * w
			d, h, dx := make([]float32, n), make([]float32, n), make([]float32, n+1)
			for i := range d {
				d[i], h[i], dx[i] = oddValue(r, true), oddValue(r, true), oddValue(r, true)
			}
			dx[n] = 7
			dxWant := append([]float32(nil), dx...)
			AddWherePositive(dx[:n], d, h)
			addWherePositiveGo(dxWant[:n], d, h)
			sameBits(t, "AddWherePositive", dx, dxWant)

			MaskPositive(dx[:n], d, h)
			maskPositiveGo(dxWant[:n], d, h)
			sameBits(t, "MaskPositive", dx, dxWant)
			copy(dx, d) // in place
			copy(dxWant, d)
			MaskPositive(dx[:n], dx[:n], h)
			maskPositiveGo(dxWant[:n], dxWant[:n], h)
			sameBits(t, "MaskPositive in place", dx, dxWant)

			SetWherePositive(dx[:n], d, h)
			setWherePositiveGo(dxWant[:n], d, h)
			sameBits(t, "SetWherePositive", dx, dxWant)

			Relu(dx[:n], d)
			ReluGo(dxWant[:n], d)
			sameBits(t, "Relu", dx, dxWant)
			copy(dx, d) // in place
			copy(dxWant, d)
			Relu(dx[:n], dx[:n])
			ReluGo(dxWant[:n], dxWant[:n])
			sameBits(t, "Relu in place", dx, dxWant)
			if n > 0 { // -0 where h > 0 (set +0) and not (+0 too)
				d[0], h[0] = float32(math.Copysign(0, -1)), 1
				SetWherePositive(dx[:n], d, h)
				setWherePositiveGo(dxWant[:n], d, h)
				sameBits(t, "SetWherePositive of -0", dx, dxWant)
			}
		}
	})
}
