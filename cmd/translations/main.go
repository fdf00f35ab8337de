// Command translations makes weights/global.dcw, the digits' GLAM-CLUE translations, from the shipped VAE and BNN
// and MNIST's training split of `make data` (what `make translations` runs, and `make train` after the anchors):
//
//	go run ./cmd/translations -data data -out weights/global.dcw
//
// It takes the training digits the shipped BNN is uncertain about (H_total above δ-CLUE's default threshold),
// runs δ-CLUE on each with the page's default parameters (package engine/glam: Uncertain, Reach), groups them by
// the label read (a) and each label their δ-CLUEs reach (b), and for every group of at least -min members
// learns a translation t_{a→b} with gomlx (training.TrainTranslation: full-batch Adam from t = 0, no random
// draws), on at most -max-members members (the first by index). The same data give the same file.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

func main() {
	data := flag.String("data", "data", "folder written by `make data`")
	out := flag.String("out", filepath.Join("weights", "global.dcw"), "the translations file to write")
	minMembers := flag.Int("min", glam.MinMembers, "the fewest members a group needs for a translation")
	maxMembers := flag.Int("max-members", glam.MaxMembers, "learn each translation on at most this many members (the first by index)")
	flag.Parse()
	if err := run(*data, *out, *minMembers, *maxMembers); err != nil {
		fmt.Fprintln(os.Stderr, "translations:", err)
		os.Exit(1)
	}
}

func run(dataDir, out string, minMembers, maxMembers int) error {
	start := time.Now()
	vae, err := weights.ShippedVAE()
	if err != nil {
		return err
	}
	bnn, err := weights.ShippedBNN()
	if err != nil {
		return err
	}
	m, err := clue.ShippedModels()
	if err != nil {
		return err
	}
	train, err := anchors.ReadTrain(dataDir, vae.Manifest.Dataset)
	if err != nil {
		return err
	}
	images := train.Floats()
	p := clue.Defaults()
	idx, read := glam.Uncertain(m, images, p.HThreshold)
	fmt.Printf("%d of %d training digits have H_total > %g; running δ-CLUE (n = %d, δ = %g) on each…\n", len(idx), train.Len(), p.HThreshold, p.N, p.Delta)
	reached, err := glam.Reach(context.Background(), m, images, idx, read, p, runtime.NumCPU())
	if err != nil {
		return err
	}
	groups := glam.Groups(reached, minMembers)
	fmt.Printf("%d groups a→b with at least %d members (%.0fs)\n", len(groups), minMembers, time.Since(start).Seconds())
	cfg := training.DefaultTranslation
	backend := training.Backend()
	var ts []glam.Translation
	losses := map[string]any{}
	for _, g := range groups {
		members := g.Members[:min(len(g.Members), maxMembers)]
		x := make([]float32, 0, len(members)*mnist.Pixels) // the members' digits, one after another
		for _, i := range members {
			x = append(x, images[i*mnist.Pixels:(i+1)*mnist.Pixels]...)
		}
		z := m.VAE.Encode(x)
		t, loss, err := training.TrainTranslation(backend, vae, bnn, z, x, len(members), g.To, cfg)
		if err != nil {
			return fmt.Errorf("group %d→%d: %w", g.From, g.To, err)
		}
		tr := glam.Translation{From: g.From, To: g.To, T: t, Members: len(g.Members)}
		ts = append(ts, tr)
		losses[glam.TensorName(g.From, g.To)] = []float64{loss[0], loss[len(loss)-1]}
		fmt.Printf("  %d→%d  %3d members (learned on %d)  loss %.3f → %.3f  ‖t‖ %.2f\n", g.From, g.To, len(g.Members), len(members), loss[0], loss[len(loss)-1], tr.Norm())
	}
	b, err := glam.Encode(ts, m.VAE.Latent, vae.Manifest.Dataset, map[string]any{
		"config": cfg, "min_members": minMembers, "max_members": maxMembers, "uncertain": len(idx),
		"h_threshold": p.HThreshold, "search": map[string]any{"n": p.N, "delta": p.Delta, "scheme": p.Scheme.String(), "seed": p.Seed},
		"loss_first_last": losses, "tool": "cmd/translations"})
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes, %d translations) in %.0fs\n", out, len(b), len(ts), time.Since(start).Seconds())
	return nil
}
