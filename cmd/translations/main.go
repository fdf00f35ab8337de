// Command translations makes weights/global.dcw, the digits' GLAM-CLUE translations, from the shipped VAE and BNN
// and MNIST's training split of `make data` (what `make translations` runs, and `make train` after the anchors):
//
//	go run ./cmd/translations -data data -out weights/global.dcw
//	go run ./cmd/translations -models weights/fashion -data data/fashion -out weights/fashion/global.dcw
//
// It takes the training digits the shipped BNN is uncertain about (H_total above δ-CLUE's default threshold),
// runs δ-CLUE on each with the page's default parameters (package engine/glam: Uncertain, Reach), groups them by
// the label read (a) and each label their δ-CLUEs reach (b), and for every group of at least -min members
// learns a translation t_{a→b} with gomlx (internal/translations: full-batch Adam from t = 0, no random
// draws), on at most -max-members members (the first by index). The same data give the same file.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/translations"
)

func main() {
	data := flag.String("data", "data", "folder written by `make data`")
	out := flag.String("out", filepath.Join("weights", "global.dcw"), "the translations file to write")
	minMembers := flag.Int("min", glam.MinMembers, "the fewest members a group needs for a translation")
	maxMembers := flag.Int("max-members", glam.MaxMembers, "learn each translation on at most this many members (the first by index)")
	maxUncertain := flag.Int("max-uncertain", 0, "run δ-CLUE on at most this many uncertain training items, evenly spaced over the split, which lists its items class by class (0: all)")
	models := flag.String("models", modelsource.Digits, modelsource.Help+"; its training split is read from -data (data/fashion for the Fashion models)")
	flag.Parse()
	if err := run(*models, *data, *out, *minMembers, *maxMembers, *maxUncertain); err != nil {
		fmt.Fprintln(os.Stderr, "translations:", err)
		os.Exit(1)
	}
}

func run(spec, dataDir, out string, minMembers, maxMembers, maxUncertain int) error {
	start := time.Now()
	src, err := modelsource.Open(spec)
	if err != nil {
		return err
	}
	train, err := anchors.ReadTrain(dataDir, src.Bundle.VAE.Manifest.Dataset)
	if err != nil {
		return err
	}
	b, err := translations.Learn(src.Bundle, train, translations.Options{MinMembers: minMembers, MaxMembers: maxMembers,
		MaxUncertain: maxUncertain, Digits: src.ShippedDigits, Log: os.Stdout})
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes) in %.0fs\n", out, len(b), time.Since(start).Seconds())
	return nil
}
