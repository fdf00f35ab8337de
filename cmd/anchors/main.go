// Command anchors makes weights/anchors.dcw from the shipped VAE and BNN and the digits' training split of `make
// data` (what `make anchors` runs, and `make compact` after converting the models):
//
//	go run ./cmd/anchors -data data -out weights/anchors.dcw
//	go run ./cmd/anchors -models weights/fashion -data data/fashion -out weights/fashion/anchors.dcw
//
// The anchors are the latent codes of the training digits that the shipped (int8) BNN classifies correctly with
// predictive entropy below -max-entropy (0.05, anchors.MaxEntropy), encoded by the shipped VAE, per class, stored
// as int8 with a scale per code (package engine/anchors, which makes them for any bundle's models and items).
// The engine computes them, so the file is the same bytes on every machine; engine/anchors' test checks that the
// committed file is what this command makes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/weights"
)

func main() {
	data := flag.String("data", "data", "folder written by `make data`")
	out := flag.String("out", filepath.Join("weights", weights.BundleAnchors), "the anchors file to write")
	models := flag.String("models", modelsource.Digits, modelsource.Help+"; its training split is read from -data (data/fashion for the Fashion models)")
	maxEntropy := flag.Float64("max-entropy", anchors.MaxEntropy, "a correctly classified training digit below this predictive entropy (nats) is an anchor")
	perClass := flag.Int("max-per-class", 0, "keep at most this many anchors of each class, the first by training index (0: all)")
	flag.Parse()
	if err := run(*models, *data, *out, *maxEntropy, *perClass); err != nil {
		fmt.Fprintln(os.Stderr, "anchors:", err)
		os.Exit(1)
	}
}

func run(spec, dataDir, out string, maxEntropy float64, perClass int) error {
	src, err := modelsource.Open(spec)
	if err != nil {
		return err
	}
	models := src.Bundle
	split := models.VAE.Manifest.Dataset
	train, err := anchors.ReadTrain(dataDir, split)
	if err != nil {
		return err
	}
	b, err := anchors.MakeAtMost(models, train, split, maxEntropy, perClass)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	f, err := weights.Decode(out, b)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes): %v anchors per class\n", out, len(b), f.Manifest.Metrics["per_class"])
	return nil
}
