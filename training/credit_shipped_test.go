package training

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"testing"

	"github.com/deltaclue/deltaclue/weights"
	creditmodels "github.com/deltaclue/deltaclue/weights/credit"
)

// TestShippedCreditDescription: weights/credit's model.json is what CreditDescription gives with the dropout
// rate it was trained with (so that code and bundle cannot drift apart), and checks against its int8 files.
func TestShippedCreditDescription(t *testing.T) {
	fsys := creditmodels.FS()
	raw, err := fs.ReadFile(fsys, weights.DescriptionFile)
	if err != nil {
		t.Fatal(err)
	}
	d, err := weights.ParseDescription(raw)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent(CreditDescription(DropoutRate(d)), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(want, '\n'), raw) {
		t.Error("weights/credit/model.json is not CreditDescription's: run `make train DATASET=credit`")
	}
	files := map[string]*weights.File{}
	for _, name := range []string{weights.BundleBNN, weights.BundleVAE} {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if files[name], err = weights.Decode(name, b); err != nil {
			t.Fatal(err)
		}
		if c := files[name].Manifest.Compaction; c == nil || c.Tool != "cmd/train -dataset credit" {
			t.Errorf("%s: no compaction record", name)
		}
	}
	if err := d.Check(files); err != nil {
		t.Error(err)
	}
}
