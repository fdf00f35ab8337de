//go:build !js

package gallery

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// digitsGallerySHA256 is the SHA-256 of the digits' gallery: the bytes app/gallery.json held when the page
// carried it, before cmd/site made it from the models' test items.
const digitsGallerySHA256 = "4688f014eb0ac279ed2e2901eee488ea260067c2e82f8577f07f00ce51e92c1a"

// The gallery is the test items the models are least sure of, most uncertain first: the digits' the same 24
// digits, byte for byte, as the page always offered; any other models' from their own test items.
func TestGalleryIsTheMostUncertainTestItems(t *testing.T) {
	m, err := clue.ShippedModels()
	if err != nil {
		t.Fatal(err)
	}
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	js, err := Make(m, set, Size)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(js); hex.EncodeToString(sum[:]) != digitsGallerySHA256 {
		t.Errorf("the digits' gallery changed: SHA-256 %x", sum)
	}
	var items []Item
	if err := json.Unmarshal(js, &items); err != nil || len(items) != Size {
		t.Fatalf("%d items, %v", len(items), err)
	}
	for i, d := range items {
		if i > 0 && d.H > items[i-1].H {
			t.Errorf("item %d (H %v) is less sure than the one before it (H %v)", i, d.H, items[i-1].H)
		}
		if got := (kind.Image{}).Carried(d.Carried()); !slices.Equal(got, set.Float(d.Index, nil)) || d.Label != set.Label(d.Index) {
			t.Errorf("item %d is not test digit %d", i, d.Index)
		}
	}

	grey, gm := greyModels(t, 4)
	test := grey.Items(40, 7)
	js, err = Make(gm, test, 5)
	if err != nil {
		t.Fatal(err)
	}
	items = nil
	if err := json.Unmarshal(js, &items); err != nil || len(items) != 5 || len(items[0].Carried()) != 144 {
		t.Fatalf("the grey models' gallery: %d items, %v", len(items), err)
	}
	if _, err := Make(m, test, 5); err == nil {
		t.Error("a gallery of 12×12 items was made for the digits' models")
	}
}

// greyModels is internal/testbundle's grey CNN bundle made with seed, opened, and loaded for the search, as the
// page's tests open it.
func greyModels(t *testing.T, seed uint64) (*testbundle.Bundle, *clue.Models) {
	t.Helper()
	grey, err := testbundle.Grey(seed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := weights.OpenBundleFiles(grey.Bytes, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := clue.LoadBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	return grey, m
}
