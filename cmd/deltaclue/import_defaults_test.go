package main

import (
	"os"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/internal/searchdefaults"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// TestImportMeasuresDefaults: the import's step stores what the measurement chose in the description it is
// making (format 2 then), which checks and gives those defaults; -measure-defaults=false and models the
// digits' defaults fit leave the description as it was.
func TestImportMeasuresDefaults(t *testing.T) {
	run := func(seed uint64, f defaultsFlags) (*weights.Description, *weights.Description) {
		t.Helper()
		tb, err := testbundle.Grey(seed)
		if err != nil {
			t.Fatal(err)
		}
		files, err := weights.DecodeBundle(tb.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		enc := map[string][]byte{}
		for _, file := range files {
			enc[file.Name] = file.Data
		}
		d := *tb.Description
		if err := measureDefaults(&d, enc, tb.Items(200, seed+10), f, newImportBudget(0, time.Now(), os.Stdout, stageDefaults)); err != nil {
			t.Fatal(err)
		}
		return tb.Description, &d
	}
	flags := defaultsFlags{measure: true, items: 16, restarts: 12, budget: time.Hour}
	before, d := run(4, flags) // the digits' defaults do not fit
	if d.Search == nil || d.Format != 2 || before.Format != 1 {
		t.Fatalf("the description made: format %d, search %+v", d.Format, d.Search)
	}
	if err := d.Check(nil); err != nil {
		t.Fatal(err)
	}
	r, err := searchdefaults.Measure(t.Context(), mustOpen(t, 4), testbundleItems(t, 4), searchdefaults.Options{Items: 16, Restarts: 12})
	if err != nil {
		t.Fatal(err)
	}
	want := clue.Defaults()
	want.Delta, want.LambdaX, want.HThreshold = r.Chosen.Delta, r.Chosen.LambdaX, r.Chosen.HThreshold
	if got := clue.DefaultsFor(d); got != want || got == clue.Defaults() {
		t.Errorf("the stored defaults give %+v, the measurement chose %s", got, r.Chosen)
	}
	if _, d := run(4, defaultsFlags{measure: false}); d.Search != nil || d.Format != 1 {
		t.Errorf("-measure-defaults=false: format %d, search %+v", d.Format, d.Search)
	}
	if _, d := run(1, flags); d.Search != nil || d.Format != 1 { // the digits' defaults fit
		t.Errorf("models the digits' defaults fit: format %d, search %+v", d.Format, d.Search)
	}
	if err := measureDefaults(&weights.Description{}, nil, nil, defaultsFlags{measure: true, items: 0, restarts: 12}, newImportBudget(0, time.Now(), os.Stdout, stageDefaults)); err == nil {
		t.Error("-defaults-items 0 was taken")
	}
}

func mustOpen(t *testing.T, seed uint64) *weights.Bundle {
	t.Helper()
	tb, err := testbundle.Grey(seed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := weights.OpenBundleFiles(tb.Bytes, false)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testbundleItems(t *testing.T, seed uint64) *idx.Items {
	t.Helper()
	tb, err := testbundle.Grey(seed)
	if err != nil {
		t.Fatal(err)
	}
	return tb.Items(200, seed+10)
}
