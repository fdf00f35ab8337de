//go:build !denseonly

package engine

import (
	"fmt"
	"os"
	"testing"

	"github.com/deltaclue/deltaclue/internal/modelsource"
)

// exampleResNetDir is where `make example-pytorch` imports examples/pytorch's small ResNet (the models of
// docs/peers-resnet.md), from this package's folder.
const exampleResNetDir = "../build/example/clothes-resnet"

// BenchmarkPointStepExampleResNet times a step (forward and backward of L(z)) of the imported small ResNet's
// objective (classifier and VAE) at 50 points, one of the page's two workers' share of 100 restarts, around the
// item docs/peers-resnet.md explains (397), timed as timeSteps does. It is skipped where the example has not been
// imported.
func BenchmarkPointStepExampleResNet(b *testing.B) {
	if _, err := os.Stat(exampleResNetDir + "/model.json"); err != nil {
		b.Skip("no example ResNet (make example-pytorch):", err)
	}
	m, err := modelsource.Open(exampleResNetDir)
	if err != nil {
		b.Fatal(err)
	}
	v, bnn, err := Load(m.Description(), m.Bundle.Files)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{50} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			o := scatteredObjective(b, v, bnn, m.Test.Float(397, nil), n)
			o.Forward()
			o.Backward()
			timeSteps(b, 0, func() {
				o.Forward()
				o.Backward()
			})
		})
	}
}
