package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// Quality is what `deltaclue quality` prints: the models measured on their test items.
type Quality struct {
	Models   string  `json:"models"`
	Accuracy float64 `json:"accuracy"`
	NLL      float64 `json:"nll"`   // mean −log p(true class), nats
	ECE      float64 `json:"ece"`   // expected calibration error, 15 equal-width confidence bins
	AUROC    float64 `json:"auroc"` // of the predictive entropy, for telling the model's mistakes from its hits
	// ELBO is the VAE's evidence lower bound per item in nats (a 10-sample estimate), nil when the bundle
	// cannot give it (no log-variance network, or a Gaussian decoder, whose variance a description omits).
	ELBO *float64 `json:"elbo"`
	// ReconstructionsKeepLabel is the share of items whose reconstruction decoder(encoder mean(x)) gets the
	// classifier's label for x.
	ReconstructionsKeepLabel float64 `json:"reconstructions_keep_label"`
	TestItems                int     `json:"test_items"`
	// Columns is a table's VAE's reconstruction per column (a number's RMSE in its own unit, a category's share
	// decoded to its own level); absent for images.
	Columns []training.ColumnReconstruction `json:"columns,omitempty"`
}

// quality measures a bundle on its test items, with gomlx (package training's graphs of the description), as
// the README's tables were measured; a table's VAE also column by column.
func quality(args []string) error {
	fs := flag.NewFlagSet("quality", flag.ContinueOnError)
	spec := modelsFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := loadModels(*spec)
	if err != nil {
		return err
	}
	test, err := m.test("quality")
	if err != nil {
		return err
	}
	start := time.Now()
	var q any
	if m.Description().IsRegression() {
		q, err = measureRegression(m, test)
	} else {
		q, err = measureQuality(m, test)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "measured %d test items in %.1fs\n", test.Len(), time.Since(start).Seconds())
	b, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}

// measureQuality measures a classifier's models on items.
func measureQuality(m *models, items dataset.Items) (*Quality, error) {
	d := *m.Description()
	var files []*weights.File
	for _, f := range m.Bundle.Files {
		files = append(files, f)
	}
	if m.ShippedDigits {
		// The digits' log-variance head is shipped apart (weights/vae_logvar.dcw), not in their bundle.
		lv, err := weights.ShippedVAELogVar()
		if err != nil {
			return nil, err
		}
		enc := d.VAE.Encoder.Layers
		head := weights.Layer{Op: weights.OpDense, Out: d.VAE.Latent, Weights: weights.LayerName(weights.StackEncoderLogVar, 0) + "/weights",
			Bias: weights.LayerName(weights.StackEncoderLogVar, 0) + "/biases"}
		d.VAE.LogVariance = &weights.Network{File: d.VAE.Encoder.File, Layers: append(append([]weights.Layer(nil), enc[:len(enc)-1]...), head)}
		files = append(files, lv)
	}
	if d.VAE.Likelihood == weights.LikelihoodGaussian {
		d.VAE.LogVariance = nil // a Gaussian decoder's variance is not in the description: no ELBO
	}
	p, err := training.FileTensors(files...)
	if err != nil {
		return nil, err
	}
	backend := training.Backend()
	c, _ := training.MeasureClassifierWith(backend, &d, p, items)
	q := &Quality{Models: m.Name(), Accuracy: c.Accuracy, NLL: c.NLL, ECE: c.ECE, AUROC: c.AUROC, TestItems: items.Len()}
	if d.Input.IsTable() {
		// A table's VAE (the mixed likelihood) is measured column by column, its reconstructions read back
		// as valid rows (training.ReconstructRow).
		rows, ok := items.(*dataset.Table)
		if !ok {
			return nil, fmt.Errorf("the %q models read a table, but their test items are not rows", m.Name())
		}
		v, err := training.MeasureTableVAE(backend, &d, p, p, rows)
		if err != nil {
			return nil, err
		}
		q.ReconstructionsKeepLabel, q.Columns = v.ReconLabelAgreement, v.Columns
		if !math.IsNaN(v.ELBO) {
			q.ELBO = &v.ELBO
		}
		return q, nil
	}
	v := training.MeasureDescribedVAE(backend, &d, p, p, items)
	q.ReconstructionsKeepLabel = v.ReconLabelAgreement
	if !math.IsNaN(v.ELBO) {
		q.ELBO = &v.ELBO
	}
	return q, nil
}

// RegressionQuality is what `deltaclue quality` prints for a predictor of a number: its predictive's error and
// calibration on the test rows (training.RegressionQuality: rmse, nll, within_1_sigma, within_2_sigma, auroc of
// σ for the largest errors, the mean σ and its parts), in the target's unit, and its VAE column by column.
type RegressionQuality struct {
	Models string `json:"models"`
	Target string `json:"target"`
	Unit   string `json:"unit"`
	training.RegressionQuality
	TestItems int                             `json:"test_items"`
	Columns   []training.ColumnReconstruction `json:"columns,omitempty"`
}

// measureRegression measures a regression's predictive on its test rows (with their targets) and its VAE.
func measureRegression(m *models, items dataset.Items) (*RegressionQuality, error) {
	d := m.Description()
	var files []*weights.File
	for _, f := range m.Bundle.Files {
		files = append(files, f)
	}
	p, err := training.FileTensors(files...)
	if err != nil {
		return nil, err
	}
	backend := training.Backend()
	rows, ok := items.(*dataset.Table)
	if !ok || len(rows.Targets) != rows.Len() {
		return nil, fmt.Errorf("the %q models predict %s, but their test items carry no targets to measure them on", m.Name(), d.Regression.Target)
	}
	r, err := training.MeasureRegression(backend, d, p, rows)
	if err != nil {
		return nil, err
	}
	q := &RegressionQuality{Models: m.Name(), Target: d.Regression.Target, Unit: d.Regression.Unit, RegressionQuality: r, TestItems: rows.Len()}
	if d.Input.IsTable() {
		v, err := training.MeasureTableVAE(backend, d, p, p, rows)
		if err != nil {
			return nil, err
		}
		q.Columns = v.Columns
	}
	return q, nil
}
