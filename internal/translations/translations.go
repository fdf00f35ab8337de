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
	"slices"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/budget"
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
	// HTotal and Label, when not nil, are the classifier's H_total and label read on each training item (as
	// engine.BNN.Classify gives them, on these models), which Prepare would otherwise compute.
	HTotal []float32
	Label  []int
	// Workers learn groups at once with the engine (1 when 0; the translations do not depend on it).
	Workers int
	// LearnBudget bounds the learning's time (0: no bound): a probe times a step, and the members a group is
	// learned on shrink (to MinMembers at least), then the smallest groups are left out, until it fits.
	LearnBudget time.Duration
	// Progress, when not nil, gets a line every ten seconds or so while groups are learned.
	Progress io.Writer
}

// Learn returns the translations file (glam.Encode) for bundle b, learned on the training items train.
func Learn(b *weights.Bundle, train dataset.Items, opt Options) ([]byte, error) {
	s, err := Prepare(b, train, opt)
	if err != nil {
		return nil, err
	}
	reached, err := glam.Reach(context.Background(), s.Models, s.Images, s.Idx, s.Read, s.Params, runtime.NumCPU())
	if err != nil {
		return nil, err
	}
	file, _, err := s.Finish(reached, s.Params, opt)
	return file, err
}

// Searches are the δ-CLUE searches the translations are learned from: Learn runs them all (glam.Reach), a
// caller under a budget as many as it has time for, and Finish learns from what they reached.
type Searches struct {
	Models    *clue.Models
	Images    []float32   // the training items, one after another
	Params    clue.Params // the models' own defaults
	Uncertain int         // the training items with H_total above the threshold
	Idx, Read []int       // those searched (at most MaxUncertain, evenly spaced), with the labels read
	b         *weights.Bundle
	size      int // an item's values
	start     time.Time
	log       func(format string, a ...any)
}

// Prepare finds the uncertain training items of bundle b and picks those to search.
func Prepare(b *weights.Bundle, train dataset.Items, opt Options) (*Searches, error) {
	s := &Searches{b: b, start: time.Now(), log: func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format, a...)
		}
	}}
	m, _, err := glam.LoadBundle(b)
	if err != nil {
		return nil, err
	}
	s.Models = m
	size := train.Size()
	s.size = size
	s.Images = make([]float32, train.Len()*size)
	for i := 0; i < train.Len(); i++ {
		train.Float(i, s.Images[i*size:(i+1)*size])
	}
	p := clue.DefaultsFor(b.Description) // the models' own defaults (their description's search defaults)
	s.Params = p
	var idx, read []int
	if opt.HTotal != nil {
		if len(opt.HTotal) != train.Len() || len(opt.Label) != train.Len() {
			return nil, fmt.Errorf("translations: %d entropies and %d labels read for %d training items", len(opt.HTotal), len(opt.Label), train.Len())
		}
		for i, h := range opt.HTotal { // as glam.Uncertain reads them
			if float64(h) > p.HThreshold {
				idx, read = append(idx, i), append(read, opt.Label[i])
			}
		}
	} else {
		idx, read = glam.Uncertain(m, s.Images, p.HThreshold)
	}
	s.Uncertain = len(idx)
	s.Idx, s.Read = glam.Spread(idx, read, opt.MaxUncertain)
	s.log("%d of %d training items have H_total > %g; running δ-CLUE (n = %d, δ = %g) on %d of them…\n", s.Uncertain, train.Len(), p.HThreshold, p.N, p.Delta, len(s.Idx))
	return s, nil
}

// Finish learns the translations of the groups that what the searches reached makes (reached in the order of
// the items, searched with p: the models' defaults, or fewer restarts), and returns their file and, under a
// learning budget, what it left out in words.
func (s *Searches) Finish(reached []glam.Reached, p clue.Params, opt Options) ([]byte, []string, error) {
	start := time.Now()
	b, m := s.b, s.Models
	vae, bnn := b.VAE, b.BNN
	var learn learner = func(z, x []float32, n, to int, cfg training.TranslationConfig) ([]float32, []float64, error) {
		return training.TrainTranslation(training.Backend(), vae, bnn, z, x, n, to, cfg)
	}
	workers := 1
	switch {
	case opt.Engine:
		learn = func(z, x []float32, n, to int, cfg training.TranslationConfig) ([]float32, []float64, error) {
			return LearnOnEngine(m.VAE, m.BNN, z, x, n, to, cfg)
		}
		workers = max(opt.Workers, 1)
	case !opt.Digits:
		tp, err := training.FileTensors(vae, bnn)
		if err != nil {
			return nil, nil, err
		}
		learn = func(z, x []float32, n, to int, cfg training.TranslationConfig) ([]float32, []float64, error) {
			return training.TrainDescribedTranslation(training.Backend(), b.Description, tp, z, x, n, to, cfg)
		}
	}
	size := s.size
	groups := glam.Groups(reached, opt.MinMembers)
	s.log("%d groups a→b with at least %d members (%.0fs)\n", len(groups), opt.MinMembers, time.Since(s.start).Seconds())
	cfg := training.DefaultTranslation
	members := func(g glam.Group, most int) []float32 { // the first most members' items, one after another
		x := make([]float32, 0, min(len(g.Members), most)*size)
		for _, i := range g.Members[:min(len(g.Members), most)] {
			x = append(x, s.Images[i*size:(i+1)*size]...)
		}
		return x
	}
	most, kept := opt.MaxMembers, len(groups)
	var leftOut []string
	if opt.LearnBudget > 0 && len(groups) > 0 {
		perStep, err := probeStep(groups[0], members, m, learn, cfg, size)
		if err != nil {
			return nil, nil, err
		}
		sizes := make([]int, len(groups))
		for i, g := range groups {
			sizes[i] = len(g.Members)
		}
		most, kept = FitMembers(sizes, opt.MaxMembers, opt.MinMembers, workers, cfg.Steps, perStep, opt.LearnBudget-time.Since(start))
		if most < opt.MaxMembers && most < slices.Max(sizes) {
			leftOut = append(leftOut, fmt.Sprintf("each learned on its first %d members at most, not %d", most, opt.MaxMembers))
		}
		if kept < len(groups) {
			leftOut = append(leftOut, fmt.Sprintf("%d of %d groups learned, the largest", kept, len(groups)))
			groups = largest(groups, kept)
		}
	}
	ts := make([]glam.Translation, len(groups))
	losses := make([][]float64, len(groups))
	st := budget.Stage{Name: "translations", Unit: "groups learned", Total: len(groups), Workers: workers, Log: opt.Progress}
	if _, err := st.Run(context.Background(), func(from, to int) error {
		for k := from; k < to; k++ {
			g := groups[k]
			x := members(g, most)
			n := len(x) / size
			t, loss, err := learn(m.VAE.Encode(x), x, n, g.To, cfg)
			if err != nil {
				return fmt.Errorf("group %d→%d: %w", g.From, g.To, err)
			}
			ts[k], losses[k] = glam.Translation{From: g.From, To: g.To, T: t, Members: len(g.Members)}, loss
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	lossNames := map[string]any{}
	for k, g := range groups {
		loss := losses[k]
		lossNames[glam.TensorName(g.From, g.To)] = []float64{loss[0], loss[len(loss)-1]}
		s.log("  %d→%d  %3d members (learned on %d)  loss %.3f → %.3f  ‖t‖ %.2f\n", g.From, g.To, len(g.Members), min(len(g.Members), most), loss[0], loss[len(loss)-1], ts[k].Norm())
	}
	info := map[string]any{
		"config": cfg, "min_members": opt.MinMembers, "max_members": most, "uncertain": s.Uncertain,
		"h_threshold": p.HThreshold, "search": map[string]any{"n": p.N, "delta": p.Delta, "scheme": p.Scheme.String(), "seed": p.Seed},
		"loss_first_last": lossNames, "tool": "cmd/translations"}
	if opt.Tool != "" {
		info["tool"] = opt.Tool
	}
	if len(reached) < s.Uncertain {
		info["searched"] = len(reached)
		info["searched_how"] = "evenly spaced over the uncertain items, in the split's order (glam.Spread)"
		if len(reached) < len(s.Idx) {
			info["searched_how"] = fmt.Sprintf("evenly spaced over the uncertain items (glam.Spread to %d, then the first %d of budget.Order's order of those): the time's budget", len(s.Idx), len(reached))
		}
	}
	if len(leftOut) > 0 {
		info["learning_budget"] = leftOut
	}
	file, err := glam.Encode(ts, m.VAE.Latent, vae.Manifest.Dataset, info)
	return file, leftOut, err
}

// learner learns a group's translation (LearnOnEngine, or gomlx's graphs).
type learner func(z, x []float32, n, to int, cfg training.TranslationConfig) ([]float32, []float64, error)

// probeStep times a step of learning for one member: runs of 2 and 6 steps on the first group's first 8 members
// (after one that warms up), whose difference is the steps' cost without the setting up.
func probeStep(g glam.Group, members func(glam.Group, int) []float32, m *clue.Models, learn learner, cfg training.TranslationConfig, size int) (time.Duration, error) {
	x := members(g, 8)
	n := len(x) / size
	z := m.VAE.Encode(x)
	took := func(steps int) (time.Duration, error) {
		c := cfg
		c.Steps = steps
		t0 := time.Now()
		_, _, err := learn(z, x, n, g.To, c)
		return time.Since(t0), err
	}
	if _, err := took(2); err != nil {
		return 0, err
	}
	short, err := took(2)
	if err != nil {
		return 0, err
	}
	long, err := took(6)
	if err != nil {
		return 0, err
	}
	return max(long-short, time.Microsecond) / time.Duration(4*n), nil
}

// FitMembers plans the learning of groups of the given sizes (members each), steps Adam steps a group, at
// perStep a member and step, workers groups at once, into left: the most members a group is learned on (at
// most maxMembers, at least minMembers), and how many groups fit at that (the largest first): all of them, on
// up to maxMembers, when that fits.
func FitMembers(sizes []int, maxMembers, minMembers, workers, steps int, perStep, left time.Duration) (most, groups int) {
	cost := func(most int, sizes []int) time.Duration {
		var n int
		for _, s := range sizes {
			n += min(s, most)
		}
		return time.Duration(float64(perStep) * float64(n*steps) / float64(max(workers, 1)))
	}
	for most = maxMembers; most > minMembers && cost(most, sizes) > left; most-- {
	}
	sorted := slices.Clone(sizes)
	slices.SortStableFunc(sorted, func(a, b int) int { return b - a })
	for groups = len(sorted); groups > 1 && cost(most, sorted[:groups]) > left; groups-- {
	}
	return most, groups
}

// largest keeps the n groups of the most members (the first of equals), in their order.
func largest(groups []glam.Group, n int) []glam.Group {
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(groups[b].Members) - len(groups[a].Members) })
	keep := make([]bool, len(groups))
	for _, i := range order[:n] {
		keep[i] = true
	}
	var out []glam.Group
	for i, g := range groups {
		if keep[i] {
			out = append(out, g)
		}
	}
	return out
}
