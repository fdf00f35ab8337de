package clue

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// TestDefaultsFor: the digits' and Fashion's descriptions give no search defaults, so their defaults are
// Defaults() itself (their links, bits and golden hashes hold); a description's own replace δ, λx and the
// threshold, each alone too, and the models built from it carry them (Models.Defaults).
func TestDefaultsFor(t *testing.T) {
	if DefaultsFor(nil) != Defaults() || DefaultsFor(weights.DigitsDescription()) != Defaults() {
		t.Error("the digits' defaults are not Defaults()")
	}
	raw, err := os.ReadFile("../../weights/fashion/model.json")
	if err != nil {
		t.Fatal(err)
	}
	fashion, err := weights.ParseDescription(raw)
	if err != nil {
		t.Fatal(err)
	}
	if fashion.Search != nil || DefaultsFor(fashion) != Defaults() {
		t.Errorf("Fashion's defaults: %+v", DefaultsFor(fashion))
	}
	delta, lambda, h, dedup := 4.0, 0.0, 0.462, 0.25
	d := weights.DigitsDescription()
	d.Search = &weights.SearchDefaults{Delta: &delta, LambdaX: &lambda, HThreshold: &h, DedupL1: &dedup}
	want := Defaults()
	want.Delta, want.LambdaX, want.HThreshold, want.DedupL1 = 4, 0, 0.462, 0.25
	if got := DefaultsFor(d); got != want || got.Validate() != nil {
		t.Errorf("DefaultsFor: %+v, want %+v", got, want)
	}
	d.Search = &weights.SearchDefaults{LambdaX: &lambda}
	want = Defaults()
	want.LambdaX = 0
	if got := DefaultsFor(d); got != want {
		t.Errorf("λx alone: %+v", got)
	}

	// Built from a bundle whose description gives them.
	tb, err := testbundle.Grey(3)
	if err != nil {
		t.Fatal(err)
	}
	g := *tb.Description
	g.Format, g.Search = 2, &weights.SearchDefaults{Delta: &delta, LambdaX: &lambda, HThreshold: &h}
	desc, _ := json.Marshal(&g)
	files, err := weights.DecodeBundle(tb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if files[i].Name == weights.DescriptionFile {
			files[i].Data = desc
		}
	}
	b, err := weights.OpenBundleFiles(weights.EncodeBundle(files), false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	want = Defaults()
	want.Delta, want.LambdaX, want.HThreshold = 4, 0, 0.462
	if m.Defaults() != want {
		t.Errorf("the models' defaults: %+v", m.Defaults())
	}
	shipped, err := ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	if shipped.Defaults() != Defaults() {
		t.Error("the shipped models' defaults are not Defaults()")
	}
}
