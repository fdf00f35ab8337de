package training

import (
	"bytes"
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/weights"
)

// creditTestTable is the committed credit test split as rows the networks read (no `make data` needed).
func creditTestTable(t *testing.T) *dataset.Table {
	t.Helper()
	apps, err := credit.Test()
	if err != nil {
		t.Fatal(err)
	}
	rows, labels := make([][]float64, len(apps)), make([]int, len(apps))
	for i, a := range apps {
		rows[i], labels[i] = a.Row, a.Status
	}
	tab, err := dataset.NewTable(credit.Columns(), rows, labels)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestMixedNLL: the graph's mixed negative log-likelihood is CLUE's, computed here in plain Go: a unit-variance
// Gaussian per number, a softmax cross-entropy per category block.
func TestMixedNLL(t *testing.T) {
	cols := credit.Columns()
	tab := creditTestTable(t)
	const n = 7
	w := cols.Width()
	r := rng.New(5)
	x := make([]float32, n*w)
	y := make([]float32, n*w)
	for i := range n {
		tab.Float(i*31, x[i*w:(i+1)*w])
	}
	for j := range y {
		y[j] = float32(r.Norm())
	}
	got := tensors.MustCopyFlatData[float32](MustNewExec(Backend(), func(a, b *Node) *Node { return MixedNLL(cols, a, b) }).
		MustExec(tensors.FromFlatDataAndDimensions(x, n, w), tensors.FromFlatDataAndDimensions(y, n, w))[0])
	for i := range n {
		want := 0.0
		for c, col := range cols {
			s, e := cols.Slice(c)
			xs, ys := x[i*w+s:i*w+e], y[i*w+s:i*w+e]
			if col.Kind != weights.ColumnCategory {
				d := float64(xs[0] - ys[0])
				want += d*d/2 + math.Log(2*math.Pi)/2
				continue
			}
			lse := 0.0
			for _, v := range ys {
				lse += math.Exp(float64(v))
			}
			lse = math.Log(lse)
			for k, v := range xs {
				want -= float64(v) * (float64(ys[k]) - lse)
			}
		}
		if math.Abs(float64(got[i])-want) > 1e-4*math.Max(1, math.Abs(want)) {
			t.Errorf("row %d: the graph gives %v, CLUE's likelihood %v", i, got[i], want)
		}
	}
}

// TestCreditTrainingIsDeterministic: the credit classifier and VAE, trained twice for a few epochs with the
// same seeds (on the committed test split, so that no `make data` is needed), give the same bytes.
func TestCreditTrainingIsDeterministic(t *testing.T) {
	all := creditTestTable(t)
	train, val := CreditSplit(all)
	if train.Len()+val.Len() != all.Len() || val.Len() < all.Len()/6 {
		t.Fatalf("the split: %d + %d of %d", train.Len(), val.Len(), all.Len())
	}
	backend := Backend()
	trainOnce := func() []byte {
		c := DefaultCreditClassifier
		c.MaxEpochs, c.Dropouts = 3, []float64{0.25}
		clf, desc, _, err := TrainClassifier(backend, c, CreditDescription, train, val)
		if err != nil {
			t.Fatal(err)
		}
		v := DefaultCreditVAE
		v.MaxEpochs, v.KLWeight = 3, 0.35 // the shaped objective the shipped VAE was trained with
		vae, _, err := TrainDescribedVAE(backend, v, desc, train, val)
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		for _, named := range [][]weights.Named{clf, vae} {
			b, err := weights.Encode(weights.Manifest{Model: "test"}, named)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b...)
		}
		if err := desc.Check(nil); err != nil {
			t.Error(err)
		}
		return out
	}
	a, b := trainOnce(), trainOnce()
	if !bytes.Equal(a, b) {
		t.Error("two trainings with the same seeds gave different weights")
	}
}

// TestCreditRowsReadBack: a flattened test row read back as a row (ReconstructRow, as the VAE's reconstructions
// are measured) is the row.
func TestCreditRowsReadBack(t *testing.T) {
	tab := creditTestTable(t)
	if tab.Len() != 805 || tab.Size() != 26 {
		t.Fatalf("%d rows of %d values", tab.Len(), tab.Size())
	}
	for i := range tab.Len() {
		row, err := ReconstructRow(tab.Columns, tab.Float(i, nil))
		if err != nil {
			t.Fatal(err)
		}
		for c := range row {
			if row[c] != tab.Rows[i][c] {
				t.Fatalf("row %d, column %s: the flattened row reads back as %v, not %v", i, tab.Columns[c].Name, row[c], tab.Rows[i][c])
			}
		}
	}
}
