//go:build !denseonly

package engine

import (
	"fmt"
	"testing"

	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/internal/modelsource"
)

// fashionObjective builds the objective of the shipped Fashion-MNIST models (convolutional VAE and MC-dropout
// classifier) around test item 406, the garment the classifier is least sure of, with n points scattered within
// the search's reach of its code.
func fashionObjective(t testing.TB, n int) *Objective {
	t.Helper()
	m, err := modelsource.Open(modelsource.Fashion)
	if err != nil {
		t.Fatal(err)
	}
	v, b, err := Load(m.Description(), m.Bundle.Files)
	if err != nil {
		t.Fatal(err)
	}
	return scatteredObjective(t, v, b, m.Test.Float(406, nil), n)
}

// goldenFashionObjective is the SHA-256 of the bits of the cost, p̄, uncertainties, decoded images and ∂L/∂z of
// fashionObjective(t, 13), first computed natively with the dense products: the Fashion models give the same
// bits natively and in WebAssembly, with every kernel, the convolutions' sparse products on or off.
const goldenFashionObjective = "9b6aace3dea50c4321c53960ce380a1c1e6c1ff103bdd6a1e4fe7ca9f887eff4"

// TestFashionGoldenBits: see goldenFashionObjective.
func TestFashionGoldenBits(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		withSparseProducts(sparse, func() {
			if got := objectiveHash(fashionObjective(t, 13)); got != goldenFashionObjective {
				t.Errorf("sparse products %v: the Fashion objective's bits hash to %s, want %s (kernel %s)", sparse, got, goldenFashionObjective, kernel.Native)
			}
		})
	}
}

// BenchmarkPointStepFashion times one forward and backward pass of the Fashion models' objective at batches of
// 50 points (one of two workers' share of the page's default 100 restarts) and 100, with the convolutions'
// products dense and sparse side by side (so that with -count they alternate). GFLOP/s counts every
// multiply-add of the dense products (PointStepMultiplyAdds), whatever is skipped.
func BenchmarkPointStepFashion(b *testing.B) {
	for _, n := range []int{50, 100} {
		for _, sparse := range []bool{false, true} {
			b.Run(fmt.Sprintf("batch%d/sparse=%v", n, sparse), func(b *testing.B) {
				withSparseProducts(sparse, func() {
					stepAll(b, fashionObjective(b, n))
					b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/step")
				})
			})
		}
	}
}
