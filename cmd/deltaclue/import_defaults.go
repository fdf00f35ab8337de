package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/deltaclue/deltaclue/internal/budget"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/internal/searchdefaults"
	"github.com/deltaclue/deltaclue/weights"
)

// defaultsFlags are the import's flags for the models' own search defaults (package searchdefaults).
type defaultsFlags struct {
	measure         bool
	items, restarts int
	budget          time.Duration
}

// register registers the flags on the import's flag set.
func (f *defaultsFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.measure, "measure-defaults", true, "measure the search's defaults (δ, λx and the threshold) on the test items the model is least sure of, and store them in model.json where the digits' (δ 2, λx 0.03, 0.3 nats) do not fit the model (docs/your-model.md)")
	fs.IntVar(&f.items, "defaults-items", searchdefaults.DefaultItems, "the defaults are measured on this many of the test items the model is least sure of")
	fs.IntVar(&f.restarts, "defaults-restarts", searchdefaults.DefaultRestarts, "restarts of each search that measures the defaults")
	fs.DurationVar(&f.budget, "defaults-budget", 90*time.Second, "the defaults' measurement takes at most about this long: fewer items, then a coarser grid (0: no bound)")
}

// measureDefaults measures the search's defaults of the models made so far (the description d and the encoded
// int8 weights files enc, which the page runs) on the test items, prints what it chose and why, and stores them
// in d when the digits' do not fit (d's format then says so).
func measureDefaults(d *weights.Description, enc map[string][]byte, test dataset.Items, f defaultsFlags, bud *importBudget) error {
	if !f.measure {
		return nil
	}
	if f.items < 1 || f.restarts < 1 || f.budget < 0 {
		return fmt.Errorf("import: -defaults-items %d, -defaults-restarts %d and -defaults-budget %s: want at least 1 item and 1 restart, and no negative budget", f.items, f.restarts, f.budget)
	}
	share := bud.share(stageDefaults) // the import's share, when it is shorter than -defaults-budget
	limit := f.budget
	if share.Budget > 0 && (limit == 0 || share.Budget < limit) {
		limit = share.Budget
	}
	desc, err := json.Marshal(d)
	if err != nil {
		return err
	}
	b, err := weights.OpenBundleFiles(bundleOf(map[string][]byte{weights.DescriptionFile: desc, weights.BundleBNN: enc[weights.BundleBNN],
		weights.BundleVAE: enc[weights.BundleVAE]}), false)
	if err != nil {
		return fmt.Errorf("import: the bundle made does not open: %w", err)
	}
	var mu sync.Mutex
	searches, t0 := 0, time.Now()
	stop := every(10*time.Second, func() {
		mu.Lock()
		n := searches
		mu.Unlock()
		left := ""
		if limit > 0 {
			left = fmt.Sprintf(", at most %s left", budget.Seconds(max(limit-time.Since(t0), 0)))
		}
		fmt.Printf("defaults: %s done%s\n", plural.Count(n, "search"), left)
	})
	r, err := searchdefaults.Measure(context.Background(), b, test, searchdefaults.Options{Items: f.items, Restarts: f.restarts, Budget: limit,
		Searched: func(done int) { mu.Lock(); searches = done; mu.Unlock() }})
	stop()
	if err != nil {
		return fmt.Errorf("import: measuring the search's defaults: %w", err)
	}
	for _, line := range r.Lines() {
		fmt.Println(line)
	}
	if limit != f.budget && len(r.LeftOut) > 0 {
		fmt.Printf("defaults: measured in %s, the import's share of -budget (-defaults-budget %s)\n", budget.Seconds(limit), f.budget)
		share.note("defaults " + strings.Join(r.LeftOut, "; "))
	}
	if r.Search != nil {
		d.Search = r.Search
		d.Format = max(d.Format, d.MinFormat()) // search defaults are format 2
	}
	return nil
}

// every calls f every period until the function it returns is called.
func every(period time.Duration, f func()) (stop func()) {
	t := time.NewTicker(period)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() { t.Stop(); close(done) }
}
