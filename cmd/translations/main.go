// Command translations makes weights/global.dcw, the digits' GLAM-CLUE translations, from the shipped VAE and BNN
// and MNIST's training split of `make data` (what `make translations` runs, and `make train` after the anchors):
//
//	go run ./cmd/translations -data data -out weights/global.dcw
//	go run ./cmd/translations -models weights/fashion -data data/fashion -out weights/fashion/global.dcw
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
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/training"
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
	vae, bnn := src.Bundle.VAE, src.Bundle.BNN
	m, _, err := glam.LoadBundle(src.Bundle)
	if err != nil {
		return err
	}
	// The digits learn through their own graphs, as they always have (the same file, bit for bit); any other
	// models through their description's.
	learn := func(z, x []float32, n, b int, cfg training.TranslationConfig) ([]float32, []float64, error) {
		return training.TrainTranslation(training.Backend(), vae, bnn, z, x, n, b, cfg)
	}
	if !src.ShippedDigits {
		p, err := training.FileTensors(vae, bnn)
		if err != nil {
			return err
		}
		learn = func(z, x []float32, n, b int, cfg training.TranslationConfig) ([]float32, []float64, error) {
			return training.TrainDescribedTranslation(training.Backend(), src.Description(), p, z, x, n, b, cfg)
		}
	}
	train, err := anchors.ReadTrain(dataDir, vae.Manifest.Dataset)
	if err != nil {
		return err
	}
	images := train.Floats()
	p := clue.Defaults()
	idx, read := glam.Uncertain(m, images, p.HThreshold)
	all := len(idx)
	idx, read = glam.Spread(idx, read, maxUncertain)
	fmt.Printf("%d of %d training items have H_total > %g; running δ-CLUE (n = %d, δ = %g) on %d of them…\n", all, train.Len(), p.HThreshold, p.N, p.Delta, len(idx))
	reached, err := glam.Reach(context.Background(), m, images, idx, read, p, runtime.NumCPU())
	if err != nil {
		return err
	}
	groups := glam.Groups(reached, minMembers)
	fmt.Printf("%d groups a→b with at least %d members (%.0fs)\n", len(groups), minMembers, time.Since(start).Seconds())
	cfg := training.DefaultTranslation
	var ts []glam.Translation
	losses := map[string]any{}
	for _, g := range groups {
		members := g.Members[:min(len(g.Members), maxMembers)]
		x := make([]float32, 0, len(members)*mnist.Pixels) // the members' digits, one after another
		for _, i := range members {
			x = append(x, images[i*mnist.Pixels:(i+1)*mnist.Pixels]...)
		}
		z := m.VAE.Encode(x)
		t, loss, err := learn(z, x, len(members), g.To, cfg)
		if err != nil {
			return fmt.Errorf("group %d→%d: %w", g.From, g.To, err)
		}
		tr := glam.Translation{From: g.From, To: g.To, T: t, Members: len(g.Members)}
		ts = append(ts, tr)
		losses[glam.TensorName(g.From, g.To)] = []float64{loss[0], loss[len(loss)-1]}
		fmt.Printf("  %d→%d  %3d members (learned on %d)  loss %.3f → %.3f  ‖t‖ %.2f\n", g.From, g.To, len(g.Members), len(members), loss[0], loss[len(loss)-1], tr.Norm())
	}
	info := map[string]any{
		"config": cfg, "min_members": minMembers, "max_members": maxMembers, "uncertain": all,
		"h_threshold": p.HThreshold, "search": map[string]any{"n": p.N, "delta": p.Delta, "scheme": p.Scheme.String(), "seed": p.Seed},
		"loss_first_last": losses, "tool": "cmd/translations"}
	if len(idx) < all {
		info["searched"] = len(idx)
		info["searched_how"] = "evenly spaced over the uncertain items, in the split's order (glam.Spread)"
	}
	b, err := glam.Encode(ts, m.VAE.Latent, vae.Manifest.Dataset, info)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes, %d translations) in %.0fs\n", out, len(b), len(ts), time.Since(start).Seconds())
	return nil
}
