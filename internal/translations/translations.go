//go:build !js

// Package translations learns GLAM-CLUE's global translations for a bundle from its training items: the items
// the classifier is uncertain about (H_total above δ-CLUE's default threshold) are searched with the page's
// default parameters (engine/glam: Uncertain, Reach), grouped by the label read (a) and each label their
// δ-CLUEs reach (b), and every group of at least MinMembers learns a translation t_{a→b} with gomlx
// (full-batch Adam from t = 0, no random draws). The same items give the same file. cmd/translations (the
// shipped models' global.dcw) and `deltaclue import` both use it.
package translations

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// Options are how many groups and members to learn from.
type Options struct {
	MinMembers, MaxMembers int // a group's fewest members for a translation; learn on at most MaxMembers (the first by index)
	// MaxUncertain caps how many uncertain items are searched, evenly spaced over the items (glam.Spread), as a
	// split that lists its items class by class needs; 0 searches all.
	MaxUncertain int
	// Digits learns through the digits' own graphs (training.TrainTranslation), which made their shipped file;
	// any other bundle learns through its description's (training.TrainDescribedTranslation), or with the
	// engine's gradients when Engine is set (LearnOnEngine: the same loss and Adam, many times faster on a
	// convolutional model; the shipped files were made with gomlx and stay so).
	Digits, Engine bool
	Log            io.Writer // progress, one line per group; nil for none
	Tool           string    // what the file's manifest names as its maker ("cmd/translations" when empty)
}

// Learn returns the translations file (glam.Encode) for bundle b, learned on the training items train.
func Learn(b *weights.Bundle, train dataset.Items, opt Options) ([]byte, error) {
	start := time.Now()
	log := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format, a...)
		}
	}
	vae, bnn := b.VAE, b.BNN
	m, _, err := glam.LoadBundle(b)
	if err != nil {
		return nil, err
	}
	learn := func(z, x []float32, n, to int, cfg training.TranslationConfig) ([]float32, []float64, error) {
		return training.TrainTranslation(training.Backend(), vae, bnn, z, x, n, to, cfg)
	}
	switch {
	case opt.Engine:
		learn = func(z, x []float32, n, to int, cfg training.TranslationConfig) ([]float32, []float64, error) {
			return LearnOnEngine(m.VAE, m.BNN, z, x, n, to, cfg)
		}
	case !opt.Digits:
		p, err := training.FileTensors(vae, bnn)
		if err != nil {
			return nil, err
		}
		learn = func(z, x []float32, n, to int, cfg training.TranslationConfig) ([]float32, []float64, error) {
			return training.TrainDescribedTranslation(training.Backend(), b.Description, p, z, x, n, to, cfg)
		}
	}
	size := train.Size()
	images := make([]float32, train.Len()*size)
	for i := 0; i < train.Len(); i++ {
		train.Float(i, images[i*size:(i+1)*size])
	}
	p := clue.DefaultsFor(b.Description) // the models' own defaults (their description's search defaults)
	idx, read := glam.Uncertain(m, images, p.HThreshold)
	all := len(idx)
	idx, read = glam.Spread(idx, read, opt.MaxUncertain)
	log("%d of %d training items have H_total > %g; running δ-CLUE (n = %d, δ = %g) on %d of them…\n", all, train.Len(), p.HThreshold, p.N, p.Delta, len(idx))
	reached, err := glam.Reach(context.Background(), m, images, idx, read, p, runtime.NumCPU())
	if err != nil {
		return nil, err
	}
	groups := glam.Groups(reached, opt.MinMembers)
	log("%d groups a→b with at least %d members (%.0fs)\n", len(groups), opt.MinMembers, time.Since(start).Seconds())
	cfg := training.DefaultTranslation
	var ts []glam.Translation
	losses := map[string]any{}
	for _, g := range groups {
		members := g.Members[:min(len(g.Members), opt.MaxMembers)]
		x := make([]float32, 0, len(members)*size) // the members' items, one after another
		for _, i := range members {
			x = append(x, images[i*size:(i+1)*size]...)
		}
		z := m.VAE.Encode(x)
		t, loss, err := learn(z, x, len(members), g.To, cfg)
		if err != nil {
			return nil, fmt.Errorf("group %d→%d: %w", g.From, g.To, err)
		}
		tr := glam.Translation{From: g.From, To: g.To, T: t, Members: len(g.Members)}
		ts = append(ts, tr)
		losses[glam.TensorName(g.From, g.To)] = []float64{loss[0], loss[len(loss)-1]}
		log("  %d→%d  %3d members (learned on %d)  loss %.3f → %.3f  ‖t‖ %.2f\n", g.From, g.To, len(g.Members), len(members), loss[0], loss[len(loss)-1], tr.Norm())
	}
	info := map[string]any{
		"config": cfg, "min_members": opt.MinMembers, "max_members": opt.MaxMembers, "uncertain": all,
		"h_threshold": p.HThreshold, "search": map[string]any{"n": p.N, "delta": p.Delta, "scheme": p.Scheme.String(), "seed": p.Seed},
		"loss_first_last": losses, "tool": "cmd/translations"}
	if opt.Tool != "" {
		info["tool"] = opt.Tool
	}
	if len(idx) < all {
		info["searched"] = len(idx)
		info["searched_how"] = "evenly spaced over the uncertain items, in the split's order (glam.Spread)"
	}
	return glam.Encode(ts, m.VAE.Latent, vae.Manifest.Dataset, info)
}
