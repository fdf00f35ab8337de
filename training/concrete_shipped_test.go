package training

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"testing"

	"github.com/deltaclue/deltaclue/internal/concrete"
	"github.com/deltaclue/deltaclue/weights"
	concretemodels "github.com/deltaclue/deltaclue/weights/concrete"
)

// shippedConcrete reads weights/concrete: its description and its int8 files.
func shippedConcrete(t *testing.T) (*weights.Description, map[string]*weights.File, []byte) {
	t.Helper()
	fsys := concretemodels.FS()
	raw, err := fs.ReadFile(fsys, weights.DescriptionFile)
	if err != nil {
		t.Fatal(err)
	}
	d, err := weights.ParseDescription(raw)
	if err != nil {
		t.Fatal(err)
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
	}
	return d, files, raw
}

// TestShippedConcreteDescription: weights/concrete's model.json is a regression (format 4) that checks against
// its int8 files, and is what ConcreteDescription gives with the dropout rate it was trained with and the τ
// chosen then (so that code and bundle cannot drift apart); τ is a positive multiple of 0.1 MPa.
func TestShippedConcreteDescription(t *testing.T) {
	d, files, raw := shippedConcrete(t)
	if d.Format != weights.FormatRegression || !d.IsRegression() {
		t.Fatalf("format %d, regression %v", d.Format, d.Regression)
	}
	if err := d.Check(files); err != nil {
		t.Error(err)
	}
	sure := d.Regression.Sure
	if !(sure > 0) || math.Abs(sure*10-math.Round(sure*10)) > 1e-9 {
		t.Errorf("τ = %g MPa, not a positive multiple of 0.1", sure)
	}
	want, err := json.MarshalIndent(ConcreteDescription(DropoutRate(d), sure), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(want, '\n'), raw) {
		t.Error("weights/concrete/model.json is not ConcreteDescription's: run `make train DATASET=concrete`")
	}
	tg := concrete.Target()
	if r := d.Regression; r.Target != "Strength" || r.Unit != "MPa" || r.Mean != tg.Mean || r.Std != tg.Std || r.Sigma != weights.SigmaSoftplus {
		t.Errorf("the regression: %+v", r)
	}
	for name, f := range files {
		if c := f.Manifest.Compaction; c == nil || c.Tool != "cmd/train -dataset concrete" {
			t.Errorf("%s: no compaction record", name)
		}
	}
}

// TestShippedConcreteQuality: the shipped int8 regressor, run with gomlx on the committed test mixes over its
// fixed masks, predicts their strength with an RMSE of at most 6.5 MPa, and its predictive σ is calibrated: 90
// to 99 % of the strengths are within 2σ of the predictive mean (about 68 % within 1σ); σ tells the largest
// errors from the rest better than chance. The shipped VAE reconstructs every column to within 0.2 of its
// standard deviation, and most reconstructions are predicted in the mix's own range.
func TestShippedConcreteQuality(t *testing.T) {
	d, files, _ := shippedConcrete(t)
	p, err := FileTensors(files[weights.BundleBNN], files[weights.BundleVAE])
	if err != nil {
		t.Fatal(err)
	}
	mixes, err := concrete.Test()
	if err != nil {
		t.Fatal(err)
	}
	test, err := concrete.Table(concrete.Columns(), mixes, d.Regression)
	if err != nil {
		t.Fatal(err)
	}
	backend := Backend()
	q, err := MeasureRegression(backend, d, p, test)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("int8 on %d test mixes: RMSE %.3f MPa, NLL %.3f, within 1σ %.3f, 2σ %.3f, AUROC %.3f, mean σ %.2f MPa", q.Rows, q.RMSE, q.NLL, q.Within1Sigma, q.Within2Sigma, q.AUROC, q.MeanSigma)
	if q.Rows != 199 || !(q.RMSE <= 6.5) || !(q.Within2Sigma >= 0.90 && q.Within2Sigma <= 0.99) {
		t.Errorf("the regressor on the test split: %+v; want an RMSE of at most 6.5 MPa and 90 to 99 %% within 2σ", q)
	}
	if !(q.Within1Sigma >= 0.55 && q.Within1Sigma <= 0.85) || !(q.AUROC > 0.6) || !(q.NLL < 3.3) {
		t.Errorf("the regressor on the test split: %+v", q)
	}
	// The manifest's int8 measure is this one.
	var recorded struct {
		Test RegressionQuality `json:"test"`
	}
	b, _ := json.Marshal(files[weights.BundleBNN].Manifest.Metrics)
	if err := json.Unmarshal(b, &recorded); err != nil || math.Abs(recorded.Test.RMSE-q.RMSE) > 1e-6 || recorded.Test.Within2Sigma != q.Within2Sigma {
		t.Errorf("bnn.dcw's manifest records %+v (%v), measured %+v", recorded.Test, err, q)
	}
	v, err := MeasureTableVAE(backend, d, p, p, test)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Columns {
		t.Logf("%-18s reconstructed to %7.3f %-6s (%.3f std)", c.Column, *c.RMSE, c.Unit, *c.RMSEOverStd)
		if *c.RMSEOverStd > 0.2 {
			t.Errorf("the VAE reconstructs %s to %.3f of its std", c.Column, *c.RMSEOverStd)
		}
	}
	t.Logf("reconstructions in the mix's range %.3f, predictive means %.2f MPa apart (RMS)", v.ReconLabelAgreement, *v.ReconPredictionShift)
	if v.ReconLabelAgreement < 0.6 {
		t.Errorf("only %.3f of the reconstructions are predicted in their mix's range", v.ReconLabelAgreement)
	}
}

// TestConcreteSure: τ is the 25th percentile (nearest rank) of the σs, rounded to 0.1.
func TestConcreteSure(t *testing.T) {
	sigmas := []float64{9, 2.04, 5, 3.16, 7, 4, 8, 6}
	if got := ConcreteSure(sigmas); got != 3.2 {
		t.Errorf("τ of %v: %g, want 3.2 (the second of eight, 3.16, rounded)", sigmas, got)
	}
	if got := ConcreteSure([]float64{4.04}); got != 4 {
		t.Errorf("τ of one σ: %g", got)
	}
}
