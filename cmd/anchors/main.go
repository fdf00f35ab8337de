// Command anchors makes weights/anchors.dcw from the shipped VAE and BNN and the training split of `make data`
// (what `make anchors` runs, and `make compact` after converting the models):
//
//	go run ./cmd/anchors -data data -out weights/anchors.dcw
//
// The anchors are the latent codes of the training digits that the shipped (int8) BNN classifies correctly with
// predictive entropy below 0.05, encoded by the shipped VAE, per class, stored as int8 with a scale per code
// (package engine/anchors). The engine computes them, so the file is the same bytes on every machine;
// engine/anchors' test checks that the committed file is what this command makes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/weights"
)

func main() {
	data := flag.String("data", "data", "folder written by `make data`")
	out := flag.String("out", filepath.Join("weights", weights.BundleAnchors), "the anchors file to write")
	flag.Parse()
	if err := run(*data, *out); err != nil {
		fmt.Fprintln(os.Stderr, "anchors:", err)
		os.Exit(1)
	}
}

func run(dataDir, out string) error {
	vae, err := weights.ShippedVAE()
	if err != nil {
		return err
	}
	bnn, err := weights.ShippedBNN()
	if err != nil {
		return err
	}
	train, err := anchors.ReadTrain(dataDir, vae.Manifest.Dataset)
	if err != nil {
		return err
	}
	b, err := anchors.Make(vae, bnn, train, vae.Manifest.Dataset)
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
