package training

import (
	"math"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// TestShippedModelsMeetTheBar loads the committed weights with the project's loader into gomlx and
// re-measures them on the test split: the thresholds of the issue, and agreement with the manifests' numbers.
func TestShippedModelsMeetTheBar(t *testing.T) {
	vae, err := weights.ShippedVAE()
	if err != nil {
		t.Fatal(err)
	}
	bnn, err := weights.ShippedBNN()
	if err != nil {
		t.Fatal(err)
	}
	logVar, err := weights.ShippedVAELogVar()
	if err != nil {
		t.Fatal(err)
	}
	test, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	// The shipped files are the compact form of one float32 export, and the VAE leaves its log-variance head to
	// vae_logvar.dcw (the engine needs only the mean).
	for _, f := range []*weights.File{vae, bnn, logVar} {
		if f.Manifest.Compaction == nil || f.Manifest.Compaction.Tool != "cmd/compact" {
			t.Errorf("%s: no compaction record", f.Name)
		}
	}
	if c := vae.Manifest.Compaction; c != nil && (c.Into != FileLogVar || logVar.Manifest.Compaction.Source != c.Source) {
		t.Errorf("%s and %s come from different float32 files (%+v, %+v)", vae.Name, logVar.Name, c, logVar.Manifest.Compaction)
	}
	for _, tn := range vae.Manifest.Tensors {
		if strings.HasPrefix(tn.Name, weights.StackEncoderLogVar+"/") {
			t.Errorf("%s still carries %s", vae.Name, tn.Name)
		}
	}
	backend := Backend()
	q, _ := MeasureBNN(backend, bnn, test)
	t.Logf("BNN on %d test digits: accuracy %.4f, NLL %.4f, ECE %.4f, AUROC %.4f", test.Len(), q.Accuracy, q.NLL, q.ECE, q.AUROC)
	if q.Accuracy < 0.965 || q.ECE > 0.03 || q.AUROC < 0.85 {
		t.Errorf("BNN below the bar: want accuracy ≥ 0.965, ECE ≤ 0.03, AUROC ≥ 0.85")
	}
	v := MeasureVAE(backend, vae, logVar, bnn, test)
	t.Logf("VAE: ELBO %.2f nats/image, reconstruction keeps the BNN's label for %.4f", v.ELBO, v.ReconLabelAgreement)
	if v.ReconLabelAgreement < 0.90 {
		t.Errorf("reconstruction-label agreement %.4f < 0.90", v.ReconLabelAgreement)
	}
	// The manifests carry the numbers the trainer measured; they must be what the models give.
	manBNN := bnn.Manifest.Metrics["test"].(map[string]any)
	manVAE := vae.Manifest.Metrics["test"].(map[string]any)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"accuracy", q.Accuracy, manBNN["accuracy"].(float64)},
		{"nll", q.NLL, manBNN["nll"].(float64)},
		{"ece", q.ECE, manBNN["ece"].(float64)},
		{"auroc", q.AUROC, manBNN["auroc"].(float64)},
		{"recon_label_agreement", v.ReconLabelAgreement, manVAE["recon_label_agreement"].(float64)},
		{"elbo_per_image", v.ELBO, manVAE["elbo_per_image"].(float64)},
	} {
		if math.Abs(c.got-c.want) > 1e-4*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s: measured %v, the manifest says %v", c.name, c.got, c.want)
		}
	}
}

func TestClassifyAndAUROC(t *testing.T) {
	// Two digits: one right and confident, one wrong and unsure.
	probs := []float32{
		0.9, 0.1, 0, 0, 0, 0, 0, 0, 0, 0,
		0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0,
	}
	c := Classify(probs, []uint8{0, 1})
	if c.Accuracy != 0.5 {
		t.Errorf("accuracy %v", c.Accuracy) // the tie goes to the first class, 0: wrong
	}
	wantNLL := (-math.Log(0.9) - math.Log(0.5)) / 2
	if math.Abs(c.NLL-wantNLL) > 1e-6 {
		t.Errorf("NLL %v, want %v", c.NLL, wantNLL)
	}
	// ECE: bin of 0.9 has accuracy 1 → |1−0.9|; bin of 0.5 has accuracy 0 → |0−0.5|; each weight 1/2.
	if math.Abs(c.ECE-(0.1+0.5)/2) > 1e-6 {
		t.Errorf("ECE %v, want 0.3", c.ECE)
	}
	if c.AUROC != 1 {
		t.Errorf("AUROC %v, want 1 (the wrong digit has the higher entropy)", c.AUROC)
	}
	if a := AUROC([]float64{1, 2, 2, 3}, []bool{false, true, false, true}); a != 0.875 {
		t.Errorf("AUROC with a tie = %v, want 0.875", a)
	}
}
