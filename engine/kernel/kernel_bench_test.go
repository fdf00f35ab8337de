package kernel

import (
	"fmt"
	"testing"
)

// benchShapes are the model's products (m, k, n).
var benchShapes = []shape{
	{100, 16, 256}, {100, 256, 512}, {100, 512, 784}, {100, 784, 512}, {100, 784, 256},
	{2000, 256, 128}, {2000, 128, 10}, {2000, 10, 128}, {2000, 128, 256}, {100, 256, 784},
}

// BenchmarkMatMulAdd reports GFLOP/s, counting 2·m·k·n per call, on dense inputs (no zeros in a: the work the
// kernel skips on zeros is not counted as free).
func BenchmarkMatMulAdd(b *testing.B) { benchKernel(b, MatMulAdd) }

// BenchmarkMatMulAddGo is the pure-Go kernel in every build (in a wasmsimd build, for comparison with SIMD).
func BenchmarkMatMulAddGo(b *testing.B) { benchKernel(b, MatMulAddGo) }

func benchKernel(b *testing.B, f func(a, b, c []float32, m, k, n int)) {
	for _, sh := range benchShapes {
		m, k, n := sh.m, sh.k, sh.n
		b.Run(fmt.Sprintf("%dx%dx%d", m, k, n), func(b *testing.B) {
			rng := xorshift(1)
			x, y, z := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
			rng.fill(x, 0)
			rng.fill(y, 0)
			for b.Loop() {
				f(x, y, z, m, k, n)
			}
			b.ReportMetric(2*float64(m)*float64(k)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
