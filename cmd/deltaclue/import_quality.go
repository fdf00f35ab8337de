package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/internal/budget"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/plural"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// What int8 costs, measured on the test items: the classifier's accuracy, NLL, ECE and AUROC over its MC
// posterior, and the share of reconstructions decoder(encoder mean(x)) that keep the label read, float32 and
// int8. They are measured with the engine, the models the page runs (natively: many times faster than gomlx's
// pure-Go backend on a convolutional model; the same numbers within rounding, TestImportQualityAgreesWithGomlx);
// the ELBO, which needs the log-variance head only a VAE the import trained has and the engine does not run,
// with gomlx. Under a budget the float32 pass gets half the share and measures as many test items as it holds,
// spread over them (budget.Order), and the int8 pass measures the same ones.

// qualityPass measures one set of weights on test items with the engine.
type qualityPass struct {
	vae   *engine.VAE
	bnn   *engine.BNN
	test  dataset.Items
	probs []float32 // the classifier's predictive, Classes values per test item (those measured)
	keep  []bool    // per test item measured: its reconstruction keeps the label read
}

func newQualityPass(d *weights.Description, files map[string]*weights.File, test dataset.Items) (*qualityPass, error) {
	vae, bnn, err := engine.Load(d, files)
	if err != nil {
		return nil, err
	}
	return &qualityPass{vae: vae, bnn: bnn, test: test, probs: make([]float32, test.Len()*bnn.Classes), keep: make([]bool, test.Len())}, nil
}

// read measures the test items items (any order; rows are independent, so the bits do not depend on the batch).
func (q *qualityPass) read(items []int) {
	size, classes := q.test.Size(), q.bnn.Classes
	x := make([]float32, len(items)*size)
	for k, i := range items {
		q.test.Float(i, x[k*size:(k+1)*size])
	}
	read := q.bnn.Classify(x)
	recon := q.bnn.Classify(q.vae.DecodeImages(q.vae.Encode(x)))
	for k, i := range items {
		copy(q.probs[i*classes:(i+1)*classes], read[k].Probs)
		q.keep[i] = read[k].Label() == recon[k].Label()
	}
}

// measures are the measures over the items (ascending), the ELBO with gomlx from p when the VAE has a
// log-variance head.
func (q *qualityPass) measures(d *weights.Description, items []int, p training.Tensors) (training.Classification, training.VAEQuality) {
	classes := q.bnn.Classes
	probs := make([]float32, 0, len(items)*classes)
	labels := make([]uint8, len(items))
	v := training.VAEQuality{ELBO: math.NaN()}
	for k, i := range items {
		probs = append(probs, q.probs[i*classes:(i+1)*classes]...)
		labels[k] = uint8(q.test.Label(i))
		if q.keep[i] {
			v.ReconLabelAgreement++
		}
	}
	v.ReconLabelAgreement /= float64(max(len(items), 1))
	if d.VAE.LogVariance != nil {
		v.ELBO = training.MeasureDescribedELBO(training.Backend(), d, p, subsetItems{q.test, items})
	}
	return training.Classify(probs, labels), v
}

// subsetItems are some items of a set, in the order given.
type subsetItems struct {
	dataset.Items
	idx []int
}

func (s subsetItems) Len() int                             { return len(s.idx) }
func (s subsetItems) Label(i int) int                      { return s.Items.Label(s.idx[i]) }
func (s subsetItems) Float(i int, dst []float32) []float32 { return s.Items.Float(s.idx[i], dst) }

// measureCompaction measures the float32 models (d, files) on the test items, compacts them to int8 (noting the
// float32 measures in their manifests), measures the int8 ones on the same items, prints the table, and returns
// the int8 files, encoded with both measures, and the float32 measures.
func measureCompaction(d *weights.Description, files map[string]*weights.File, test dataset.Items, share stageBudget, start time.Time) (map[string][]byte, map[string]any, error) {
	half := share
	half.Budget /= 2
	order := budget.Order(test.Len())
	nouns := "test " + plural.Word(2, d.Input.Noun)
	tensors := func(files map[string]*weights.File) (training.Tensors, error) {
		if d.VAE.LogVariance == nil {
			return nil, nil
		}
		return training.FileTensors(files[weights.BundleBNN], files[weights.BundleVAE])
	}
	q32, err := newQualityPass(d, files, test)
	if err != nil {
		return nil, nil, err
	}
	st := half.stage(nouns+" (float32)", test.Len(), min(test.Len(), 64), 32)
	r, err := st.Run(context.Background(), func(from, to int) error { q32.read(order[from:to]); return nil })
	if err != nil {
		return nil, nil, err
	}
	items := slices.Clone(order[:r.Done])
	slices.Sort(items)
	p32, err := tensors(files)
	if err != nil {
		return nil, nil, err
	}
	c32, v32 := q32.measures(d, items, p32)
	m32 := measuresOn(c32, v32, len(items), test.Len())
	enc := map[string][]byte{}
	for _, name := range []string{weights.BundleBNN, weights.BundleVAE} {
		if enc[name], err = compactFile(d, files[name], m32, nil); err != nil {
			return nil, nil, err
		}
	}
	int8Files, err := decodeAll(enc)
	if err != nil {
		return nil, nil, err
	}
	q8, err := newQualityPass(d, int8Files, test)
	if err != nil {
		return nil, nil, err
	}
	st8 := share.stage(nouns+" (int8)", len(items), 0, 32)
	st8.Budget = 0 // the same items as float32's
	if _, err := st8.Run(context.Background(), func(from, to int) error { q8.read(items[from:to]); return nil }); err != nil {
		return nil, nil, err
	}
	p8, err := tensors(int8Files)
	if err != nil {
		return nil, nil, err
	}
	c8, v8 := q8.measures(d, items, p8)
	on := fmt.Sprintf("%d test items", test.Len())
	if len(items) < test.Len() {
		on = fmt.Sprintf("%d of %d test items", len(items), test.Len())
		half.leftOut(nouns+" measured", len(items), test.Len(), 2*r.Need(st))
	}
	fmt.Printf("on %s:   accuracy   NLL      reconstructions keep the label   ELBO\n", on)
	fmt.Printf("  float32           %6.2f %%  %.4f   %6.2f %%                          %s\n", 100*c32.Accuracy, c32.NLL, 100*v32.ReconLabelAgreement, elboText(v32.ELBO))
	fmt.Printf("  int8              %6.2f %%  %.4f   %6.2f %%                          %s   (%.1fs)\n", 100*c8.Accuracy, c8.NLL, 100*v8.ReconLabelAgreement, elboText(v8.ELBO), time.Since(start).Seconds())
	for _, name := range []string{weights.BundleBNN, weights.BundleVAE} { // with the int8 measures in their manifests
		if enc[name], err = compactFile(d, files[name], m32, map[string]any{"test": measuresOn(c8, v8, len(items), test.Len())}); err != nil {
			return nil, nil, err
		}
	}
	return enc, m32, nil
}

// measuresOn are measures (a manifest's) of n of all test items: with the count when the budget left some out.
func measuresOn(c training.Classification, v training.VAEQuality, n, all int) map[string]any {
	m := measures(c, v)
	if n < all {
		m["test_items"] = n
	}
	return m
}
