package kernel

import (
	"fmt"
	"testing"
)

// benchShapes are the model's products (m, k, n): at batch 100 the decoder 16-256-512-784 forward (x·W) and
// backward (∂out·Wᵀ), the BNN's first layer 784-256 and, once per MC sample, its layers 256-128-10, forward and
// backward; and the BNN layers with the 20 samples' rows stacked (2000 rows).
var benchShapes = []shape{
	{100, 16, 256}, {100, 256, 512}, {100, 512, 784}, {100, 784, 512}, {100, 784, 256},
	{2000, 256, 128}, {2000, 128, 10}, {2000, 10, 128}, {2000, 128, 256}, {100, 256, 784},
	{100, 512, 256}, {100, 256, 16}, {100, 256, 128}, {100, 128, 10}, {100, 10, 128}, {100, 128, 256},
}

// namedKernel is one implementation of MatMulAdd's contract.
type namedKernel struct {
	name string
	f    func(a, b, c []float32, m, k, n int)
}

// BenchmarkMatMulAdd reports GFLOP/s, counting 2·m·k·n per call, on dense inputs (no zeros in a: the work the
// kernel skips on zeros is not counted as free).
func BenchmarkMatMulAdd(b *testing.B) { benchKernel(b, MatMulAdd) }

// BenchmarkMatMulAddGo is the pure-Go kernel in every build (in a wasmsimd build, for comparison with SIMD).
func BenchmarkMatMulAddGo(b *testing.B) { benchKernel(b, MatMulAddGo) }

// BenchmarkKernels runs every kernel of this build side by side, shape by shape: "go" (the pure-Go kernel) and
// the alternatives MatMulAdd can run here (amd64: "avx2" and "avx512" where the CPU has them, whatever
// DELTACLUE_KERNEL says; a wasmsimd build: "wasmsimd"). Names are Kernels/<m>x<k>x<n>/kernel=<kernel>, so that
// benchstat -col /kernel puts the kernels side by side.
func BenchmarkKernels(b *testing.B) {
	impls := append([]namedKernel{{"go", MatMulAddGo}}, altKernels()...)
	for _, sh := range benchShapes {
		b.Run(fmt.Sprintf("%dx%dx%d", sh.m, sh.k, sh.n), func(b *testing.B) {
			for _, impl := range impls {
				b.Run("kernel="+impl.name, func(b *testing.B) { benchShape(b, impl.f, sh) })
			}
		})
	}
}

func benchKernel(b *testing.B, f func(a, b, c []float32, m, k, n int)) {
	for _, sh := range benchShapes {
		b.Run(fmt.Sprintf("%dx%dx%d", sh.m, sh.k, sh.n), func(b *testing.B) { benchShape(b, f, sh) })
	}
}

func benchShape(b *testing.B, f func(a, b, c []float32, m, k, n int), sh shape) {
	m, k, n := sh.m, sh.k, sh.n
	rng := xorshift(1)
	x, y, z := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	rng.fill(x, 0)
	rng.fill(y, 0)
	for b.Loop() {
		f(x, y, z, m, k, n)
	}
	b.ReportMetric(2*float64(m)*float64(k)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkPlanesGrad times PlanesGrad on the example ResNet's 3×3 convolutions' shapes in planes (cig, taps, m,
// n): 8→8 at 28×28 (two images a pass), 16→16 at 14×14 (four) and 1→8 at 28×28, counting 2·cig·taps·m·n per
// call (CPU time where the benchmark can read it).
func BenchmarkPlanesGrad(b *testing.B) {
	for _, sh := range [][4]int{{8, 9, 8, 1682}, {16, 9, 16, 900}, {1, 9, 8, 1682}} {
		cig, taps, m, n := sh[0], sh[1], sh[2], sh[3]
		b.Run(fmt.Sprintf("cig%d_m%d_n%d", cig, m, n), func(b *testing.B) {
			rng := xorshift(3)
			gap := 64
			a, y := make([]float32, cig*taps*m), make([]float32, gap+m*(n+gap))
			dst := make([]float32, cig*n)
			rng.fill(a, 0)
			rng.fill(y, 0)
			shifts := make([]int32, taps)
			for i := range shifts {
				shifts[i] = int32(i * 7)
			}
			c0 := procCPU()
			for b.Loop() {
				PlanesGrad(a, y, gap, shifts, dst, cig, taps, m, n, n+gap, n)
			}
			b.ReportMetric(2*float64(cig*taps*m*n)*float64(b.N)/(procCPU()-c0).Seconds()/1e9, "cpu-GFLOP/s")
		})
	}
}

// im2colIndex is the window map [C·KH·KW × H·W] of a 3×3 convolution with padding 1 and stride s over C×H×W.
func im2colIndex(C, H, W, s int) []int32 {
	oh, ow := (H+2-3)/s+1, (W+2-3)/s+1
	var idx []int32
	for c := 0; c < C; c++ {
		for ky := 0; ky < 3; ky++ {
			for kx := 0; kx < 3; kx++ {
				for oy := 0; oy < oh; oy++ {
					for ox := 0; ox < ow; ox++ {
						iy, ix := oy*s+ky-1, ox*s+kx-1
						j := int32(-1)
						if iy >= 0 && iy < H && ix >= 0 && ix < W {
							j = int32((c*H+iy)*W + ix)
						}
						idx = append(idx, j)
					}
				}
			}
		}
	}
	return idx
}

// BenchmarkGatherScatterIdx times GatherIdx and ScatterAddIdx on the example ResNet's 3×3/2 8→16 windows (28×28)
// and 32→32's (7×7), in cpu-ns a value where the benchmark can read CPU time.
func BenchmarkGatherScatterIdx(b *testing.B) {
	for _, sh := range [][4]int{{8, 28, 28, 2}, {32, 7, 7, 1}} {
		idx := NewIndex(im2colIndex(sh[0], sh[1], sh[2], sh[3]))
		src, col := make([]float32, sh[0]*sh[1]*sh[2]), make([]float32, idx.Len())
		rng := xorshift(5)
		rng.fill(src, 0)
		b.Run(fmt.Sprintf("gather/%dx%dx%d_s%d", sh[0], sh[1], sh[2], sh[3]), func(b *testing.B) {
			c0 := procCPU()
			for b.Loop() {
				GatherIdx(col, src, idx)
			}
			b.ReportMetric(float64((procCPU()-c0).Nanoseconds())/float64(b.N)/float64(idx.Len()), "cpu-ns/value")
		})
		b.Run(fmt.Sprintf("scatter/%dx%dx%d_s%d", sh[0], sh[1], sh[2], sh[3]), func(b *testing.B) {
			c0 := procCPU()
			for b.Loop() {
				ScatterAddIdx(src, col, idx)
			}
			b.ReportMetric(float64((procCPU()-c0).Nanoseconds())/float64(b.N)/float64(idx.Len()), "cpu-ns/value")
		})
	}
}

// BenchmarkMatMulAddRows times MatMulAddRows on the example ResNet's planes' forward products (m, k, n): 8→8 at
// 28×28 (two images a pass) and 16→16 at 14×14 (four), each of b's rows read at a shifted offset.
func BenchmarkMatMulAddRows(b *testing.B) {
	for _, sh := range [][3]int{{8, 72, 1682}, {16, 144, 900}, {8, 9, 1682}} {
		m, k, n := sh[0], sh[1], sh[2]
		b.Run(fmt.Sprintf("%dx%dx%d", m, k, n), func(b *testing.B) {
			rng := xorshift(4)
			a, y, c := make([]float32, m*k), make([]float32, k/9*(n+64)+64), make([]float32, m*n)
			rng.fill(a, 0)
			rng.fill(y, 0)
			offs := make([]int32, k)
			for p := range offs {
				offs[p] = int32(p/9*(n+64) + p%9*3)
			}
			c0 := procCPU()
			for b.Loop() {
				MatMulAddRows(a, y, offs, c, m, k, n, n)
			}
			b.ReportMetric(2*float64(m*k*n)*float64(b.N)/(procCPU()-c0).Seconds()/1e9, "cpu-GFLOP/s")
		})
	}
}

// BenchmarkMatMulAddT times MatMulAdd and MatMulAddT side by side on the products of convolutions image by image
// (forward W·cols and backward Wᵀ·∂out, m×k×n), whose n columns leave a part-filled vector: Fashion's
// 32→64 at 7×7, the MobileNet pointwise 16→96 at 14×14, the first layers' 1→32 at 14×14.
func BenchmarkMatMulAddT(b *testing.B) {
	for _, sh := range [][3]int{{64, 288, 49}, {288, 64, 49}, {96, 16, 196}, {16, 96, 196}, {24, 96, 196}, {96, 24, 196}, {32, 9, 196}, {9, 32, 196}, {16, 256, 49}, {256, 32, 49}} {
		m, k, n := sh[0], sh[1], sh[2]
		rng := xorshift(5)
		a, at, bm, c := make([]float32, m*k), make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
		rng.fill(a, 0)
		rng.fill(bm, 0)
		TransposeGo(at, a, m, k)
		for _, t := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%dx%d/T=%v", m, k, n, t), func(b *testing.B) {
				for b.Loop() {
					if t {
						MatMulAddT(a, at, bm, c, m, k, n)
					} else {
						MatMulAdd(a, bm, c, m, k, n)
					}
				}
				b.ReportMetric(2*float64(m*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
