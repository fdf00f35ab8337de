package training

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"slices"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine/rng"

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

// TestShippedCreditVAEKeepsEveryLevel: the shipped credit VAE encodes every column: each level of each category
// that a committed test applicant has is kept by the reconstruction of some test applicant who has it (a β = 1
// VAE reconstructed none of the 143 Records = yes), and draws from the prior say Records = yes as well as no.
func TestShippedCreditVAEKeepsEveryLevel(t *testing.T) {
	fsys := creditmodels.FS()
	raw, err := fs.ReadFile(fsys, weights.DescriptionFile)
	if err != nil {
		t.Fatal(err)
	}
	d, err := weights.ParseDescription(raw)
	if err != nil {
		t.Fatal(err)
	}
	var files []*weights.File
	for _, name := range []string{weights.BundleVAE, weights.BundleBNN} {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := weights.Decode(name, b)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := FileTensors(files...)
	if err != nil {
		t.Fatal(err)
	}
	backend := Backend()
	q, err := MeasureTableVAE(backend, d, p, p, creditTestTable(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range q.Columns {
		for _, l := range c.Levels {
			t.Logf("%-8s %-10s %3d test applicants, %3d kept, %3d reconstructions say it", c.Column, l.Level, l.Rows, l.Kept, l.Decoded)
		}
	}
	if u := q.Unencoded(); len(u) > 0 {
		t.Errorf("levels no test applicant's reconstruction keeps: %v", u)
	}
	// Draws from the prior N(0, I), read back as rows: Records = yes is among them.
	const draws = 5000
	v := NewVAEGraphs(p, d)
	dec := MustNewExec(backend, func(z *Node) *Node { return v.Logits(z) })
	y := tensors.MustCopyFlatData[float32](dec.MustExec(noise(rng.New(5), draws, d.VAE.Latent))[0])
	cols := d.Input.Columns
	records := slices.IndexFunc(cols, func(c weights.Column) bool { return c.Name == "Records" })
	yes := 0
	for i := range draws {
		row, err := ReconstructRow(cols, y[i*cols.Width():(i+1)*cols.Width()])
		if err != nil {
			t.Fatal(err)
		}
		if row[records] == 1 {
			yes++
		}
	}
	t.Logf("Records = yes in %d of %d draws from the prior (%.1f %% of the test applicants have it)", yes, draws, 100*float64(143)/805)
	if yes < draws/20 {
		t.Errorf("Records = yes in only %d of %d draws from the prior", yes, draws)
	}
}
