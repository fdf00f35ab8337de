//go:build gomlxbench

package engine

// The gomlx side of the point-step comparison: the same forward and backward pass of the same loss at the same
// points as BenchmarkPointStep/batch100, as a compiled gomlx graph (pure-Go backend, float32). The build tag
// keeps gomlx out of every ordinary build, test and WASM test run. It runs natively and in WASM:
//
//	go test -tags gomlxbench -run '^$' -bench 'PointStep/batch100' ./engine/
//	make bench-gomlx-wasm   # both benchmarks in one Node process, engine with the SIMD kernel

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

func BenchmarkGomlxPointStep(b *testing.B) {
	const n = 100
	b.Run("batch100", func(b *testing.B) {
		// The engine's objective gives the points (benchObjective's), and its results to check gomlx against.
		o := benchObjective(b, n)
		v, bnn := loadShipped(b)
		s, err := mnist.HeldOut()
		if err != nil {
			b.Fatal(err)
		}
		x0 := s.Float(0, nil)
		y0 := bnn.Classify(x0)[0].Probs
		vf, err := weights.ShippedVAE()
		if err != nil {
			b.Fatal(err)
		}
		bf, err := weights.ShippedBNN()
		if err != nil {
			b.Fatal(err)
		}
		obj := training.NewObjective(vf, bf, training.OracleWeights{Total: 1, LambdaX: 0.03, LambdaY: 0.1}, dtypes.Float32)
		z := append([]float32(nil), o.Z.Data[:n*v.Latent]...)
		zt := tensors.FromFlatDataAndDimensions(z, n, v.Latent)
		x0t := tensors.FromFlatDataAndDimensions(x0, 1, Pixels)
		y0t := tensors.FromFlatDataAndDimensions(y0, 1, len(y0))

		// Warm-up (compiles the graph) and a check that gomlx computes the same loss and gradient.
		out := obj.RunTensors(zt, x0t, y0t)
		cost := tensors.MustCopyFlatData[float32](out[6])
		grad := tensors.MustCopyFlatData[float32](out[7])
		finalize(out)
		o.Forward()
		o.Backward()
		if e := relDiff(cost, o.Cost.Live()); e > 1e-3 {
			b.Fatalf("gomlx cost differs from the engine's: relative error %.3g", e)
		}
		if e := relDiff(grad, o.Z.Grad[:n*v.Latent]); e > 1e-2 {
			b.Fatalf("gomlx gradient differs from the engine's: relative error %.3g", e)
		}

		for b.Loop() {
			finalize(obj.RunTensors(zt, x0t, y0t))
		}
		flops := 2 * float64(PointStepMultiplyAdds(v, bnn)) * n * float64(b.N)
		b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/step")
	})
}

// finalize frees gomlx's output buffers now rather than at some later garbage collection.
func finalize(ts []*tensors.Tensor) {
	for _, t := range ts {
		t.FinalizeAll()
	}
}

// relDiff is ‖a − b‖ / ‖b‖ (‖b‖ floored at 1e-12).
func relDiff(a, b []float32) float64 {
	var d, nb float64
	for i := range b {
		d += (float64(a[i]) - float64(b[i])) * (float64(a[i]) - float64(b[i]))
		nb += float64(b[i]) * float64(b[i])
	}
	return math.Sqrt(d) / math.Max(math.Sqrt(nb), 1e-12)
}
