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
// objective (classifier and VAE) at 50 points, one of the page's two workers' share of 100 restarts, and at 10,
// the passes the search cuts those 50 into (clue's passRows), around the item docs/peers-resnet.md explains (397),
// timed as timeSteps does. It is skipped where the example has not been
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
	for _, n := range []int{10, 50} {
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

// goldenExampleResNet is objectiveHash of the imported example's objective at 50 points around item 397, then
// shrunk to 3 (TestExampleResNetGolden): the same natively with every kernel and under Node with and without the
// SIMD kernel.
const (
	goldenExampleResNet       = "5a2ec5737c116e34f7a8d0265799fea0572d716e8ad95719e1caee9c562805da"
	goldenExampleResNetShrunk = "2bbd9a446f0c68e250ff9796a5ff806c04223d4a9b565b9e22aece856f233a93"
)

// TestExampleResNetGolden: the example ResNet's objective (its residual blocks' shared gradients, planes, rows
// and transposed convolutions) keeps its bits. It is skipped where the example has not been imported.
func TestExampleResNetGolden(t *testing.T) {
	if _, err := os.Stat(exampleResNetDir + "/model.json"); err != nil {
		t.Skip("no example ResNet (make example-pytorch):", err)
	}
	m, err := modelsource.Open(exampleResNetDir)
	if err != nil {
		t.Fatal(err)
	}
	v, bnn, err := Load(m.Description(), m.Bundle.Files)
	if err != nil {
		t.Fatal(err)
	}
	o := scatteredObjective(t, v, bnn, m.Test.Float(397, nil), 50)
	if got := objectiveHash(o); got != goldenExampleResNet {
		t.Errorf("the example ResNet's objective hashes to %s, want %s", got, goldenExampleResNet)
	}
	if err := o.Graph.SetBatch(3); err != nil {
		t.Fatal(err)
	}
	if got := objectiveHash(o); got != goldenExampleResNetShrunk {
		t.Errorf("shrunk to 3 points: %s, want %s", got, goldenExampleResNetShrunk)
	}
}
