package main

import (
	"io"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// TestImportBudgetShares: each stage gets, when it starts, its weight's share of what is left after the reserve
// (quality 1, defaults 1.5, anchors 1, translations 3, the global view 3), so that what one leaves goes to the
// next; without a budget, none; and a cut stage says what it did and the budget that does all of it.
func TestImportBudgetShares(t *testing.T) {
	t0 := time.Unix(0, 0)
	now := t0
	b := newImportBudget(10*time.Minute, t0, io.Discard, stageQuality, stageDefaults, stageAnchors, stageTranslations, stageGlobal)
	b.now = func() time.Time { return now }
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	near := func(got, want time.Duration) bool { return math.Abs(float64(got-want)) < float64(time.Millisecond) }
	// 20 s of conversion and checking: 600 − 20 − 30 (the reserve) = 550 s left, of which quality gets 1/9.5.
	now = t0.Add(20 * time.Second)
	if s := b.share(stageQuality); !near(s.Budget, secs(550/9.5)) || s.fraction != 1/9.5 {
		t.Errorf("quality: %s (%.3f)", s.Budget, s.fraction)
	}
	now = t0.Add(30 * time.Second) // quality took 10 s
	if s := b.share(stageDefaults); !near(s.Budget, secs(540*1.5/8.5)) {
		t.Errorf("defaults: %s", s.Budget)
	}
	now = t0.Add(100 * time.Second)
	if s := b.share(stageAnchors); !near(s.Budget, 470*time.Second/7) {
		t.Errorf("anchors: %s", s.Budget)
	}
	now = t0.Add(120 * time.Second)
	tr := b.share(stageTranslations)
	if !near(tr.Budget, 225*time.Second) || tr.fraction != 0.5 {
		t.Errorf("translations: %s", tr.Budget)
	}
	now = t0.Add(400 * time.Second) // translations ran over: the global view gets what is left
	if s := b.share(stageGlobal); !near(s.Budget, 170*time.Second) {
		t.Errorf("global: %s", s.Budget)
	}
	now = t0.Add(700 * time.Second)
	if s := newImportBudget(10*time.Minute, t0, io.Discard, stageGlobal); true {
		s.now = func() time.Time { return now }
		if g := s.share(stageGlobal); g.Budget != time.Second {
			t.Errorf("past the budget: %s, want a second", g.Budget)
		}
	}
	if s := newImportBudget(0, t0, io.Discard, stageQuality).share(stageQuality); s.Budget != 0 {
		t.Errorf("no budget: %s", s.Budget)
	}
	// 30 of 100 searched at 12 s an item on 2 workers: all of them need 600 s, at half of what was left after 120 s.
	if got, want := tr.cutLine("uncertain training images searched", 30, 100, 600*time.Second), "translations: 30 of 100 uncertain training images searched (the budget; -budget 25m for more)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestPlanRestarts: the translations' searches keep the models' n restarts when enough items fit, and
// otherwise try half of them, then a quarter, each measured in its turn.
func TestPlanRestarts(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		total, workers, n, floor int
		perItem, left            time.Duration
		want                     int
	}{
		{100, 2, 100, 20, 12 * s, 300 * s, 100}, // 50 fit
		{100, 2, 100, 20, 12 * s, 240 * s, 100}, // exactly 40
		{100, 2, 100, 20, 12 * s, 180 * s, 50},  // 30 fit: half
		{100, 2, 50, 20, 5 * s, 180 * s, 50},    // at half, 72 fit
		{100, 2, 50, 20, 12 * s, 180 * s, 20},   // at half, still 30: a quarter (25, rounded down)
		{100, 2, 20, 20, 12 * s, 0, 20},         // none fit at the floor: the floor
		{20, 2, 100, 20, 12 * s, 120 * s, 100},  // all 20 fit
		{100, 2, 24, 10, 6 * s, 60 * s, 10},     // half of 24 is 10 at least
	} {
		if got := planRestarts(c.total, enoughItems, c.workers, c.n, c.floor, c.perItem, c.left); got != c.want {
			t.Errorf("planRestarts(%d items, %d workers, n = %d, %s an item, %s left) = %d, want %d", c.total, c.workers, c.n, c.perItem, c.left, got, c.want)
		}
	}
	if restartsFloor(100) != 20 || restartsFloor(24) != 10 || restartsFloor(8) != 8 {
		t.Errorf("the floors: %d, %d, %d", restartsFloor(100), restartsFloor(24), restartsFloor(8))
	}
}

// TestByClassInTurn: the training items are taken class by class in turn, each class's in index order.
func TestByClassInTurn(t *testing.T) {
	items := &idx.Items{Labels: []uint8{0, 0, 0, 1, 1, 2, 0, 2}}
	if got := byClassInTurn(items); !slices.Equal(got, []int{0, 3, 5, 1, 4, 7, 2, 6}) {
		t.Errorf("%v", got)
	}
}

// TestImportQualityAgreesWithGomlx: the import's measures with the engine (accuracy, NLL, ECE and AUROC over the
// MC posterior, and the reconstructions that keep the label) are gomlx's within rounding, float32 and int8, on
// the grey MC-dropout test model and the colour ensemble; a subset of the items is measured as those items alone.
func TestImportQualityAgreesWithGomlx(t *testing.T) {
	for _, build := range []func(uint64) (*testbundle.Bundle, error){testbundle.Grey, testbundle.Colour} {
		tb, err := build(5)
		if err != nil {
			t.Fatal(err)
		}
		d := tb.Description
		items := tb.Items(300, 9)
		int8Files := map[string]*weights.File{}
		for name, f := range tb.Files {
			b, err := compactFile(d, f, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if int8Files[name], err = weights.Decode(name, b); err != nil {
				t.Fatal(err)
			}
		}
		for kind, files := range map[string]map[string]*weights.File{"float32": tb.Files, "int8": int8Files} {
			q, err := newQualityPass(d, files, items)
			if err != nil {
				t.Fatal(err)
			}
			all := make([]int, items.Len())
			for i := range all {
				all[i] = i
			}
			q.read(all)
			c, v := q.measures(d, all, nil)
			p, err := training.FileTensors(files[weights.BundleBNN], files[weights.BundleVAE])
			if err != nil {
				t.Fatal(err)
			}
			wc, _ := training.MeasureClassifierWith(training.Backend(), d, p, items)
			wv := training.MeasureDescribedVAE(training.Backend(), d, p, p, items)
			if c.Accuracy != wc.Accuracy || math.Abs(c.NLL-wc.NLL) > 1e-6 || math.Abs(c.ECE-wc.ECE) > 1e-6 || math.Abs(c.AUROC-wc.AUROC) > 1e-6 ||
				v.ReconLabelAgreement != wv.ReconLabelAgreement {
				t.Errorf("%s, %s: the engine's %+v, %.4f; gomlx's %+v, %.4f", d.Name, kind, c, v.ReconLabelAgreement, wc, wv.ReconLabelAgreement)
			}
			t.Logf("%s, %s: accuracy %.3f, NLL %.6f (gomlx %.6f), ECE %.4f, AUROC %.4f, reconstructions keep the label %.3f", d.Name, kind, c.Accuracy, c.NLL, wc.NLL, c.ECE, c.AUROC, v.ReconLabelAgreement)
			some := []int{3, 10, 11, 200}
			sc, _ := q.measures(d, some, nil)
			wsc, _ := training.MeasureClassifierWith(training.Backend(), d, p, subsetItems{items, some})
			if math.Abs(sc.NLL-wsc.NLL) > 1e-6 || sc.Accuracy != wsc.Accuracy {
				t.Errorf("%s, %s, four items: %+v, gomlx %+v", d.Name, kind, sc, wsc)
			}
		}
	}
}
