package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/budget"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/internal/translations"
	"github.com/deltaclue/deltaclue/weights"
)

// The import's stages after the description and the int8 weights: the anchors (the training items read with
// the int8 models, once), GLAM-CLUE's translations (δ-CLUE on uncertain training items, then learning), each
// under its share of the budget (import_budget.go).

// readTraining reads the training items with the bundle's models under the anchors' share: as many as it holds,
// taken class by class in turn (each class's first by index), and returns those read, in index order, with the
// models' reading of each.
func readTraining(b *weights.Bundle, train *idx.Items, share stageBudget) (*idx.Items, anchors.Reading, error) {
	d := b.Description
	vae, bnn, err := engine.Load(d, b.Files)
	if err != nil {
		return nil, anchors.Reading{}, err
	}
	if train.Size() != bnn.Input.Size() {
		return nil, anchors.Reading{}, fmt.Errorf("the training %s have %d values each, and the models read %d", plural.Word(2, d.Input.Noun), train.Size(), bnn.Input.Size())
	}
	order := byClassInTurn(train)
	got := make([]anchors.Reading, train.Len()) // by item
	nouns := "training " + plural.Word(2, d.Input.Noun)
	st := share.stage(nouns, train.Len(), min(train.Len(), 64*len(d.Classes)), 32)
	r, err := st.Run(context.Background(), func(from, to int) error {
		size := train.Size()
		items := order[from:to]
		x := make([]float32, len(items)*size)
		classes := make([]int, len(items))
		for k, i := range items {
			train.Float(i, x[k*size:(k+1)*size])
			classes[k] = train.Label(i)
		}
		all := anchors.ReadItems(vae, bnn, x, classes)
		for k, i := range items {
			got[i] = anchors.Reading{Class: all.Class[k : k+1], Read: all.Read[k : k+1], Total: all.Total[k : k+1],
				Codes: all.Codes[k*all.Latent : (k+1)*all.Latent], Latent: all.Latent}
		}
		return nil
	})
	if err != nil {
		return nil, anchors.Reading{}, err
	}
	read := slices.Clone(order[:r.Done])
	slices.Sort(read)
	var reading anchors.Reading
	sub := &idx.Items{Input: train.Input}
	size := train.Size()
	for _, i := range read {
		reading.Append(got[i])
		sub.Values = append(sub.Values, train.Values[i*size:(i+1)*size]...)
		sub.Labels = append(sub.Labels, train.Labels[i])
	}
	share.leftOut(nouns+" read for the anchors and translations", r.Done, train.Len(), r.Need(st))
	return sub, reading, nil
}

// byClassInTurn orders the items class by class in turn, each class's in index order: any first few hold every
// class's first items.
func byClassInTurn(items *idx.Items) []int {
	var byClass [][]int
	for i := 0; i < items.Len(); i++ {
		c := items.Label(i)
		for len(byClass) <= c {
			byClass = append(byClass, nil)
		}
		byClass[c] = append(byClass[c], i)
	}
	out := make([]int, 0, items.Len())
	for k := 0; len(out) < items.Len(); k++ {
		for _, list := range byClass {
			if k < len(list) {
				out = append(out, list[k])
			}
		}
	}
	return out
}

// makeAnchors makes S2's anchors from the reading of the training items: the digits' threshold first; a model
// less sure of its training items than the digits' gets a higher one, doubled while some class has no anchor,
// up to log K (a uniform guess's entropy). A class without one even there is one the classifier is never sure
// of, which is what this tool explains: it gets none, S2 starts no restart toward it, and the anchors kept are
// those of the lowest threshold that anchored all the others (doubling past it helped no class). It returns
// the file, its threshold and the classes without anchors.
func makeAnchors(b *weights.Bundle, reading anchors.Reading, split weights.Dataset, perClass int) ([]byte, float64, []int, error) {
	d := b.Description
	var best []byte
	maxEntropy := anchors.MaxEntropy
	var missing []int
	for t, tried := maxEntropy, false; ; t *= 2 {
		made, err := anchors.Encode(b, reading.Anchors(len(d.Classes), t), reading.Latent, split, t, perClass)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("import: the anchors (S2's starts): %w", err)
		}
		file, err := weights.Decode(weights.BundleAnchors, made)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("import: the anchors made do not open: %w", err)
		}
		none, err := anchors.Missing(file, len(d.Classes))
		if err != nil {
			return nil, 0, nil, fmt.Errorf("import: the anchors made do not open: %w", err)
		}
		if !tried || len(none) < len(missing) {
			best, maxEntropy, missing, tried = made, t, none, true
		}
		if len(none) == 0 || t*2 > math.Log(float64(len(d.Classes))) {
			break
		}
	}
	return best, maxEntropy, missing, nil
}

// unanchoredLine says which classes have no anchors at the threshold maxEntropy (nats), and what that means
// for scheme S2: "" when every class has some.
func unanchoredLine(d *weights.Description, missing []int, maxEntropy float64) string {
	noun := d.Input.Noun
	switch len(missing) {
	case 0:
		return ""
	case len(d.Classes):
		return fmt.Sprintf("anchors: no training %s of any class is read right with entropy below %g nats: scheme S2 cannot run on these models", noun, maxEntropy)
	case 1:
		return fmt.Sprintf("anchors: no training %s of class %s is read right with entropy below %g nats: S2 starts no restart toward it", noun, d.Classes[missing[0]], maxEntropy)
	}
	names := make([]string, len(missing))
	for i, c := range missing {
		names[i] = d.Classes[c]
	}
	return fmt.Sprintf("anchors: no training %s of the classes %s is read right with entropy below %g nats: S2 starts no restart toward them", noun, plural.List(names), maxEntropy)
}

// anchorsLine says how many anchors each class got: "anchors: T-shirt or top 9, Trouser 200, …; training items
// read right with entropy below 0.1 nats".
func anchorsLine(b *weights.Bundle, maxEntropy float64) string {
	d := b.Description
	perClass, _ := b.Files[weights.BundleAnchors].Manifest.Metrics[weights.AnchorCounts].(map[string]any) // (read back from JSON)
	counts := make([]string, len(d.Classes))
	for c, name := range d.Classes {
		counts[c] = fmt.Sprintf("%s %v", name, perClass[strconv.Itoa(c)])
	}
	return fmt.Sprintf("anchors: %s; training items read right with entropy below %g nats", strings.Join(counts, ", "), maxEntropy)
}

// The translations' searches: when their share holds fewer than enoughItems of the items at the models' n
// restarts, fewer restarts (half, then a quarter: a search's time grows faster than its restarts, the slowest
// deciding its steps, so each is measured, not extrapolated), so that more items make groups of MinMembers;
// the searches get searchShare of the stage's share, the learning the rest.
const (
	enoughItems = 4 * glam.MinMembers
	searchShare = 0.7
)

// planRestarts is the restarts of the translations' next searches: n (the restarts of those measured, at
// perItem an item, one worker's time) when at least enough items (or all of total, if fewer) fit in left,
// workers at once; else the next rung down from n: half of it, rounded down to a multiple of 10, and not
// below floor (when n is the floor, n).
func planRestarts(total, enough, workers, n, floor int, perItem, left time.Duration) int {
	fit := 0 // the items left holds, at n
	if left > 0 && perItem > 0 {
		fit = int(float64(left) * float64(max(workers, 1)) / float64(perItem))
	}
	if fit >= min(enough, total) || n <= floor {
		return n
	}
	return max(n/2/10*10, floor, 1)
}

// restartsFloor is the fewest restarts the translations' searches take: a quarter of the models' n, rounded
// down to a multiple of 10, and at least 10 (or n, if fewer).
func restartsFloor(n int) int { return min(n, max(10, n/4/10*10)) }

// importTranslations learns GLAM-CLUE's translations on the training items read (their reading gives the
// uncertain ones) under the stage's share, and returns their file.
func importTranslations(b *weights.Bundle, train *idx.Items, reading anchors.Reading, f importFlags, share stageBudget) ([]byte, error) {
	start := time.Now()
	opt := translations.Options{MinMembers: f.minMembers, MaxMembers: glam.MaxMembers, MaxUncertain: f.maxUncertain, Tool: "deltaclue import",
		Engine: true, Log: indent{os.Stdout}, HTotal: reading.Total, Label: reading.Read, Workers: runtime.NumCPU(), Progress: os.Stdout}
	s, err := translations.Prepare(b, train, opt)
	if err != nil {
		return nil, err
	}
	searches := share
	if share.Budget > 0 {
		searches.Budget = time.Duration(float64(share.Budget) * searchShare)
		searches.fraction *= searchShare
	}
	nouns := "uncertain training " + plural.Word(2, b.Description.Input.Noun)
	reached, p, err := searchUnderBudget(s.Models, s.Images, s.Idx, s.Read, s.Params, searches, nouns, true)
	if err != nil {
		return nil, err
	}
	if share.Budget > 0 {
		opt.LearnBudget = max(share.Budget-time.Since(start), time.Second)
	}
	file, leftOut, err := s.Finish(reached, p, opt)
	for _, l := range leftOut {
		fmt.Printf("translations: %s (the budget)\n", l)
		share.note("translations " + l)
	}
	return file, err
}

// searchUnderBudget runs δ-CLUE with p on the items idx of images (read: the labels read on them) under the
// share: in budget.Order's order, as many as it holds, and returns what the searched ones reached, in idx's
// order, with the parameters searched with. With fewerRestarts, when the first searches show that fewer than
// enoughItems would fit, it starts again with fewer restarts (planRestarts). Without a budget it is
// glam.Reach on every item.
func searchUnderBudget(m *clue.Models, images []float32, idx, read []int, p clue.Params, share stageBudget, nouns string, fewerRestarts bool) ([]glam.Reached, clue.Params, error) {
	start := time.Now()
	order := budget.Order(len(idx))
	out := make([]glam.Reached, len(idx))
	do := func(p clue.Params) func(from, to int) error {
		return func(from, to int) error {
			for k := from; k < to; k++ {
				i := order[k]
				rs, err := glam.Reach(context.Background(), m, images, idx[i:i+1], read[i:i+1], p, 1)
				if err != nil {
					return err
				}
				out[i] = rs[0]
			}
			return nil
		}
	}
	st := share.stage(nouns, len(idx), 0, 1)
	if fewerRestarts && share.Budget > 0 && len(idx) > st.Workers {
		// The first searches at the models' n, then at fewer restarts while too few items would fit: each
		// rung's first searches measure it, and those of the rung kept count.
		n0, floor := p.N, restartsFloor(p.N)
		for {
			first := st
			first.Total, first.Budget, first.Unit = st.Workers, 0, fmt.Sprintf("%s (the first, at n = %d)", nouns, p.N)
			r, err := first.Run(context.Background(), do(p))
			if err != nil {
				return nil, p, err
			}
			left := share.Budget - time.Since(start)
			st.Budget = max(left, time.Second)
			if n := planRestarts(len(idx), enoughItems, st.Workers, p.N, floor, r.PerItem, left); n < p.N {
				p.N = n
				continue
			}
			st.From, st.Spent = r.Done, r.PerItem*time.Duration(r.Done)
			break
		}
		if p.N < n0 {
			fmt.Printf("%s: δ-CLUE with n = %d restarts, not %d, on more %s (the budget)\n", share.name, p.N, n0, nouns)
			share.note(fmt.Sprintf("%s n = %d restarts, not %d", share.name, p.N, n0))
		}
	}
	r, err := st.Run(context.Background(), do(p))
	if err != nil {
		return nil, p, err
	}
	searched := make([]bool, len(idx))
	for _, i := range order[:r.Done] {
		searched[i] = true
	}
	var reached []glam.Reached
	for i, ok := range searched {
		if ok {
			reached = append(reached, out[i])
		}
	}
	share.leftOut(nouns+" searched", r.Done, len(idx), time.Duration(float64(r.PerItem)*float64(len(idx))/float64(st.Workers)))
	return reached, p, nil
}
